// Opening a pack (a file, dropped or picked; an address; text from the workspace) and starting a
// new one: each replaces what is open, so unsaved work is never dropped without asking.
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import type { EditorStore } from '../../model/store.js';
import { newPack as emptyPack } from '../../model/pack.js';
import { lostOnOpen, lostOnOpenBanner, packFileText, parsePackText } from '../../model/fileText.js';
import { drafts } from './drafts.js';

export interface PackFile {
  /** What opening lost, or that unsaved work was restored: shown until dismissed. */
  banner: string | undefined;
  setBanner: (text: string | undefined) => void;
  /**
   * Bumped by every open: the canvas is keyed on it, so a pack opened anew starts a new canvas even
   * when it shows the same automation index.
   */
  canvasSeq: RefObject<number>;
  /** The toolbar's file picker, also opened by Ctrl/Cmd+O and the palette. */
  fileInput: RefObject<HTMLInputElement | null>;
  openText: (text: string, source: string) => void;
  openUrl: (url: string) => Promise<void>;
  openFile: (file: File) => void;
  /** Text the plan panel opened from the workspace. */
  openFromWorkspace: (text: string, source: string) => void;
  newPack: () => void;
}

export function usePackFile(store: EditorStore, notify: (text: string) => void, clearSelection: () => void): PackFile {
  const [banner, setBanner] = useState<string>();
  const fileInput = useRef<HTMLInputElement>(null);
  const canvasSeq = useRef(0);
  const openText = useCallback(
    (text: string, source: string) => {
      const r = parsePackText(text);
      if (!r.value) return notify(`Cannot open ${source}: ${r.error}`);
      canvasSeq.current++;
      const lost = lostOnOpen(text);
      store.open(r.value, source, text, { numbers: lost.numbers, duplicates: lost.duplicates });
      clearSelection();
      setBanner(lostOnOpenBanner(lost));
    },
    [store, notify, clearSelection],
  );
  const openUrl = useCallback(
    async (url: string) => {
      try {
        const res = await fetch(url);
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        openText(await res.text(), url);
      } catch (e) {
        notify(`Cannot load ${url}: ${e instanceof Error ? e.message : String(e)}`);
      }
    },
    [openText, notify],
  );
  useEffect(() => {
    // For the end-to-end tests and the benchmark: open pack text as the file picker would.
    Object.assign(window, { __openPackText: openText, __drafts: drafts });
  }, [openText]);
  const openFile = (file: File) => {
    if (store.dirty && !confirm(`Discard unsaved changes and open ${file.name}?`)) return;
    void packFileText(file).then((r) => ('error' in r ? notify(`Cannot open ${file.name}: ${r.error}`) : openText(r.text, file.name)));
  };
  const openFromWorkspace = (text: string, source: string) => {
    if (store.dirty && !confirm(`Discard unsaved changes and open ${source}?`)) return;
    openText(text, source);
  };
  const newPack = () => {
    if (store.dirty && !confirm('Discard unsaved changes and start a new pack?')) return;
    canvasSeq.current++;
    store.open(emptyPack(), 'new pack');
  };
  return { banner, setBanner, canvasSeq, fileInput, openText, openUrl, openFile, openFromWorkspace, newPack };
}
