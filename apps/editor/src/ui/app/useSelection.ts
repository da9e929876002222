// What the editor has in hand: the item shown (the store's target), the canvas's selected blocks
// and edges, what the canvas is asked to select and centre, and the field asked to take the focus.
import { useCallback, useState } from 'react';
import type { EditorStore } from '../../model/store.js';
import type { Target } from '../../model/pack.js';
import type { CanvasProps } from '../Canvas.js';

/** An item's name in coalesced edits and in comparisons of targets. */
export const targetKey = (t: Target) => (t.kind === 'pack' ? 'pack' : `${t.kind}/${t.index}`);

export interface CanvasSelection {
  nodes: string[];
  edges: string[];
}

/** A field to focus, by its path in the form; `seq` makes asking again for the same field a new request. */
export interface FieldFocus {
  path: string[];
  seq: number;
}

export interface Selection {
  selection: CanvasSelection;
  /** The canvas reports its selection here (stable: the canvas subscribes it once). */
  onSelection: (nodes: string[], edges: string[]) => void;
  clearSelection: () => void;
  focus: CanvasProps['focus'];
  setFocus: (focus: CanvasProps['focus']) => void;
  fieldFocus: FieldFocus | undefined;
  setFieldFocus: (focus: FieldFocus) => void;
  /** Shows another item; the canvas it leaves had the selection. */
  select: (t: Target) => void;
}

export function useSelection(store: EditorStore): Selection {
  const [selection, setSelection] = useState<CanvasSelection>({ nodes: [], edges: [] });
  const [focus, setFocus] = useState<CanvasProps['focus']>();
  const [fieldFocus, setFieldFocus] = useState<FieldFocus>();
  // A new object each time, as the canvas's own reports are: clearing re-renders even when nothing was selected.
  const clearSelection = useCallback(() => setSelection({ nodes: [], edges: [] }), []);
  const onSelection = useCallback((nodes: string[], edges: string[]) => setSelection({ nodes, edges }), []);
  const select = useCallback(
    (t: Target) => {
      store.select(t);
      clearSelection();
    },
    [store, clearSelection],
  );
  return { selection, onSelection, clearSelection, focus, setFocus, fieldFocus, setFieldFocus, select };
}
