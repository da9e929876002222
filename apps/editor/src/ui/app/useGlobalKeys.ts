// The page's own keys with Ctrl/Cmd: undo and redo (left to a text field in one), export, open.
import { useEffect, type RefObject } from 'react';
import type { EditorStore } from '../../model/store.js';

export function useGlobalKeys(store: EditorStore, doExport: () => void, fileInput: RefObject<HTMLInputElement | null>): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      if (!mod) return;
      const t = e.target as HTMLElement | null;
      const inText = !!t && (t.isContentEditable || /^(INPUT|TEXTAREA)$/.test(t.tagName));
      const key = e.key.toLowerCase();
      const action =
        key === 'z' && !inText
          ? () => (e.shiftKey ? store.redo() : store.undo())
          : key === 'y' && !inText
            ? () => store.redo()
            : key === 's'
              ? doExport
              : key === 'o'
                ? () => fileInput.current?.click()
                : undefined;
      if (!action) return;
      e.preventDefault();
      action();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [store, doExport, fileInput]);
}
