// The canvas's nodes and edges: built from the automation's document on mount, then rebuilt
// whenever it (or its findings, the diff's marks, the references) change. Drag positions,
// selection and measurements live in this state (React Flow's changes); the pack only hears of a
// move when the drag ends (onNodeDragStop: one undoable step).
import { useCallback, useEffect, useRef, useState, type Dispatch, type RefObject, type SetStateAction } from 'react';
import { applyEdgeChanges, applyNodeChanges, type Edge, type EdgeChange, type NodeChange } from '@xyflow/react';
import type { Obj } from '../../model/json.js';
import { SummaryStore, type BlockNodeType } from '../BlockNode.js';
import { buildEdges, buildNodes, sameEdgeInputs, type NodeCache } from '../flow.js';
import { renderCounts } from '../renderCounts.js';
import type { CanvasProps } from './props.js';
import { mergeEdges, mergeNodes } from './merge.js';

export interface FlowGraph {
  nodes: BlockNodeType[];
  edges: Edge[];
  setNodes: Dispatch<SetStateAction<BlockNodeType[]>>;
  setEdges: Dispatch<SetStateAction<Edge[]>>;
  onNodesChange: (changes: NodeChange<BlockNodeType>[]) => void;
  onEdgesChange: (changes: EdgeChange<Edge>[]) => void;
  /** The blocks' summaries, which a block reads for itself (SummaryContext). */
  summaries: SummaryStore;
  /** Blocks an edit adds (a paste, a new block), to select once they are built. */
  pendingSelect: RefObject<string[] | null>;
  /** The latest document, nodes and edges, for handlers subscribed once. */
  docRef: RefObject<Obj>;
  nodesRef: RefObject<BlockNodeType[]>;
  edgesRef: RefObject<Edge[]>;
}

type Inputs = Pick<CanvasProps, 'doc' | 'automation' | 'findings' | 'diff' | 'edgeDiff' | 'refs'>;

export function useFlowGraph({ doc, automation, findings, diff, edgeDiff, refs }: Inputs): FlowGraph {
  // Built once, on mount (lazily: React would evaluate an eager argument on every render, i.e. on
  // every pointer move of a drag); later pack states are merged in by useRebuild.
  const nodeCache = useRef<NodeCache>(new WeakMap());
  const summariesRef = useRef<SummaryStore>(null);
  const summaries = (summariesRef.current ??= new SummaryStore());
  const [nodes, setNodes] = useState<BlockNodeType[]>(() => {
    const built = buildNodes(doc, automation, findings, diff, nodeCache.current, refs);
    summaries.update(built);
    return built;
  });
  const [edges, setEdges] = useState<Edge[]>(() => buildEdges(doc, automation, findings, edgeDiff));
  const onNodesChange = useCallback((changes: NodeChange<BlockNodeType>[]) => setNodes((nds) => applyNodeChanges(changes, nds)), []);
  const onEdgesChange = useCallback((changes: EdgeChange<Edge>[]) => setEdges((eds) => applyEdgeChanges(changes, eds)), []);
  const pendingSelect = useRef<string[] | null>(null);
  const docRef = useRef(doc);
  docRef.current = doc;
  const nodesRef = useRef(nodes);
  nodesRef.current = nodes;
  const edgesRef = useRef(edges);
  edgesRef.current = edges;
  useRebuild({ doc, automation, findings, diff, edgeDiff, refs }, { nodeCache, summaries, pendingSelect, setNodes, setEdges });
  return { nodes, edges, setNodes, setEdges, onNodesChange, onEdgesChange, summaries, pendingSelect, docRef, nodesRef, edgesRef };
}

/**
 * Rebuilds from the pack whenever it (or its findings) change, keeping selection and
 * measurements, and reusing unchanged nodes so only edited blocks re-render.
 */
function useRebuild(
  inputs: Inputs,
  {
    nodeCache,
    summaries,
    pendingSelect,
    setNodes,
    setEdges,
  }: Pick<FlowGraph, 'summaries' | 'pendingSelect' | 'setNodes' | 'setEdges'> & { nodeCache: RefObject<NodeCache> },
): void {
  const { doc, automation, findings, diff, edgeDiff, refs } = inputs;
  const builtFrom = useRef(inputs);
  useEffect(() => {
    const from = builtFrom.current;
    if (
      from.doc === doc &&
      from.findings === findings &&
      from.diff === diff &&
      from.edgeDiff === edgeDiff &&
      from.refs === refs &&
      !pendingSelect.current
    )
      return; // the initial state already is this
    builtFrom.current = { doc, automation, findings, diff, edgeDiff, refs };
    const built = buildNodes(doc, automation, findings, diff, nodeCache.current, refs);
    // A changed summary goes to its block alone; the node objects stay as they were unless something else changed.
    summaries.update(built);
    // The blocks to select once they exist: a rebuild for other reasons (a validation result
    // arriving before the edit lands) must not use up the selection of a block not yet built.
    const pending = pendingSelect.current;
    const select = pending && pending.every((id) => built.some((n) => n.id === id)) ? new Set(pending) : null;
    if (select) pendingSelect.current = null;
    setNodes((prev) => {
      const next = mergeNodes(prev, built, select);
      if (next !== prev) renderCounts.canvasNodes++;
      return next;
    });
    // Edges are rebuilt only when something they are drawn from changed (not on a keystroke in a field).
    if (!select && from.findings === findings && from.edgeDiff === edgeDiff && sameEdgeInputs(from.doc, doc)) return;
    setEdges((prev) => mergeEdges(prev, buildEdges(doc, automation, findings, edgeDiff), select));
  }, [doc, automation, findings, diff, edgeDiff, refs, setNodes, setEdges, nodeCache, summaries, pendingSelect]);
}
