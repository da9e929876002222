// A checked view of one automation graph, built once per validation and shared by the graph
// rules. Nodes or edges that failed their schema are kept out of kind-based checks, so one
// root cause gives one error.
import { Graph } from '@dagrejs/graphlib';
import { NODE_CATALOG, outputHandles } from '../catalog/nodes.js';
import type { NodeGroup } from '../types.js';


export interface ModelNode {
  id: string;
  kind: string;
  group?: NodeGroup;
  config: unknown;
  pointer: string;
  /** The node failed its schema (e.g. unknown kind): kind-based checks skip it. */
  broken: boolean;
  /** First node with this id (later duplicates are reported and ignored). */
  duplicate: boolean;
}

export interface ModelEdge {
  id: string;
  source: string;
  target: string;
  handle: string;
  explicitHandle: boolean;
  pointer: string;
  /** Both ends exist. */
  connected: boolean;
  /** Enters a trigger (an error of its own; kept out of the graph so it does not also show as a cycle). */
  intoTrigger: boolean;
}

export interface GraphModel {
  pointer: string;
  nodes: ModelNode[];
  byId: Map<string, ModelNode>;
  edges: ModelEdge[];
  /** graphlib digraph of the connected edges (parallel edges collapse), built on first use. */
  readonly g: Graph;
  /** Connected edges (not into triggers) by source id, in document order. */
  outEdges: Map<string, ModelEdge[]>;
  /** Some node has no usable id (it failed the schema), so an edge naming an unknown id may mean it. */
  hasIdlessNodes: boolean;
  /** Some node failed its schema, so whole-graph conclusions (no trigger...) are unsafe. */
  hasBrokenNodes: boolean;
  handlesOf(node: ModelNode): string[] | undefined;
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function buildGraphModel(graph: unknown, pointer: string, isBroken: (p: string) => boolean): GraphModel | undefined {
  if (!isObj(graph) || !Array.isArray(graph.nodes)) return undefined;
  const nodes: ModelNode[] = [];
  const byId = new Map<string, ModelNode>();
  let hasBrokenNodes = false;
  let hasIdlessNodes = false;
  graph.nodes.forEach((n, i) => {
    const np = `${pointer}/nodes/${i}`;
    if (!isObj(n) || typeof n.id !== 'string' || n.id === '') {
      hasBrokenNodes = true;
      hasIdlessNodes = true;
      return;
    }
    const broken = isBroken(np);
    if (broken) hasBrokenNodes = true;
    const kind = typeof n.kind === 'string' ? n.kind : '';
    const node: ModelNode = { id: n.id, kind, group: NODE_CATALOG.get(kind)?.group, config: n.config, pointer: np, broken, duplicate: byId.has(n.id) };
    nodes.push(node);
    if (!node.duplicate) byId.set(n.id, node);
  });
  const edges: ModelEdge[] = [];
  const rawEdges = Array.isArray(graph.edges) ? graph.edges : [];
  const outEdges = new Map<string, ModelEdge[]>();
  rawEdges.forEach((e, i) => {
    const ep = `${pointer}/edges/${i}`;
    if (!isObj(e) || typeof e.source !== 'string' || typeof e.target !== 'string') return;
    const explicitHandle = typeof e.handle === 'string';
    const edge: ModelEdge = {
      id: typeof e.id === 'string' ? e.id : '',
      source: e.source,
      target: e.target,
      handle: explicitHandle ? (e.handle as string) : 'next',
      explicitHandle,
      pointer: ep,
      connected: byId.has(e.source) && byId.has(e.target),
      intoTrigger: byId.get(e.target)?.group === 'trigger' && !byId.get(e.target)?.broken,
    };
    edges.push(edge);
    if (edge.connected && !edge.intoTrigger) {
      const list = outEdges.get(edge.source);
      if (list) list.push(edge);
      else outEdges.set(edge.source, [edge]);
    }
  });
  return {
    pointer,
    nodes,
    byId,
    edges,
    outEdges,
    get g() {
      // Built on first use: the validator's hot path walks outEdges directly (see docs/benchmarks.md).
      const graph = new Graph({ directed: true });
      for (const n of byId.values()) graph.setNode(n.id);
      for (const e of edges) if (e.connected && !e.intoTrigger) graph.setEdge(e.source, e.target);
      Object.defineProperty(this, 'g', { value: graph });
      return graph;
    },
    hasBrokenNodes,
    hasIdlessNodes,
    handlesOf: (node) => (node.broken ? undefined : outputHandles(node.kind, node.config)),
  };
}

/**
 * One cycle, found by a depth-first walk from the triggers: the edge that closes it is the one
 * that leads back upstream, which is usually the edge the author added last.
 */
export function findCycle(model: GraphModel): { path: string[]; edge: ModelEdge } | undefined {
  const state = new Map<string, 1 | 2>(); // 1: on the current path, 2: done
  const stack: string[] = [];
  const out = model.outEdges;
  const visit = (id: string): { path: string[]; edge: ModelEdge } | undefined => {
    state.set(id, 1);
    stack.push(id);
    for (const e of out.get(id) ?? []) {
      const s = state.get(e.target);
      if (s === 1) return { path: [...stack.slice(stack.indexOf(e.target)), e.target], edge: e };
      if (s === undefined) {
        const found = visit(e.target);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(id, 2);
    return undefined;
  };
  const order = [...model.byId.values()].sort((a, b) => (a.group === 'trigger' ? 0 : 1) - (b.group === 'trigger' ? 0 : 1));
  for (const n of order) {
    if (state.has(n.id)) continue;
    const found = visit(n.id);
    if (found) return found;
  }
  return undefined;
}

/** Ids reachable from any trigger. */
export function reachableFromTriggers(model: GraphModel): Set<string> {
  const seen = new Set<string>();
  const stack = model.nodes.filter((n) => !n.duplicate && n.group === 'trigger').map((n) => n.id);
  while (stack.length) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const e of model.outEdges.get(id) ?? []) if (!seen.has(e.target)) stack.push(e.target);
  }
  return seen;
}
