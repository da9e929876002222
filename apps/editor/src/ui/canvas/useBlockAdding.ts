// Adding a block: the palette (+ Add block, `/`, a connection dropped on empty canvas), or a kind
// asked for from outside (the command palette); the new block is selected and kept in view.
import { useEffect, useRef, useState, type Dispatch, type SetStateAction } from 'react';
import type { ReactFlowInstance } from '@xyflow/react';
import { addConnectedNode, addNode, type XY } from '../../model/graph.js';
import { freeSpot } from '../../model/layout.js';
import type { Obj } from '../../model/json.js';
import type { CanvasProps } from './props.js';
import type { FlowGraph } from './useFlowGraph.js';

/** Where the palette's block goes, and the block and handle it is connected from (a dropped connection). */
export interface PaletteRequest {
  at: XY;
  from?: { source: string; handle: string };
}

export interface BlockAdding {
  palette: PaletteRequest | null;
  setPalette: Dispatch<SetStateAction<PaletteRequest | null>>;
  openPalette: () => void;
  /** The palette's choice: added where the palette was asked for. */
  pick: (kind: string) => void;
}

export function useBlockAdding(
  flow: ReactFlowInstance,
  graph: FlowGraph,
  { edit, notify, add }: Pick<CanvasProps, 'edit' | 'notify' | 'add'>,
): BlockAdding {
  const [palette, setPalette] = useState<PaletteRequest | null>(null);
  const { nodesRef, docRef, pendingSelect } = graph;
  /** Where a new block goes: below the selected block, or in the middle of the view, never on top of another. */
  const newBlockSpot = (): XY => {
    const sel = nodesRef.current.filter((n) => n.selected);
    const want = sel.length === 1 ? { x: sel[0].position.x, y: sel[0].position.y + 120 } : viewportCenter(flow);
    return freeSpot(docRef.current, want);
  };
  const openPalette = () => setPalette({ at: newBlockSpot() });
  /** Adds a block of `kind` at `at` (connected from `from`), selects it and keeps it in view. */
  const addBlock = (kind: string, at: XY, from?: { source: string; handle: string }) => {
    if (!edit) return;
    let error: string | undefined;
    edit((d) => {
      const r: { doc: Obj; id: string; error?: string } = from ? addConnectedNode(d, kind, at, from) : addNode(d, kind, at);
      error = r.error;
      pendingSelect.current = [r.id];
      return r.doc;
    });
    if (error) notify?.(error);
    keepInView(flow, at);
  };
  const pick = (kind: string) => {
    if (!palette) return;
    setPalette(null);
    addBlock(kind, palette.at, palette.from);
  };
  useAddRequest(add, () => add && addBlock(add.kind, newBlockSpot()));
  return { palette, setPalette, openPalette, pick };
}

/**
 * A block asked for from outside the canvas (the command palette), placed as + Add block places
 * one. Read through a ref: the effect runs once per request, not on every render. A request made
 * before this canvas was (another automation's) is not one for it.
 */
function useAddRequest(add: CanvasProps['add'], addBlock: () => void): void {
  const addSeen = useRef(add);
  const addAsked = useRef(() => {});
  addAsked.current = () => {
    if (!add || add === addSeen.current) return;
    addSeen.current = add;
    addBlock();
  };
  useEffect(() => addAsked.current(), [add]);
}

function viewportCenter(flow: ReactFlowInstance): XY {
  const el = document.querySelector('.react-flow');
  const r = el?.getBoundingClientRect();
  const p = flow.screenToFlowPosition({ x: (r?.left ?? 0) + (r?.width ?? 800) / 2, y: (r?.top ?? 0) + (r?.height ?? 600) / 2 });
  return { x: p.x - 110, y: p.y - 32 };
}

/**
 * Keeps the whole new block at `at` in view (not just its middle: half a block under the panel's
 * edge is not in view), centring on it when any part of it is outside.
 */
function keepInView(flow: ReactFlowInstance, at: XY): void {
  setTimeout(() => {
    const vp = document.querySelector('.react-flow')?.getBoundingClientRect();
    const a = flow.flowToScreenPosition({ x: at.x, y: at.y });
    const b = flow.flowToScreenPosition({ x: at.x + 220, y: at.y + 64 });
    const margin = 24;
    if (vp && (a.x < vp.left + margin || a.y < vp.top + margin || b.x > vp.right - margin || b.y > vp.bottom - margin)) {
      void flow.setCenter(at.x + 110, at.y + 32, { zoom: flow.getZoom(), duration: 150 });
    }
  }, 30);
}
