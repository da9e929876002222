// The canvas's keys: delete, duplicate, select all, arrows between blocks (Shift: nudge them),
// and / or N to add a block. The handler is refreshed every render but subscribed once (no churn
// while dragging), ahead of React Flow's own (capture), and not for a field's keys.
import { useEffect, useRef } from 'react';
import { duplicateNodes, moveNodes } from '../../model/graph.js';
import { neighbour, type Direction } from '../../model/navigation.js';
import type { CanvasProps } from './props.js';
import type { FlowGraph } from './useFlowGraph.js';
import type { CanvasSelection } from './useCanvasSelection.js';
import type { CanvasFocus } from './useCanvasFocus.js';
import type { DeleteKeepingFocus } from './useDeleting.js';

/** A field, or a control that handles its own keys (a reference picker's list, `data-own-keys`): the canvas's keys are not for it. */
export const inField = (t: EventTarget | null) =>
  t instanceof HTMLElement && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) || t.closest('[data-own-keys]') !== null);

export interface CanvasKeys {
  /** While the palette is open its keys are its own. */
  paletteOpen: boolean;
  edit: CanvasProps['edit'];
  graph: FlowGraph;
  selection: CanvasSelection;
  focus: CanvasFocus;
  deleteKeepingFocus: DeleteKeepingFocus;
  openPalette: () => void;
}

export function useCanvasKeys(readOnly: boolean, keys: CanvasKeys): void {
  const keyHandler = useRef<(e: KeyboardEvent) => void>(() => {});
  keyHandler.current = (e: KeyboardEvent) => onCanvasKey(e, keys);
  useEffect(() => {
    if (readOnly) return;
    const onKey = (e: KeyboardEvent) => keyHandler.current(e);
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [readOnly]);
}

function onCanvasKey(e: KeyboardEvent, k: CanvasKeys): void {
  if (inField(e.target) || k.paletteOpen) return;
  const mod = e.ctrlKey || e.metaKey;
  const key = e.key.toLowerCase();
  if (key === 'delete' || key === 'backspace') deleteSelected(e, k);
  else if (mod && key === 'd') duplicateSelected(e, k);
  else if (mod && key === 'a') {
    e.preventDefault();
    k.graph.setNodes((nds) => nds.map((n) => ({ ...n, selected: true })));
  } else if (!mod && e.shiftKey && key.startsWith('arrow')) nudgeSelected(e, key, k);
  else if (!mod && key.startsWith('arrow')) moveSelection(e, key, k);
  else if (!mod && (key === '/' || key === 'n')) {
    e.preventDefault();
    k.openPalette();
  }
}

function deleteSelected(e: KeyboardEvent, k: CanvasKeys): void {
  const ns = k.selection.selectedIds();
  const es = k.graph.edgesRef.current.filter((x) => x.selected).map((x) => x.id);
  if (ns.length || es.length) {
    e.preventDefault();
    k.deleteKeepingFocus(ns, es);
  }
}

function duplicateSelected(e: KeyboardEvent, k: CanvasKeys): void {
  const ids = k.selection.selectedIds();
  if (!ids.length) return;
  k.edit!((d) => {
    const r = duplicateNodes(d, ids);
    k.graph.pendingSelect.current = r.ids;
    return r.doc;
  });
  e.preventDefault();
}

/** Shift+arrows nudge the selected blocks (one undo step per burst). */
function nudgeSelected(e: KeyboardEvent, key: string, k: CanvasKeys): void {
  const sel = k.graph.nodesRef.current.filter((n) => n.selected);
  if (!sel.length) return;
  e.preventDefault();
  e.stopPropagation();
  const d = { arrowup: [0, -10], arrowdown: [0, 10], arrowleft: [-10, 0], arrowright: [10, 0] }[key] ?? [0, 0];
  k.edit!((doc) => moveNodes(doc, new Map(sel.map((n) => [n.id, { x: n.position.x + d[0], y: n.position.y + d[1] }]))), 'nudge');
}

/** Arrows move the selection to the next block that way (from none: to the first block). */
function moveSelection(e: KeyboardEvent, key: string, k: CanvasKeys): void {
  const sel = k.selection.selectedIds();
  const nodes = k.graph.nodesRef.current;
  const dir = key.slice(5) as Direction;
  const next = sel.length === 0 ? nodes[0]?.id : neighbour(nodes, sel[0], dir);
  if (!next) return;
  // Ahead of React Flow's own arrow handling (which would nudge the block).
  e.preventDefault();
  e.stopPropagation();
  // The focus goes with the selection (from a block, or from nowhere), so a screen reader names
  // the block and Delete after it keeps the place.
  if (k.focus.focusOnCanvas()) k.focus.focusBlock(next);
  k.selection.selectOnly([next], true);
}
