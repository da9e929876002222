// Maps diagnostics (JSON pointers) onto what the editor shows: sidebar items, canvas nodes and
// edges, and form fields.
import { nodeKindInfo, parsePointer, tokenIndex, toPointer, type Diagnostic, type Severity } from '@setup-pack/core';
import { ITEM_KINDS, type ItemKind, type PackValue, type Target } from './pack.js';
import { asArr, asObj, sameEach, str } from './json.js';
import { changedRun, worthUpdating } from './findingsDelta.js';
import { canvasIds } from './graph.js';

export interface Location {
  target: Target;
  /** The node's canvas id (graph.ts canvasIds: its id, unless an earlier node has it) when the pointer is inside a graph node. */
  nodeId?: string;
  /** The edge's canvas id, likewise. */
  edgeId?: string;
  /** Rest of the pointer below the item (or node), e.g. ['config', 'tag_id']. */
  path: string[];
}

export function locate(pack: PackValue, pointer: string): Location {
  const tokens = parsePointer(pointer);
  const kind = tokens[0] as ItemKind | undefined;
  const index = tokens.length < 2 ? -1 : tokenIndex(tokens[1]);
  if (!kind || !(ITEM_KINDS as readonly string[]).includes(kind) || index < 0) return { target: { kind: 'pack' }, path: tokens };
  const rest = tokens.slice(2);
  const loc: Location = { target: { kind, index }, path: rest };
  if (kind === 'automations' && rest[0] === 'document' && rest[1] === 'graph' && rest[3] !== undefined) {
    const graph = asObj(asObj(asObj(asArr(pack.automations)[index]).document).graph);
    const i = tokenIndex(rest[3]);
    if (rest[2] === 'nodes') {
      const id = str(asObj(asArr(graph.nodes)[i]).id);
      if (id) return { ...loc, nodeId: canvasIds(graph.nodes)[i], path: rest.slice(4) };
    } else if (rest[2] === 'edges') {
      const id = str(asObj(asArr(graph.edges)[i]).id);
      if (id) return { ...loc, edgeId: canvasIds(graph.edges)[i], path: rest.slice(4) };
    }
  }
  return loc;
}

/**
 * Where a form's field paths start in the pack (locate's inverse): the pointer of the item, of
 * the block with canvas id `blockId` in an automation (graph.ts canvasIds), or '' for the pack's
 * own fields. A field's own note names the field by it, as a finding there would.
 */
export function formPointer(pack: PackValue, target: Target, blockId?: string): string {
  if (target.kind === 'pack') return '';
  const item = toPointer([target.kind, target.index]);
  if (blockId === undefined || target.kind !== 'automations') return item;
  const graph = asObj(asObj(asObj(asArr(pack.automations)[target.index]).document).graph);
  const i = canvasIds(graph.nodes).indexOf(blockId);
  return i < 0 ? item : `${item}/document/graph/nodes/${i}`;
}

export type Counts = Record<Severity, number>;
const empty = (): Counts => ({ error: 0, warning: 0, info: 0 });

export interface FindingIndex {
  /** `kind/index` → counts. */
  byItem: Map<string, Counts>;
  /** `index/nodeId` of an automation → counts. */
  byNode: Map<string, Counts>;
  byEdge: Map<string, Counts>;
  /** Findings about the pack's own fields. */
  pack: Counts;
  total: Counts;
  /** Each target's findings (`pack` or `kind/index`), in order: what a form looks through (`targetFindings`). */
  byTarget: Map<string, Diagnostic[]>;
  /** Targets whose list an update left to be made when first asked for (`targetFindings`). */
  pending: Set<string>;
  /** The findings and the pack state this index was built from. */
  diagnostics: readonly Diagnostic[];
  packValue: PackValue;
  /**
   * Where each finding sits, by finding object: kept from the index before while the graph ids
   * stay the same, so the findings a validation kept (findingsDelta.ts: the page keeps its own
   * objects for them) are not placed again.
   */
  placed: WeakMap<Diagnostic, Placed>;
  /** Each finding's place, by its index in `diagnostics`. */
  placedAt: Placed[];
  /** How many findings this index had to place (the others were placed before). */
  newlyPlaced: number;
}

/** A finding's place and the keys it counts under. */
interface Placed {
  loc: Location;
  target: string;
  node?: string;
  edge?: string;
}

export const itemKey = (kind: ItemKind, index: number) => `${kind}/${index}`;
export const nodeKey = (automation: number, nodeId: string) => `${automation}/${nodeId}`;
const targetKey = (t: Target) => (t.kind === 'pack' ? 'pack' : itemKey(t.kind, t.index));

/** Whether two lists of graph elements carry the same ids at every index (as locate reads them). */
const sameIds = (a: unknown, b: unknown): boolean =>
  a === b || sameEach(asArr(a), asArr(b), (m, n) => str(asObj(m).id) === str(asObj(n).id));

/**
 * Whether `locate` places every pointer in `a` as in `b`: the only part of a pack it reads is the
 * id of each automation's nodes and edges by index. Typing in a field changes none of them; this
 * looks only at the automations the edit replaced.
 */
export function sameGraphIds(a: PackValue, b: PackValue): boolean {
  if (a === b) return true;
  return sameEach(asArr(a.automations), asArr(b.automations), (x, y) => {
    const g = asObj(asObj(asObj(x).document).graph);
    const h = asObj(asObj(asObj(y).document).graph);
    return sameIds(g.nodes, h.nodes) && sameIds(g.edges, h.edges);
  });
}

/**
 * Counts per item, block and edge, and each item's findings. `prev` itself when it was built
 * from the same findings (the same array: the worker said a validation found the same things)
 * and a pack with the same graph ids, so typing beside 50,000 findings does not place them all
 * again, and the canvas and sidebar, which compare it by identity, are not rebuilt. When the
 * findings changed in a run in the middle (findingsDelta.ts: the page keeps its own objects for
 * the rest), only the findings that left and came are counted, from `prev`'s counts.
 */
export function indexFindings(pack: PackValue, diagnostics: readonly Diagnostic[], prev?: FindingIndex): FindingIndex {
  const sameGraph = prev !== undefined && sameGraphIds(prev.packValue, pack);
  if (sameGraph && prev.diagnostics === diagnostics) return prev;
  if (sameGraph) {
    const updated = updateIndex(prev, pack, diagnostics);
    if (updated) return updated;
  }
  const idx: FindingIndex = {
    byItem: new Map(),
    byNode: new Map(),
    byEdge: new Map(),
    pack: empty(),
    total: empty(),
    byTarget: new Map(),
    pending: new Set(),
    diagnostics,
    packValue: pack,
    placed: sameGraph ? prev.placed : new WeakMap(),
    placedAt: [],
    newlyPlaced: 0,
  };
  const counter = countInto(idx, new Set());
  for (const d of diagnostics) {
    const p = counter(d, 1);
    idx.placedAt.push(p);
    let list = idx.byTarget.get(p.target);
    if (!list) idx.byTarget.set(p.target, (list = []));
    list.push(d);
  }
  return idx;
}

/**
 * `prev` moved on to `diagnostics` when they share a start and an end by identity and differ in
 * at most half of them: copies of its maps with the counts of the findings that left taken off
 * and those that came added (a count shared with `prev` is copied before it changes, so `prev`
 * stays as it was, and every block whose counts did not change keeps its count object); the
 * finding lists of the targets they touch are made again when first asked for (`targetFindings`).
 */
function updateIndex(prev: FindingIndex, pack: PackValue, diagnostics: readonly Diagnostic[]): FindingIndex | undefined {
  const a = prev.diagnostics;
  const b = diagnostics;
  const run = changedRun(a, b);
  if (!worthUpdating(run, b.length)) return undefined;
  const { head, tail, gone, came } = run;
  const placedAt = prev.placedAt.slice(0, head);
  const idx: FindingIndex = {
    byItem: new Map(prev.byItem),
    byNode: new Map(prev.byNode),
    byEdge: new Map(prev.byEdge),
    pack: { ...prev.pack },
    total: { ...prev.total },
    byTarget: new Map(prev.byTarget),
    pending: new Set(prev.pending),
    diagnostics,
    packValue: pack,
    placed: prev.placed,
    placedAt,
    newlyPlaced: 0,
  };
  const counter = countInto(idx, new Set([idx.pack, idx.total]));
  for (let i = head; i < head + gone; i++) stale(idx, counter(a[i], -1).target);
  for (let i = head; i < head + came; i++) {
    const p = counter(b[i], 1);
    placedAt.push(p);
    stale(idx, p.target);
  }
  for (let i = a.length - tail; i < a.length; i++) placedAt.push(prev.placedAt[i]);
  return idx;
}

function stale(idx: FindingIndex, target: string) {
  idx.byTarget.delete(target);
  idx.pending.add(target);
}

/**
 * Counts one finding into (by 1) or out of (by -1) an index, placing it if it was not placed
 * before. `own` holds the count objects this index may change; others are copied first. A count
 * that falls to nothing is removed, as a fresh index would not have it.
 */
function countInto(idx: FindingIndex, own: Set<Counts>) {
  const add = (map: Map<string, Counts>, key: string, s: Severity, by: number) => {
    let c = map.get(key);
    if (!c || !own.has(c)) {
      map.set(key, (c = c ? { ...c } : empty()));
      own.add(c);
    }
    c[s] += by;
    if (c.error === 0 && c.warning === 0 && c.info === 0) map.delete(key);
  };
  return (d: Diagnostic, by: number): Placed => {
    let p = idx.placed.get(d);
    if (!p) {
      idx.placed.set(d, (p = place(idx.packValue, d)));
      idx.newlyPlaced++;
    }
    idx.total[d.severity] += by;
    if (p.loc.target.kind === 'pack') idx.pack[d.severity] += by;
    else {
      add(idx.byItem, p.target, d.severity, by);
      if (p.node) add(idx.byNode, p.node, d.severity, by);
      if (p.edge) add(idx.byEdge, p.edge, d.severity, by);
    }
    return p;
  };
}

/** A target's findings (`pack` or `kind/index`), in order: listed once, when first asked for, after an update touched them. */
export function targetFindings(index: FindingIndex, target: string): readonly Diagnostic[] {
  let list = index.byTarget.get(target);
  if (!list && index.pending.has(target)) {
    list = [];
    for (let i = 0; i < index.placedAt.length; i++) if (index.placedAt[i].target === target) list.push(index.diagnostics[i]);
    if (list.length) index.byTarget.set(target, list);
    index.pending.delete(target);
  }
  return list ?? [];
}

function place(pack: PackValue, d: Diagnostic): Placed {
  const loc = locate(pack, d.pointer);
  const p: Placed = { loc, target: targetKey(loc.target) };
  if (loc.target.kind !== 'pack') {
    if (loc.nodeId) p.node = nodeKey(loc.target.index, loc.nodeId);
    if (loc.edgeId) p.edge = nodeKey(loc.target.index, loc.edgeId);
  }
  return p;
}

/**
 * Where a finding sits in the forms' terms: its path below the item (or block), with a block
 * config key the catalog does not describe moved under `config/~other`, the raw JSON field that
 * edits every such key.
 */
export function formPath(loc: Location, nodeKind?: string, missing?: string): string[] {
  // A finding about an absent field (core's `missing`) points at the object lacking it: its
  // place on the form is that field's input.
  const p = missing === undefined ? loc.path : [...loc.path, missing];
  if (loc.nodeId && p[0] === 'config' && p[1] !== undefined && !nodeKindInfo(nodeKind ?? '')?.fieldNames.has(p[1]))
    return ['config', '~other', ...p.slice(1)];
  return p;
}

/**
 * The field a finding belongs to, of the fields a form shows (their `data-path`s, in document
 * order): the longest field path its path starts with, else the first field under its path (a
 * config missing a required field: its first field). One mapping, for focusing a clicked
 * finding's field and for showing the finding on that field. Nothing for a finding about the
 * whole item or block.
 */
export function fieldOf(path: readonly string[], fields: readonly string[]): string | undefined {
  if (path.length === 0) return undefined;
  const known = new Set(fields);
  for (let n = path.length; n > 0; n--) {
    const p = path.slice(0, n).join('/');
    if (known.has(p)) return p;
  }
  // A finding about a container the form shows no field for (a missing required field of a
  // config): the first field inside it. Not inside an ancestor: a finding about an automation's
  // graph is not about its name, though both are under document/.
  const prefix = `${path.join('/')}/`;
  return fields.find((f) => f.startsWith(prefix));
}

/**
 * The findings a form shows on its fields: those of the target item, of the one selected block
 * when the form is a block's, and otherwise not those of the item's blocks and edges. Read from
 * the index: only the target's own findings are looked through.
 */
export function findingsOnForm(
  index: FindingIndex,
  target: Target,
  block?: { id: string; kind: string },
): { path: string[]; diagnostic: Diagnostic }[] {
  const out: { path: string[]; diagnostic: Diagnostic }[] = [];
  for (const d of targetFindings(index, targetKey(target))) {
    const loc = index.placed.get(d)?.loc ?? locate(index.packValue, d.pointer);
    if (block ? loc.nodeId !== block.id : loc.nodeId !== undefined || loc.edgeId !== undefined) continue;
    out.push({ path: formPath(loc, block?.kind, d.missing), diagnostic: d });
  }
  return out;
}
