// The canvas's selection: React Flow's own reported to the editor, and selecting from outside
// React Flow's clicks — the blocks a finding, the Simulate panel or the keyboard names (centred
// when one), or the edge a finding is about; `focus` asks for either.
import { useCallback, useEffect } from 'react';
import type { OnSelectionChangeParams, ReactFlowInstance } from '@xyflow/react';
import { nodeAt } from '../../model/graph.js';
import { asObj } from '../../model/json.js';
import type { CanvasProps } from './props.js';
import type { FlowGraph } from './useFlowGraph.js';

export interface CanvasSelection {
  /** React Flow's selection, reported to the editor (`onSelection`: the inspector shows a block alone selected). */
  onSelectionChange: (params: OnSelectionChangeParams) => void;
  /** Selects these blocks alone (no edge), centring on the block when `center` and there is one. */
  selectOnly: (ids: string[], center?: boolean) => void;
  /** The selected blocks' ids. */
  selectedIds: () => string[];
}

export function useCanvasSelection(
  flow: ReactFlowInstance,
  graph: FlowGraph,
  { focus, onSelection }: Pick<CanvasProps, 'focus' | 'onSelection'>,
): CanvasSelection {
  const { setNodes, setEdges, nodesRef, edgesRef, docRef } = graph;
  const onSelectionChange = useCallback(
    ({ nodes: ns, edges: es }: OnSelectionChangeParams) =>
      onSelection?.(
        ns.map((n) => n.id),
        es.map((e) => e.id),
      ),
    [onSelection],
  );
  const selectOnly = useCallback(
    (ids: string[], center = false) => {
      const set = new Set(ids);
      setNodes((nds) => nds.map((n) => (n.selected === set.has(n.id) ? n : { ...n, selected: set.has(n.id) })));
      setEdges((eds) => eds.map((e) => (e.selected ? { ...e, selected: false } : e)));
      if (center && ids.length === 1) {
        // A block the same edit added (a copy) is in the pack before it is among the rendered nodes.
        const at = nodesRef.current.find((x) => x.id === ids[0])?.position ?? asObj(nodeAt(docRef.current, ids[0])?.position);
        if (typeof at.x === 'number' && typeof at.y === 'number')
          void flow.setCenter(at.x + 110, at.y + 32, { zoom: Math.max(flow.getZoom(), 0.9), duration: 200 });
      }
    },
    [flow, setNodes, setEdges, nodesRef, docRef],
  );
  // A clicked finding about an edge selects that edge alone and centres it (between its blocks),
  // drawn as a selected edge is, so Delete removes what the finding names.
  const selectEdge = useCallback(
    (id: string) => {
      setNodes((nds) => nds.map((n) => (n.selected ? { ...n, selected: false } : n)));
      setEdges((eds) => eds.map((e) => (!!e.selected === (e.id === id) ? e : { ...e, selected: e.id === id })));
      const edge = edgesRef.current.find((e) => e.id === id);
      const ends = edge ? [edge.source, edge.target].map((n) => nodesRef.current.find((x) => x.id === n)).filter((n) => !!n) : [];
      if (ends.length) {
        const x = ends.reduce((sum, n) => sum + n.position.x + 110, 0) / ends.length;
        const y = ends.reduce((sum, n) => sum + n.position.y + 32, 0) / ends.length;
        void flow.setCenter(x, y, { zoom: Math.max(flow.getZoom(), 0.9), duration: 200 });
      }
    },
    [flow, setNodes, setEdges, nodesRef, edgesRef],
  );
  useEffect(() => {
    if (!focus) return;
    if (focus.edgeId) selectEdge(focus.edgeId);
    else selectOnly(focus.nodeIds ?? (focus.nodeId ? [focus.nodeId] : []), true);
  }, [focus, selectOnly, selectEdge]);
  const selectedIds = () => nodesRef.current.filter((n) => n.selected).map((n) => n.id);
  return { onSelectionChange, selectOnly, selectedIds };
}
