// Graph editing on an automation document: add, connect (with the spec's graph rules), delete,
// duplicate, copy/paste, move. Pure functions over plain JSON, so they are unit-tested without
// a browser; the canvas only calls them.
import { buildGraphModel, checkConnection, nodeKindInfo, outputHandles } from '@setup-pack/core';
import { asArr, asObj, isObj, objs, setKey, str, type Obj } from './json.js';
import { notKeptRefusal, textNotKept } from './fileText.js';

export interface XY {
  x: number;
  y: number;
}
export interface EdgeSpec {
  source: string;
  handle: string;
  target: string;
}
export interface Clipboard {
  nodes: Obj[];
  edges: Obj[];
}

export const graphOf = (doc: Obj): Obj => asObj(doc.graph);
export const nodesOf = (doc: Obj): Obj[] => objs(graphOf(doc).nodes);
export const edgesOf = (doc: Obj): Obj[] => objs(graphOf(doc).edges);
export const handleOf = (edge: Obj): string => str(edge.handle, 'next') || 'next';

const canvasIdCache = new WeakMap<unknown[], string[]>();

/**
 * Each entry's id on the canvas (React Flow's id), by its index in a graph's `nodes` or `edges`
 * array: its own id, unless an earlier entry has it (graph/duplicate-node-id,
 * graph/duplicate-edge-id) or it has none; then `id#index`, made unique. The pack keeps its ids;
 * React Flow, and every edit the canvas and the inspector make, tell the entries apart by these.
 * An edge names the block it leaves or enters by id, which is the first block with that id, as
 * core reads the graph: that block's canvas id is the id itself. Kept per array.
 */
export function canvasIds(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  let ids = canvasIdCache.get(list);
  if (ids) return ids;
  const raw = list.map((x) => str(asObj(x).id));
  const taken = new Set(raw);
  const seen = new Set<string>();
  ids = raw.map((id, i) => {
    if (id && !seen.has(id)) {
      seen.add(id);
      return id;
    }
    let c = `${id}#${i}`;
    while (taken.has(c)) c += '#';
    taken.add(c);
    return c;
  });
  canvasIdCache.set(list, ids);
  return ids;
}

/**
 * The block (its canvas id in `after`) that takes the place of blocks deleted from `before`: the
 * first one left after the first deleted, else the last one left; none when no block is left.
 * Where the keyboard's focus goes after a delete, as a removed row passes it to the next row.
 */
export function blockAfterDelete(before: Obj, after: Obj, deleted: Iterable<string>): string | undefined {
  const gone = new Set(deleted);
  const first = canvasIds(graphOf(before).nodes).findIndex((id) => gone.has(id));
  const left = canvasIds(graphOf(after).nodes);
  // The blocks before the first deleted one are all left, in order: the one at its index took its place.
  return first < 0 || left.length === 0 ? undefined : left[Math.min(first, left.length - 1)];
}

/** The block with canvas id `id` (see canvasIds). */
export function nodeAt(doc: Obj, id: string): Obj | undefined {
  const nodes = graphOf(doc).nodes;
  const i = canvasIds(nodes).indexOf(id);
  const n = i < 0 ? undefined : asArr(nodes)[i];
  return isObj(n) ? n : undefined;
}

/** Whether `node`, of canvas id `cid`, is the block its id names (the first with it): edges naming the id are its edges. */
const ownsId = (node: unknown, cid: string | undefined) => !!cid && str(asObj(node).id) === cid;

/** Replaces nodes and/or edges, keeping every other field of the graph and document. */
export function withGraph(doc: Obj, nodes: unknown[] | undefined, edges: unknown[] | undefined): Obj {
  let graph = graphOf(doc);
  if (nodes) graph = setKey(graph, 'nodes', nodes);
  if (edges) graph = { ...graph, edges };
  return setKey(doc, 'graph', graph);
}

/** The output handles a node offers on the canvas (ai_branch without outcomes offers none). */
export function handlesOfNode(node: Obj): string[] {
  return outputHandles(str(node.kind), node.config) ?? (nodeKindInfo(str(node.kind)) ? [] : ['next']);
}

export const isTrigger = (node: Obj | undefined): boolean => !!node && nodeKindInfo(str(node.kind))?.group === 'trigger';

function uniqueId(used: Set<string>, base: string): string {
  const clean = base.replace(/[^A-Za-z0-9_-]+/g, '_') || 'node';
  if (!used.has(clean)) return clean;
  for (let n = 2; ; n++) if (!used.has(`${clean}_${n}`)) return `${clean}_${n}`;
}

const nodeIds = (doc: Obj) => new Set(nodesOf(doc).map((n) => str(n.id)));
const edgeIds = (doc: Obj) => new Set(edgesOf(doc).map((e) => str(e.id)));

export type ConnectCheck = { ok: true } | { ok: false; reason: string };

/** The graph rules a new edge must obey: handle valid for the source, nothing into a trigger, no cycle, no duplicate. */
/** Whether the edge may be added, and why not: core's checkConnection, the graph rules' own answer. */
export function canConnect(doc: Obj, spec: EdgeSpec): ConnectCheck {
  const model = buildGraphModel(graphOf(doc), '');
  if (!model) return { ok: false, reason: 'This automation has no graph.' };
  const r = checkConnection(model, spec);
  return r.ok ? { ok: true } : { ok: false, reason: r.reason };
}

/** Adds an edge when the rules allow it. The handle is written unless it is the default `next`. */
export function connect(doc: Obj, spec: EdgeSpec): { doc: Obj; edgeId?: string; error?: string } {
  const check = canConnect(doc, spec);
  if (!check.ok) return { doc, error: check.reason };
  const id = uniqueId(edgeIds(doc), `e_${spec.source}_${spec.handle === 'next' ? '' : spec.handle + '_'}${spec.target}`);
  const edge: Obj = { id, source: spec.source, target: spec.target };
  if (spec.handle !== 'next') edge.handle = spec.handle;
  return { doc: withGraph(doc, undefined, [...edgesOf(doc), edge]), edgeId: id };
}

/** Adds a block of `kind` at `position`; its config starts empty (the form fills it in). */
export function addNode(doc: Obj, kind: string, position: XY): { doc: Obj; id: string } {
  const id = uniqueId(nodeIds(doc), kind.split('.')[1] ?? kind);
  const node: Obj = { id, kind, config: {}, position: { x: Math.round(position.x), y: Math.round(position.y) } };
  return { doc: withGraph(doc, [...asArr(graphOf(doc).nodes), node], undefined), id };
}

/** Adds a block and connects `from` to it in one step (a connection dropped on the canvas). */
export function addConnectedNode(
  doc: Obj,
  kind: string,
  position: XY,
  from: { source: string; handle: string },
): { doc: Obj; id: string; error?: string } {
  const added = addNode(doc, kind, position);
  const joined = connect(added.doc, { source: from.source, handle: from.handle, target: added.id });
  return { doc: joined.doc, id: added.id, error: joined.error };
}

/** Removes nodes (and every edge touching them) and edges, by canvas id (canvasIds): a block or edge sharing its id with another is removed alone. */
export function deleteElements(doc: Obj, nodeIdsToDelete: Iterable<string>, edgeIdsToDelete: Iterable<string> = []): Obj {
  const ns = new Set(nodeIdsToDelete);
  const es = new Set(edgeIdsToDelete);
  if (ns.size === 0 && es.size === 0) return doc;
  const all = asArr(graphOf(doc).nodes);
  const nids = canvasIds(all);
  // The ids edges name a deleted block by: only a block's own id when it is the first with it.
  const cut = new Set<string>();
  all.forEach((n, i) => ns.has(nids[i]) && ownsId(n, nids[i]) && cut.add(nids[i]));
  const nodes = all.filter((_, i) => !ns.has(nids[i]));
  const eids = canvasIds(graphOf(doc).edges);
  const edges = asArr(graphOf(doc).edges).filter((e, i) => {
    const o = asObj(e);
    return !es.has(eids[i]) && !cut.has(str(o.source)) && !cut.has(str(o.target));
  });
  const hadEdges = Array.isArray(graphOf(doc).edges);
  return withGraph(doc, nodes, hadEdges || edges.length ? edges : undefined);
}

/**
 * Deletes one block that stands in a straight chain (one edge in, one edge out) and joins its
 * neighbours with the edge in's output, when the graph rules allow it: deleting a middle block no
 * longer leaves the blocks around it apart. Otherwise (a branch, a join, an edge the rules refuse)
 * it is a plain delete. `joined`: the neighbours it joined, for the author to be told.
 */
export function deleteJoining(doc: Obj, nodeId: string): { doc: Obj; joined?: [string, string] } {
  const edges = edgesOf(doc);
  const into = edges.filter((e) => str(e.target) === nodeId);
  const out = edges.filter((e) => str(e.source) === nodeId);
  const after = deleteElements(doc, [nodeId]);
  if (into.length !== 1 || out.length !== 1) return { doc: after };
  const source = str(into[0].source);
  const target = str(out[0].target);
  if (source === nodeId || target === nodeId || source === target) return { doc: after };
  const joined = connect(after, { source, target, handle: handleOf(into[0]) });
  return joined.error ? { doc: after } : { doc: joined.doc, joined: [source, target] };
}

/** The selected nodes (by canvas id) and the edges between them, deep-copied. */
export function copyNodes(doc: Obj, ids: Iterable<string>): Clipboard {
  const set = new Set(ids);
  const nids = canvasIds(graphOf(doc).nodes);
  return structuredClone({
    nodes: asArr(graphOf(doc).nodes).filter((n, i) => isObj(n) && set.has(nids[i])) as Obj[],
    edges: edgesOf(doc).filter((e) => set.has(str(e.source)) && set.has(str(e.target))),
  });
}

/** Pastes a clipboard (from this or another automation): ids are renamed where taken, positions offset. */
export function pasteNodes(doc: Obj, clip: Clipboard, offset: XY = { x: 40, y: 40 }): { doc: Obj; ids: string[] } {
  const usedNodes = nodeIds(doc);
  const usedEdges = edgeIds(doc);
  const rename = new Map<string, string>();
  const nodes = clip.nodes.map((n) => {
    const id = uniqueId(usedNodes, str(n.id) || 'node');
    usedNodes.add(id);
    rename.set(str(n.id), id);
    const pos = asObj(n.position);
    const copy: Obj = structuredClone(n);
    copy.id = id;
    if (typeof pos.x === 'number' && typeof pos.y === 'number') copy.position = { x: pos.x + offset.x, y: pos.y + offset.y };
    return copy;
  });
  const edges = clip.edges.map((e) => {
    const copy: Obj = structuredClone(e);
    copy.source = rename.get(str(e.source)) ?? str(e.source);
    copy.target = rename.get(str(e.target)) ?? str(e.target);
    const id = uniqueId(usedEdges, str(e.id) || 'e');
    usedEdges.add(id);
    copy.id = id;
    return copy;
  });
  return {
    doc: withGraph(
      doc,
      [...asArr(graphOf(doc).nodes), ...nodes],
      edges.length || Array.isArray(graphOf(doc).edges) ? [...asArr(graphOf(doc).edges), ...edges] : undefined,
    ),
    ids: nodes.map((n) => str(n.id)),
  };
}

/** What copied blocks look like on the system clipboard (text/plain). */
export const CLIPBOARD_FORMAT = 'service.setup-pack-blocks';

/** Copied blocks as clipboard text: JSON a person can read, and another editor tab can paste. */
export function clipboardText(clip: Clipboard): string {
  return JSON.stringify({ format: CLIPBOARD_FORMAT, version: 1, nodes: clip.nodes, edges: clip.edges }, null, 2);
}

/**
 * Blocks from clipboard text: our own format, or a whole automation document (its graph).
 * Undefined for anything else, so ordinary text is never pasted as blocks. Only nodes with a
 * string id and kind are taken, and only edges between them. Refused, in core's words, when the
 * blocks say what the editor would not keep as written (textNotKept: `1e-400`, which reads as 0,
 * `1e400`, which would be null, a property written twice): pasting them would change them without a word, and refusing loses
 * nothing, as the text is still where it was copied from, to be written as meant.
 */
export function readClipboardText(text: string): Clipboard | { refused: string } | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObj(v)) return undefined;
  const graph = v.format === CLIPBOARD_FORMAT ? v : v.format === 'service.automation-template' && isObj(v.graph) ? v.graph : undefined;
  if (!graph) return undefined;
  const nodes = objs(graph.nodes).filter((n) => typeof n.id === 'string' && n.id !== '' && typeof n.kind === 'string');
  if (nodes.length === 0) return undefined;
  // Only what is pasted counts: the blocks and edges, not an automation document's own fields.
  const pasted = (v === graph ? ['/nodes', '/edges'] : ['/graph/nodes', '/graph/edges']).map((p) => [p, `${p}/`]);
  const lost = textNotKept(text).findings.filter((d) => pasted.some(([p, under]) => d.pointer === p || d.pointer.startsWith(under)));
  const refused = notKeptRefusal(lost, 'the copied text');
  if (refused) return { refused: `Not pasted: ${refused}` };
  const ids = new Set(nodes.map((n) => n.id));
  const edges = objs(graph.edges).filter((e) => ids.has(e.source) && ids.has(e.target));
  return { nodes, edges };
}

export function duplicateNodes(doc: Obj, ids: Iterable<string>): { doc: Obj; ids: string[] } {
  return pasteNodes(doc, copyNodes(doc, ids));
}

/** Moves nodes (by canvas id) to new positions (rounded to whole pixels); returns `doc` itself when nothing moved. */
export function moveNodes(doc: Obj, positions: ReadonlyMap<string, XY>): Obj {
  let changed = false;
  const nids = canvasIds(graphOf(doc).nodes);
  const nodes = asArr(graphOf(doc).nodes).map((n, i) => {
    const o = asObj(n);
    const p = positions.get(nids[i]);
    if (!p) return n;
    const x = Math.round(p.x);
    const y = Math.round(p.y);
    const old = asObj(o.position);
    if (old.x === x && old.y === y) return n;
    changed = true;
    return setKey(o, 'position', { ...old, x, y });
  });
  return changed ? withGraph(doc, nodes, undefined) : doc;
}

/** Replaces the node with canvas id `id` (only that one, when another shares its id). */
export function updateNode(doc: Obj, id: string, fn: (node: Obj) => Obj): Obj {
  let changed = false;
  const nids = canvasIds(graphOf(doc).nodes);
  const nodes = asArr(graphOf(doc).nodes).map((n, i) => {
    const o = asObj(n);
    if (nids[i] !== id || !isObj(n)) return n;
    const next = fn(o);
    if (next !== o) changed = true;
    return next;
  });
  return changed ? withGraph(doc, nodes, undefined) : doc;
}

/**
 * Renames a node (by canvas id), rewriting the edges that touch it: those naming its id, when it
 * is the block the id names (not a later block repeating it). Fails on an empty or taken id.
 */
export function renameNode(doc: Obj, fromId: string, to: string): { doc: Obj; error?: string } {
  if (!to) return { doc, error: 'An id needs at least one character.' };
  const all = asArr(graphOf(doc).nodes);
  const index = canvasIds(all).indexOf(fromId);
  if (index < 0) return { doc, error: `No block "${fromId}".` };
  const from = str(asObj(all[index]).id);
  if (from === to) return { doc };
  if (nodeIds(doc).has(to)) return { doc, error: `Another block already has the id "${to}".` };
  const nodes = all.map((n, i) => (i === index ? { ...asObj(n), id: to } : n));
  const edges =
    ownsId(all[index], fromId) && Array.isArray(graphOf(doc).edges)
      ? edgesOf(doc).map((e) =>
          e.source === from || e.target === from
            ? { ...e, source: e.source === from ? to : e.source, target: e.target === from ? to : e.target }
            : e,
        )
      : undefined;
  return { doc: withGraph(doc, nodes, edges) };
}

/** Moves an edge to new ends (dragging an edge's end to another block), under the same rules; the edge keeps its id. */
/** Whether edge `edgeId` may be moved to `spec`: the rules of a new connection, judged without the edge itself. */
export function canReconnect(doc: Obj, edgeId: string, spec: EdgeSpec): ConnectCheck {
  const edges = asArr(graphOf(doc).edges);
  const index = canvasIds(edges).indexOf(edgeId);
  if (index < 0) return { ok: false, reason: `No edge "${edgeId}".` };
  return canConnect(
    withGraph(
      doc,
      undefined,
      edges.filter((_, i) => i !== index),
    ),
    spec,
  );
}

export function reconnect(doc: Obj, edgeId: string, spec: EdgeSpec): { doc: Obj; error?: string } {
  const edges = asArr(graphOf(doc).edges);
  const index = canvasIds(edges).indexOf(edgeId);
  const check = canReconnect(doc, edgeId, spec);
  if (!check.ok) return { doc, error: check.reason };
  let edge: Obj = { ...asObj(edges[index]), source: spec.source, target: spec.target };
  edge = setKey(edge, 'handle', spec.handle === 'next' && !('handle' in asObj(edges[index])) ? undefined : spec.handle);
  return {
    doc: withGraph(
      doc,
      undefined,
      edges.map((e, i) => (i === index ? edge : e)),
    ),
  };
}
