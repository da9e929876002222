// Copy, cut and paste go through the clipboard events (Ctrl/Cmd+C, X, V and the browser's menus),
// so copied blocks reach the system clipboard. Text fields and selected text keep the browser's
// own behaviour.
import { useEffect, useRef, type RefObject } from 'react';
import { plural } from '@setup-pack/core';
import { clipboardText, copyNodes, pasteNodes, readClipboardText, type Clipboard } from '../../model/graph.js';
import type { CanvasProps } from './props.js';
import type { FlowGraph } from './useFlowGraph.js';
import type { CanvasSelection } from './useCanvasSelection.js';
import type { DeleteKeepingFocus } from './useDeleting.js';
import { inField } from './useCanvasKeys.js';

// The last blocks copied here: pasted when the browser gives a paste no clipboard data. Copies
// also go to the system clipboard as JSON, so they paste into another tab, or another pack.
let clipboard: Clipboard | undefined;
let lastClipText: string | undefined;

export interface ClipboardContext {
  paletteOpen: boolean;
  edit: CanvasProps['edit'];
  notify: CanvasProps['notify'];
  graph: FlowGraph;
  selection: CanvasSelection;
  deleteKeepingFocus: DeleteKeepingFocus;
}

export function useClipboard(readOnly: boolean, c: ClipboardContext): void {
  // How many times in a row the same blocks were pasted: each copy goes a little further.
  const pasteCount = useRef(0);
  const clipHandler = useRef<(e: ClipboardEvent) => void>(() => {});
  clipHandler.current = (e: ClipboardEvent) => {
    if (inField(e.target) || inField(document.activeElement) || c.paletteOpen) return;
    if (e.type === 'paste') paste(e, c, pasteCount);
    else copy(e, c, pasteCount);
  };
  useEffect(() => {
    if (readOnly) return;
    const onClip = (e: ClipboardEvent) => clipHandler.current(e);
    for (const type of ['copy', 'cut', 'paste'] as const) document.addEventListener(type, onClip);
    return () => {
      for (const type of ['copy', 'cut', 'paste'] as const) document.removeEventListener(type, onClip);
    };
  }, [readOnly]);
}

function paste(e: ClipboardEvent, c: ClipboardContext, pasteCount: RefObject<number>): void {
  const text = e.clipboardData?.getData('text/plain');
  const clip = text ? readClipboardText(text) : clipboard;
  if (!clip) return;
  e.preventDefault();
  if ('refused' in clip) return c.notify?.(clip.refused);
  // Pasting the same blocks again offsets each copy a little further.
  if (text && text !== lastClipText) pasteCount.current = 0;
  lastClipText = text || lastClipText;
  clipboard = clip;
  pasteCount.current++;
  const offset = { x: 40 * pasteCount.current, y: 40 * pasteCount.current };
  c.edit!((d) => {
    const r = pasteNodes(d, clip, offset);
    c.graph.pendingSelect.current = r.ids;
    return r.doc;
  });
}

/** Copy or cut: the selected blocks, unless the user is copying text. */
function copy(e: ClipboardEvent, c: ClipboardContext, pasteCount: RefObject<number>): void {
  const selection = window.getSelection();
  if (selection && !selection.isCollapsed) return; // the user is copying text
  const ns = c.selection.selectedIds();
  if (!ns.length) return;
  e.preventDefault();
  clipboard = copyNodes(c.graph.docRef.current, ns);
  lastClipText = clipboardText(clipboard);
  e.clipboardData?.setData('text/plain', lastClipText);
  pasteCount.current = 0;
  if (e.type === 'cut') c.deleteKeepingFocus(ns, []);
  c.notify?.(`${plural(ns.length, 'block')} ${e.type === 'cut' ? 'cut' : 'copied'}`);
}
