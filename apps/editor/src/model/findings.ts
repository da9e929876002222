// Maps diagnostics (JSON pointers) onto what the editor shows: sidebar items, canvas nodes and
// edges, and form fields.
import { countBySeverity, nodeKindInfo, parsePointer, tokenIndex, type Diagnostic, type Severity } from '@setup-pack/core';
import { ITEM_KINDS, type ItemKind, type PackValue, type Target } from './pack.js';
import { asArr, asObj, sameEach, str } from './json.js';

export interface Location {
  target: Target;
  /** Node id when the pointer is inside a graph node. */
  nodeId?: string;
  edgeId?: string;
  /** Rest of the pointer below the item (or node), e.g. ['config', 'tag_id']. */
  path: string[];
}

export function locate(pack: PackValue, pointer: string): Location {
  const tokens = parsePointer(pointer);
  const kind = tokens[0] as ItemKind | undefined;
  const index = tokens.length < 2 ? -1 : tokenIndex(tokens[1]!);
  if (!kind || !(ITEM_KINDS as readonly string[]).includes(kind) || index < 0) return { target: { kind: 'pack' }, path: tokens };
  const rest = tokens.slice(2);
  const loc: Location = { target: { kind, index }, path: rest };
  if (kind === 'automations' && rest[0] === 'document' && rest[1] === 'graph' && rest[3] !== undefined) {
    const graph = asObj(asObj(asObj(asArr(pack.automations)[index]).document).graph);
    const i = tokenIndex(rest[3]);
    if (rest[2] === 'nodes') {
      const id = str(asObj(asArr(graph.nodes)[i]).id);
      if (id) return { ...loc, nodeId: id, path: rest.slice(4) };
    } else if (rest[2] === 'edges') {
      const id = str(asObj(asArr(graph.edges)[i]).id);
      if (id) return { ...loc, edgeId: id, path: rest.slice(4) };
    }
  }
  return loc;
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
  /** Each target's findings (`pack` or `kind/index`), in order: what a form looks through. */
  byTarget: Map<string, Diagnostic[]>;
  /** The findings and the pack state this index was built from. */
  diagnostics: readonly Diagnostic[];
  packValue: PackValue;
}

export const itemKey = (kind: ItemKind, index: number) => `${kind}/${index}`;
export const nodeKey = (automation: number, nodeId: string) => `${automation}/${nodeId}`;
const targetKey = (t: Target) => (t.kind === 'pack' ? 'pack' : itemKey(t.kind, t.index));

/** Whether two lists of graph elements carry the same ids at every index (as locate reads them). */
const sameIds = (a: unknown, b: unknown): boolean => a === b || sameEach(asArr(a), asArr(b), (m, n) => str(asObj(m).id) === str(asObj(n).id));

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
 * again, and the canvas and sidebar, which compare it by identity, are not rebuilt.
 */
export function indexFindings(pack: PackValue, diagnostics: readonly Diagnostic[], prev?: FindingIndex): FindingIndex {
  if (prev && prev.diagnostics === diagnostics && sameGraphIds(prev.packValue, pack)) return prev;
  const idx: FindingIndex = { byItem: new Map(), byNode: new Map(), byEdge: new Map(), pack: empty(), total: countBySeverity(diagnostics), byTarget: new Map(), diagnostics, packValue: pack };
  const bump = (map: Map<string, Counts>, key: string, s: Severity) => {
    let c = map.get(key);
    if (!c) map.set(key, (c = empty()));
    c[s]++;
  };
  for (const d of diagnostics) {
    const loc = locate(pack, d.pointer);
    const key = targetKey(loc.target);
    let list = idx.byTarget.get(key);
    if (!list) idx.byTarget.set(key, (list = []));
    list.push(d);
    if (loc.target.kind === 'pack') {
      idx.pack[d.severity]++;
      continue;
    }
    bump(idx.byItem, key, d.severity);
    if (loc.nodeId) bump(idx.byNode, nodeKey(loc.target.index, loc.nodeId), d.severity);
    if (loc.edgeId) bump(idx.byEdge, nodeKey(loc.target.index, loc.edgeId), d.severity);
  }
  return idx;
}

/**
 * Where a finding sits in the forms' terms: its path below the item (or block), with a block
 * config key the catalog does not describe moved under `config/~other`, the raw JSON field that
 * edits every such key.
 */
export function formPath(loc: Location, nodeKind?: string): string[] {
  const p = loc.path;
  if (loc.nodeId && p[0] === 'config' && p[1] !== undefined && !nodeKindInfo(nodeKind ?? '')?.fieldNames.has(p[1])) return ['config', '~other', ...p.slice(1)];
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
  for (let n = path.length; n > 0; n--) {
    const prefix = `${path.slice(0, n).join('/')}/`;
    const hit = fields.find((f) => f.startsWith(prefix));
    if (hit) return hit;
  }
  return undefined;
}

/**
 * The findings a form shows on its fields: those of the target item, of the one selected block
 * when the form is a block's, and otherwise not those of the item's blocks and edges.
 */
export function formFindings(pack: PackValue, diagnostics: readonly Diagnostic[], target: Target, block?: { id: string; kind: string }): { path: string[]; diagnostic: Diagnostic }[] {
  return findingsOnForm(indexFindings(pack, diagnostics), target, block);
}

/** formFindings from an index: only the target's own findings are looked through. */
export function findingsOnForm(index: FindingIndex, target: Target, block?: { id: string; kind: string }): { path: string[]; diagnostic: Diagnostic }[] {
  const out: { path: string[]; diagnostic: Diagnostic }[] = [];
  for (const d of index.byTarget.get(targetKey(target)) ?? []) {
    const loc = locate(index.packValue, d.pointer);
    if (block ? loc.nodeId !== block.id : loc.nodeId !== undefined || loc.edgeId !== undefined) continue;
    out.push({ path: formPath(loc, block?.kind), diagnostic: d });
  }
  return out;
}
