// The Flow map: every automation of the pack as one node, the events between them as edges (the
// cascade graph core's effects model gives), loops drawn in red. A node opens its automation.
import { useMemo } from 'react';
import dagre from '@dagrejs/dagre';
import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  ReactFlowProvider,
  type Edge,
  type Node,
  type NodeProps,
} from '@xyflow/react';
import { analyseFlow, edgeWords, type Pack } from '@setup-pack/core';

const WIDTH = 220;
const HEIGHT = 56;

export interface FlowMapModel {
  nodes: Node[];
  edges: Edge[];
  /** Automations on a loop (or starting themselves), by index. */
  looping: Set<number>;
}

/** The map's nodes and edges, laid out by dagre; loops marked. Pure, for a test to read. */
export function flowMapModel(pack: Pack): FlowMapModel {
  const { flow, cascade, loops, selfStarts } = analyseFlow(pack);
  const looping = new Set([...loops.flatMap((l) => l.members), ...selfStarts.map((e) => e[0].from)]);
  const loopEdges = new Set([...loops.flatMap((l) => l.path), ...selfStarts.flat()]);
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 60, ranksep: 140 });
  g.setDefaultEdgeLabel(() => ({}));
  flow.automations.forEach((_, i) => g.setNode(String(i), { width: WIDTH, height: HEIGHT }));
  for (const e of cascade.edges) if (e.from !== e.to) g.setEdge(String(e.from), String(e.to));
  dagre.layout(g);
  const nodes: Node[] = flow.automations.map((a, i) => {
    const p = g.node(String(i));
    const trigger = a.nodes[a.triggers[0]]?.kind.replace(/^trigger\./, '').replace(/_/g, ' ') ?? 'no trigger';
    return {
      id: String(i),
      position: { x: p.x - WIDTH / 2, y: p.y - HEIGHT / 2 },
      type: 'automation',
      data: { label: `${a.name}\n(${trigger})` },
      className: looping.has(i) ? 'flow-node loop' : 'flow-node',
      ariaLabel: `${a.name}, starts on ${trigger}${looping.has(i) ? ', on a loop' : ''}`,
      style: { width: WIDTH },
    };
  });
  const x = (i: number) => g.node(String(i)).x;
  const edges: Edge[] = cascade.edges.map((e, i) => ({
    id: `c${i}`,
    // Laid out left to right, a start leaves on the right and enters on the left; one back to an
    // automation laid out before (or to itself) goes round below, so it and its label do not lie
    // on top of the start forward.
    ...(x(e.to) <= x(e.from)
      ? { type: 'smoothstep', sourceHandle: 'back-out', targetHandle: 'back-in', pathOptions: { offset: 28, borderRadius: 8 } }
      : { sourceHandle: 'out', targetHandle: 'in' }),
    source: String(e.from),
    target: String(e.to),
    label: `${edgeWords(flow, e)}${e.certainty === 'possible' ? ' (may)' : ''}`,
    className: loopEdges.has(e) ? 'flow-edge loop' : 'flow-edge',
    animated: loopEdges.has(e),
    markerEnd: { type: MarkerType.ArrowClosed },
    ...(e.certainty === 'possible' ? { style: { strokeDasharray: '4 3' } } : {}),
  }));
  return { nodes, edges, looping };
}

/** An automation on the map: its name and trigger, starts in on the left and out on the right, and back-starts below. */
function AutomationNode({ data }: NodeProps) {
  return (
    <>
      <Handle type="target" id="in" position={Position.Left} isConnectable={false} />
      <Handle type="target" id="back-in" position={Position.Bottom} style={{ left: '30%' }} isConnectable={false} />
      <div>{String(data.label)}</div>
      <Handle type="source" id="out" position={Position.Right} isConnectable={false} />
      <Handle type="source" id="back-out" position={Position.Bottom} style={{ left: '70%' }} isConnectable={false} />
    </>
  );
}
const NODE_TYPES = { automation: AutomationNode };

export function FlowMap({ pack, onOpen, onClose }: { pack: Pack; onOpen: (automation: number) => void; onClose: () => void }) {
  const model = useMemo(() => flowMapModel(pack), [pack]);
  const count = model.looping.size;
  return (
    // An automation is a Tab stop (React Flow's node); Enter or Space opens it, as a click does.
    <section
      className="flow-map"
      aria-label="Flow map"
      onKeyDown={(e) => {
        const node = (e.target as HTMLElement).closest<HTMLElement>('.react-flow__node');
        if (!node || (e.key !== 'Enter' && e.key !== ' ')) return;
        e.preventDefault();
        onOpen(Number(node.dataset.id));
      }}
    >
      <div className="flow-map-head">
        <h2>Flow map</h2>
        <p className="help" role="status" data-testid="flow-map-summary">
          {model.nodes.length} automation{model.nodes.length === 1 ? '' : 's'}, {model.edges.length} start
          {model.edges.length === 1 ? '' : 's'} between them
          {count ? `; ${count} on a loop (red)` : '; no loop'}. Click an automation to open it.
        </p>
        <button onClick={onClose}>Back to editor</button>
      </div>
      <div className="flow-map-canvas">
        <ReactFlowProvider>
          <ReactFlow
            nodes={model.nodes}
            edges={model.edges}
            nodeTypes={NODE_TYPES}
            fitView
            nodesDraggable={false}
            nodesConnectable={false}
            onNodeClick={(_, n) => onOpen(Number(n.id))}
            proOptions={{ hideAttribution: true }}
          >
            <Background />
            <Controls showInteractive={false} />
          </ReactFlow>
        </ReactFlowProvider>
      </div>
    </section>
  );
}
