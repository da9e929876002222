// React Flow itself, drawn from the canvas's state and handed its handlers: what it may do (a
// read-only canvas neither drags nor connects) and how it is set up.
import type { RefObject } from 'react';
import { Background, Controls, MiniMap, ReactFlow, type Edge, type Node, type OnSelectionChangeParams } from '@xyflow/react';
import { nodeTypes, SummaryContext, type BlockNodeType } from '../BlockNode.js';
import type { FlowGraph } from './useFlowGraph.js';
import type { ConnectHint } from './useConnectHint.js';
import type { PointerEdits } from './usePointerEdits.js';

// The minimap draws each block in its category's colour (styles.css), by class.
const minimapClass = (n: Node) => String((n.data as { group?: string }).group ?? 'unknown');
const fitViewOptions = { padding: 0.2, maxZoom: 1.2 };
const multiSelectionKeyCode = ['Meta', 'Control'];

export interface FlowViewProps {
  graph: FlowGraph;
  readOnly: boolean;
  /** Whether blocks show their ids (the Show ids preference). */
  ids: string;
  flowEl: RefObject<HTMLDivElement | null>;
  onSelectionChange: (params: OnSelectionChangeParams) => void;
  hint: ConnectHint;
  pointer: PointerEdits;
}

export function FlowView({ graph, readOnly, ids, flowEl, onSelectionChange, hint, pointer }: FlowViewProps) {
  const { nodes, edges } = graph;
  return (
    <SummaryContext.Provider value={graph.summaries}>
      <ReactFlow<BlockNodeType, Edge>
        ref={flowEl}
        className={ids === 'shown' ? 'show-ids' : undefined}
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={graph.onNodesChange}
        onEdgesChange={graph.onEdgesChange}
        onSelectionChange={onSelectionChange}
        onConnect={pointer.onConnect}
        onReconnect={readOnly ? undefined : pointer.onReconnect}
        onReconnectStart={readOnly ? undefined : hint.onReconnectStart}
        onReconnectEnd={readOnly ? undefined : hint.onReconnectEnd}
        onConnectEnd={pointer.onConnectEnd}
        onNodeDragStop={pointer.onNodeDragStop}
        isValidConnection={hint.isValidConnection}
        nodesDraggable={!readOnly}
        nodesConnectable={!readOnly}
        deleteKeyCode={null}
        selectionKeyCode="Shift"
        multiSelectionKeyCode={multiSelectionKeyCode}
        fitView
        fitViewOptions={fitViewOptions}
        minZoom={0.1}
        onlyRenderVisibleElements={nodes.length > 120}
        aria-label="Automation canvas"
        // Edges are picked with the mouse (and then deleted with Delete); as Tab stops they came
        // before every block, invisible. Blocks stay focusable, with arrow keys between them.
        edgesFocusable={false}
      >
        <Background gap={20} />
        <MiniMap position="top-right" pannable zoomable ariaLabel="Minimap" nodeClassName={minimapClass} />
        <Controls />
      </ReactFlow>
    </SummaryContext.Provider>
  );
}
