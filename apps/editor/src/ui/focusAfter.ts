// Where the keyboard's focus goes after an edit that takes away the control it was on (a removed
// row's button; a moved row's, whose element React moves, which drops its focus; a deleted block;
// a form replaced by another's): one rule for the forms and the canvas, so the keyboard goes on
// where it was and never starts again from the page's top.
import { useEffect, useRef } from 'react';

interface Request {
  /** The value when the focus was asked for. */
  from: unknown;
  /** The first value rendered after `from`: the edit's. */
  to?: unknown;
  focus: () => void;
  ready?: () => boolean;
}

/**
 * `focusAfter(focus, ready?)`, called with an edit of `value` (a list of rows, a document), gives
 * the focus once the edit has rendered: `focus` runs after the first render where `value` is no
 * longer the one it was asked in, or, with `ready`, after the first render of that same new value
 * where `ready()` holds too (the canvas has selected the blocks whose form has the button). So
 * `focus` looks its control up in the page as the edit left it. Compared with the value it was
 * asked in, not with the render before, as the effects of a render before the edit's may run
 * after the click (React runs pending ones first). A request that waits is dropped when a render
 * shows neither value (another edit came first): the focus is no longer this edit's to give.
 * Without `ready` nothing waits, so nothing is dropped. A new request replaces one not yet given.
 */
export function useFocusAfter(value: unknown): (focus: () => void, ready?: () => boolean) => void {
  const pending = useRef<Request>(undefined);
  useEffect(() => {
    const p = pending.current;
    if (!p || p.from === value) return;
    p.to ??= value;
    if (p.to !== value) return void (pending.current = undefined);
    if (p.ready && !p.ready()) return;
    pending.current = undefined;
    p.focus();
  });
  return (focus, ready) => {
    pending.current = { from: value, focus, ready };
  };
}

/**
 * Focuses the first of `candidates` there is and that is not disabled: the same button on the row
 * that took a removed row's place, else the row before's, else the list's add control.
 */
export function focusFirst(candidates: readonly (HTMLElement | null | undefined)[]): void {
  candidates.find((c) => c && !(c as HTMLButtonElement).disabled)?.focus();
}
