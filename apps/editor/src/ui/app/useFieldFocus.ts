// Focus the field a clicked finding points at: the field it is shown on (fieldOf).
import { useEffect } from 'react';
import { fieldOf } from '../../model/findings.js';
import type { FieldFocus } from './useSelection.js';

/** What a clicked finding can give the focus to. */
const FOCUSABLE = 'input, select, textarea, button, [tabindex]';

export function useFieldFocus(fieldFocus: FieldFocus | undefined): void {
  useEffect(() => {
    if (!fieldFocus) return;
    // After the form the finding is on has rendered (another item's, or a block's just selected).
    const t = setTimeout(() => focusField(fieldFocus.path), 80);
    return () => clearTimeout(t);
  }, [fieldFocus]);
}

function focusField(path: string[]): void {
  const fields = [...document.querySelectorAll<HTMLElement>('.inspector [data-path], .editor-pane [data-path]')];
  const field = fieldOf(
    path,
    fields.map((e) => e.dataset.path ?? ''),
  );
  const found = fields.find((e) => e.dataset.path === field);
  // A group of controls (the send days) is not focusable itself: the control it marks as the
  // one that fixes it (data-focus: a stage list's Add stage) is, else its first control.
  const el =
    found && !found.matches(FOCUSABLE)
      ? (found.querySelector<HTMLElement>('[data-focus]') ?? found.querySelector<HTMLElement>(FOCUSABLE) ?? found)
      : found;
  if (!el) return;
  // A field under a closed section (a block's Advanced) is shown first.
  const section = el.closest('details');
  if (section) section.open = true;
  // Shown as focused even after the finding was clicked with the mouse: the browser draws no
  // ring on a button or checkbox focused by script after a click (:focus-visible), and the
  // author would not see where the finding went.
  el.focus({ focusVisible: true } as FocusOptions);
  el.scrollIntoView({ block: 'center' });
}
