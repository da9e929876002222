// The tab's title: the pack's name, marked while it has unsaved work.
import { useEffect } from 'react';
import type { EditorStore } from '../../model/store.js';
import type { PackValue } from '../../model/pack.js';

/** `savedPack` is the store's: exporting changes the mark without changing the pack. */
export function useDocumentTitle(store: EditorStore, pack: PackValue, savedPack: PackValue): void {
  useEffect(() => {
    document.title = `${store.dirty ? '● ' : ''}${typeof pack.name === 'string' && pack.name ? pack.name : 'Untitled pack'} — Setup Pack editor`;
  }, [pack, savedPack, store]);
}
