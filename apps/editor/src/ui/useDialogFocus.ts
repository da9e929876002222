// A dialog's focus: into the dialog when it opens (its first field, else itself), Escape closes it,
// and on close back to what had it before (the button that opened it), as a modal dialog should.
import { useEffect, useRef } from 'react';

export function useDialogFocus<T extends HTMLElement>(onClose: () => void) {
  const ref = useRef<T>(null);
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const el = ref.current;
    (el?.querySelector<HTMLElement>('input, textarea, select') ?? el)?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      e.stopPropagation();
      close.current();
    };
    el?.addEventListener('keydown', onKey);
    return () => {
      el?.removeEventListener('keydown', onKey);
      // Given back only when the focus is still inside the closed dialog (or lost with it), not when the action moved it on purpose.
      if (
        before?.isConnected &&
        (!document.activeElement || document.activeElement === document.body || el?.contains(document.activeElement))
      )
        before.focus();
    };
  }, []);
  return ref;
}
