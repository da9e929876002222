// A checked view of one automation graph, built once per validation in a single pass over its
// nodes and edges and shared by the graph rules. Nodes or edges that failed their schema are kept
// out of kind-based checks, so one root cause gives one error.
//
// Nodes and edges are numbers: a node's number is its place among the nodes that have a usable id
// (document order), an edge's its place among the edges with string ends. Per-graph facts sit in
// typed arrays and the outgoing edges of every node in one compressed list, so a pack at every
// limit (20,000 nodes and edges) costs a few hundred kilobytes instead of an object per node and
// edge: the validator runs right after JSON.parse has filled the young generation, and every
// allocation that tips it over costs a copy of the whole parsed pack (docs/benchmarks.md).
//
// The rules walk this adjacency rather than a @dagrejs/graphlib Graph, which cost more to build
// for a pack at every limit than parsing the pack. The graphlib view is still offered, built on
// first use (`g`), and the tests check the model's cycle and reachability answers against
// graphlib's algorithms.
import { Graph } from '@dagrejs/graphlib';
import { NODE_CATALOG, declaredOutcomes, type NodeKindInfo } from '../catalog/nodes.js';
import type { NodeGroup } from '../types.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

const BROKEN = 1; // the node failed its schema (e.g. unknown kind): kind-based checks skip it
const DUPLICATE = 2; // an earlier node has the same id; edges resolve to the first
const GROUPS: readonly (NodeGroup | undefined)[] = [undefined, 'trigger', 'action', 'control'];
const GROUP_CODE: Record<NodeGroup, number> = { trigger: 1, action: 2, control: 3 };
const GROUP_SHIFT = 2;

/**
 * Work arrays for walks over one graph at a time (the cycle search, the reachability stack),
 * made once per process and grown as needed rather than made per graph and per validation: for a
 * folder of small packs they were about a twentieth of each validation's garbage. Slots 0 and 1
 * are the cycle search's path and next edges, 2 the reachability stack; no two walks that use one
 * slot run at once (none calls another).
 */
const SCRATCH: Int32Array[] = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];
let STATE = new Uint8Array(64);

/** Scratch slot `slot` with room for `size` numbers; its contents are left over from the last use. */
function scratch(slot: number, size: number): Int32Array {
  let a = SCRATCH[slot];
  if (a.length < size) a = SCRATCH[slot] = new Int32Array(Math.max(size, a.length * 2));
  return a;
}

export class GraphModel {
  // Fields are declared and set once by the constructor, in one order (one hidden class): a
  // class field declaration would make V8 run an initialiser per instance that defines every
  // field before the constructor sets it again, paid per graph of every pack of a folder while
  // this code is still interpreted.
  declare readonly pointer: string;
  declare private readonly rawNodes: readonly unknown[];
  declare private readonly rawEdges: readonly unknown[];
  /** Nodes with a usable id: how many, and each one's place in the document's nodes array. */
  declare readonly nodeCount: number;
  declare private readonly nodeIndex: Int32Array;
  declare private readonly nodeBits: Uint8Array;
  /** Edges with string ends: how many, each one's place in the edges array, and their end nodes. */
  declare readonly edgeCount: number;
  declare private readonly edgeIndex: Int32Array;
  declare private readonly edgeFrom: Int32Array;
  declare private readonly edgeTo: Int32Array;
  /** Edges by source node: node n's are outList[outStart[n] .. outStart[n + 1]), document order. */
  declare readonly outStart: Int32Array;
  declare readonly outList: Int32Array;
  /** Each node's catalog entry (undefined for a kind the catalog does not know). */
  declare private readonly infos: (NodeKindInfo | undefined)[];
  /** For a duplicate node, the first node with its id (itself otherwise). */
  declare private readonly firstNode: Int32Array;
  /** Some node has no usable id (it failed the schema), so an edge naming an unknown id may mean it. */
  declare readonly hasIdlessNodes: boolean;
  /** Some node failed its schema, so whole-graph conclusions (no trigger...) are unsafe. */
  declare readonly hasBrokenNodes: boolean;
  /** Some edge names a node that does not exist. */
  declare readonly hasDanglingEdges: boolean;
  /** Some node with an id is of a trigger kind. */
  declare readonly hasTrigger: boolean;
  declare private graphlib: Graph | undefined;

  constructor(
    pointer: string,
    rawNodes: readonly unknown[],
    rawEdges: readonly unknown[],
    isBroken: ((pointer: string) => boolean) | undefined,
    ids: NodeIdTable = new NodeIdTable(),
  ) {
    this.pointer = pointer;
    this.rawNodes = rawNodes;
    this.rawEdges = rawEdges;
    // Typed arrays sized to the document's arrays, filled in one pass: no per-node objects.
    const nodeIndex = new Int32Array(rawNodes.length);
    const bits = new Uint8Array(rawNodes.length);
    const firstNode = new Int32Array(rawNodes.length);
    const infos = new Array<NodeKindInfo | undefined>(rawNodes.length);
    const base = ids.next;
    let count = 0;
    let idless = false;
    let broken = false;
    let trigger = false;
    for (let i = 0; i < rawNodes.length; i++) {
      const n = rawNodes[i];
      if (!isObj(n) || typeof n.id !== 'string' || n.id === '') {
        idless = true;
        continue;
      }
      const info = typeof n.kind === 'string' ? NODE_CATALOG.get(n.kind) : undefined;
      const group = info?.group;
      let b = group ? GROUP_CODE[group] << GROUP_SHIFT : 0;
      if (isBroken !== undefined && isBroken(`${pointer}/nodes/${i}`)) b |= BROKEN;
      const first = ids.find(n.id, base);
      if (first >= 0) b |= DUPLICATE;
      else ids.map.set(n.id, base + count);
      firstNode[count] = first >= 0 ? first : count;
      if (b & BROKEN) broken = true;
      if (group === 'trigger') trigger = true;
      infos[count] = info;
      nodeIndex[count] = i;
      bits[count] = b;
      count++;
    }
    this.nodeCount = count;
    ids.next = base + count;
    this.firstNode = firstNode;
    this.infos = infos;
    this.nodeIndex = nodeIndex;
    this.nodeBits = bits;
    const edgeIndex = new Int32Array(rawEdges.length);
    const from = new Int32Array(rawEdges.length);
    const to = new Int32Array(rawEdges.length);
    const outStart = new Int32Array(count + 1);
    let edges = 0;
    let dangling = false;
    for (let i = 0; i < rawEdges.length; i++) {
      const e = rawEdges[i];
      if (!isObj(e) || typeof e.source !== 'string' || typeof e.target !== 'string') continue;
      const f = ids.find(e.source, base);
      const t = ids.find(e.target, base);
      if (f < 0 || t < 0) dangling = true;
      if (f >= 0) outStart[f + 1]++;
      edgeIndex[edges] = i;
      from[edges] = f;
      to[edges] = t;
      edges++;
    }
    this.edgeCount = edges;
    this.edgeIndex = edgeIndex;
    this.edgeFrom = from;
    this.edgeTo = to;
    for (let n = 0; n < count; n++) outStart[n + 1] += outStart[n];
    this.outStart = outStart;
    const outList = new Int32Array(outStart[count]);
    // A copy by slice, not a subarray copied into a scratch array: that made the first pass over
    // a folder of small packs 1.05x slower (interpreted code, a typed-array view per graph).
    const fill = outStart.slice(0, count);
    for (let e = 0; e < edges; e++) if (from[e] >= 0) outList[fill[from[e]]++] = e;
    this.outList = outList;
    this.hasIdlessNodes = idless;
    this.hasBrokenNodes = idless || broken;
    this.hasDanglingEdges = dangling;
    this.hasTrigger = trigger;
    this.graphlib = undefined;
  }

  /** Node n's object as the document writes it (every field, those the format does not define too). */
  node(n: number): Obj {
    return this.rawNodes[this.nodeIndex[n]] as Obj;
  }
  /** Edge e's object as the document writes it. */
  edge(e: number): Obj {
    return this.rawEdges[this.edgeIndex[e]] as Obj;
  }
  id(n: number): string {
    return this.node(n).id as string;
  }
  kind(n: number): string {
    const k = this.node(n).kind;
    return typeof k === 'string' ? k : '';
  }
  config(n: number): unknown {
    return this.node(n).config;
  }
  /** The catalog's entry for the node's kind; undefined when the kind is unknown. */
  info(n: number): NodeKindInfo | undefined {
    return this.infos[n];
  }
  group(n: number): NodeGroup | undefined {
    return GROUPS[this.nodeBits[n] >> GROUP_SHIFT];
  }
  isBroken(n: number): boolean {
    return (this.nodeBits[n] & BROKEN) !== 0;
  }
  isDuplicate(n: number): boolean {
    return (this.nodeBits[n] & DUPLICATE) !== 0;
  }
  /** The first node with n's id: n itself unless n is a duplicate. */
  first(n: number): number {
    return this.firstNode[n];
  }
  nodePointer(n: number): string {
    return `${this.pointer}/nodes/${this.nodeIndex[n]}`;
  }
  /**
   * Output handles of the node: the catalog's, or for control.ai_branch the outcomes its config
   * declares. Undefined when they cannot be known (broken node, no readable outcomes).
   */
  handles(n: number): readonly string[] | undefined {
    if (this.isBroken(n)) return undefined;
    const info = this.infos[n];
    if (!info) return undefined;
    return info.outputs === 'dynamic' ? declaredOutcomes(this.config(n)) : info.outputs;
  }

  edgeId(e: number): string {
    const id = this.edge(e).id;
    return typeof id === 'string' ? id : '';
  }
  /** Whether the edge has an id at all (edgeId gives '' for one that has none). */
  hasStringId(e: number): boolean {
    return typeof this.edge(e).id === 'string';
  }
  source(e: number): string {
    return this.edge(e).source as string;
  }
  target(e: number): string {
    return this.edge(e).target as string;
  }
  /** The edge's handle; "next" when it names none. */
  handle(e: number): string {
    const h = this.edge(e).handle;
    return typeof h === 'string' ? h : 'next';
  }
  explicitHandle(e: number): boolean {
    return typeof this.edge(e).handle === 'string';
  }
  /** The node the edge leaves (the first with its id), or -1 when no node has it. */
  from(e: number): number {
    return this.edgeFrom[e];
  }
  /** The node the edge enters, or -1 when no node has it. */
  to(e: number): number {
    return this.edgeTo[e];
  }
  edgePointer(e: number): string {
    return `${this.pointer}/edges/${this.edgeIndex[e]}`;
  }
  /** Enters a (schema-valid) trigger: an error of its own, kept out of the flow so it does not also show as a cycle. */
  intoTrigger(e: number): boolean {
    const t = this.edgeTo[e];
    return t >= 0 && this.group(t) === 'trigger' && !this.isBroken(t);
  }
  /** Takes part in the flow: both ends exist and it does not enter a trigger. */
  flows(e: number): boolean {
    return this.edgeFrom[e] >= 0 && this.edgeTo[e] >= 0 && !this.intoTrigger(e);
  }

  /** graphlib digraph of the flowing edges (parallel edges collapse), built on first use. */
  get g(): Graph {
    if (!this.graphlib) {
      const g = new Graph({ directed: true });
      for (let n = 0; n < this.nodeCount; n++) if (!this.isDuplicate(n)) g.setNode(this.id(n));
      for (let e = 0; e < this.edgeCount; e++) if (this.flows(e)) g.setEdge(this.source(e), this.target(e));
      this.graphlib = g;
    }
    return this.graphlib;
  }
}

/**
 * Node ids to node numbers, for building the models of many graphs with one map: graph models
 * built with the same table number their nodes from `next` on (a graph's node n is stored as
 * base + n), so an entry below a graph's base belongs to an earlier graph and does not count.
 * Packs repeat ids like "n1" from graph to graph, so the map stays small.
 */
export class NodeIdTable {
  readonly map = new Map<string, number>();
  next = 0;
  /** The node of this id in the graph numbered from `base`, or -1. */
  find(id: string, base: number): number {
    const v = this.map.get(id);
    return v !== undefined && v >= base ? v - base : -1;
  }
}

// One model kept for the life of the process. V8 gives instances their hidden class through
// transitions that are only weakly held: when a GC finds no model alive (between two validations),
// the hidden class goes and the next model gets a new one, and every function optimised for the
// old one is thrown away and compiled again. This instance keeps the hidden class alive. It is
// exported so that it lives in the module's scope: an unexported, unused constant would only live
// while the module is evaluated.
export const SHAPE_KEEPER = { model: new GraphModel('', [], [], undefined), ids: new NodeIdTable() };

/**
 * Builds the model of `graph` (found at `pointer`); undefined when it has no nodes array (the
 * schema reports that). `isBroken`, when given, says whether a schema error sits at or below a
 * pointer; leave it out when the pack had no schema errors.
 */
export function buildGraphModel(
  graph: unknown,
  pointer: string,
  isBroken?: (p: string) => boolean,
  ids?: NodeIdTable,
): GraphModel | undefined {
  if (!isObj(graph) || !Array.isArray(graph.nodes)) return undefined;
  return new GraphModel(pointer, graph.nodes, Array.isArray(graph.edges) ? graph.edges : [], isBroken, ids);
}

/**
 * One cycle, found by a depth-first walk (iterative, so any depth is safe) starting at the
 * triggers: the edge that closes it is the one that leads back upstream, which is usually the
 * edge the author added last. `path` lists node ids, first and last the same.
 */
export function findCycle(model: GraphModel): { path: string[]; edge: number } | undefined {
  const count = model.nodeCount;
  if (STATE.length < count) STATE = new Uint8Array(Math.max(count, STATE.length * 2));
  const state = STATE; // 0 new, 1 on the current path, 2 done
  state.fill(0, 0, count);
  const path = scratch(0, count); // the nodes on the current path
  const next = scratch(1, count); // per path entry: position in outList of the next edge to follow
  const { outStart, outList } = model;
  for (let pass = 0; pass < 2; pass++) {
    for (let start = 0; start < count; start++) {
      // Triggers first, then whatever no trigger reaches; duplicates are not nodes edges can reach.
      if (state[start] !== 0 || model.isDuplicate(start) || (model.group(start) === 'trigger') !== (pass === 0)) continue;
      let depth = 0;
      path[0] = start;
      next[0] = outStart[start];
      state[start] = 1;
      while (depth >= 0) {
        const node = path[depth];
        if (next[depth] === outStart[node + 1]) {
          state[node] = 2;
          depth--;
          continue;
        }
        const e = outList[next[depth]++];
        if (!model.flows(e)) continue;
        const to = model.to(e);
        if (state[to] === 1) {
          const ids: string[] = [];
          let k = depth;
          while (path[k] !== to) k--;
          for (; k <= depth; k++) ids.push(model.id(path[k]));
          ids.push(model.id(to));
          return { path: ids, edge: e };
        }
        if (state[to] === 0) {
          state[to] = 1;
          path[++depth] = to;
          next[depth] = outStart[to];
        }
      }
    }
  }
  return undefined;
}

/** Which nodes can be reached from a trigger, by node number (1 = reached). */
export function reachableFromTriggers(model: GraphModel): Uint8Array {
  const count = model.nodeCount;
  const seen = new Uint8Array(count);
  const stack = scratch(2, count);
  let top = 0;
  for (let n = 0; n < count; n++) {
    if (!model.isDuplicate(n) && model.group(n) === 'trigger') {
      seen[n] = 1;
      stack[top++] = n;
    }
  }
  const { outStart, outList } = model;
  while (top > 0) {
    const n = stack[--top];
    for (let k = outStart[n]; k < outStart[n + 1]; k++) {
      const e = outList[k];
      if (!model.flows(e)) continue;
      const t = model.to(e);
      if (seen[t] === 0) {
        seen[t] = 1;
        stack[top++] = t;
      }
    }
  }
  return seen;
}
