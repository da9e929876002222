// Maps diagnostics (JSON pointers) onto what the editor shows: sidebar items, canvas nodes and
// edges, and form fields.
import { countBySeverity, parsePointer, type Diagnostic, type Severity } from '@setup-pack/core';
import { ITEM_KINDS, type ItemKind, type PackValue, type Target } from './pack.js';
import { asArr, asObj, str } from './json.js';

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
  if (!kind || !(ITEM_KINDS as readonly string[]).includes(kind) || tokens.length < 2 || !/^\d+$/.test(tokens[1]!)) return { target: { kind: 'pack' }, path: tokens };
  const index = Number(tokens[1]);
  const rest = tokens.slice(2);
  const loc: Location = { target: { kind, index }, path: rest };
  if (kind === 'automations' && rest[0] === 'document' && rest[1] === 'graph' && rest[3] !== undefined) {
    const graph = asObj(asObj(asObj(asArr(pack.automations)[index]).document).graph);
    const i = Number(rest[3]);
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
}

export const itemKey = (kind: ItemKind, index: number) => `${kind}/${index}`;
export const nodeKey = (automation: number, nodeId: string) => `${automation}/${nodeId}`;

export function indexFindings(pack: PackValue, diagnostics: readonly Diagnostic[]): FindingIndex {
  const idx: FindingIndex = { byItem: new Map(), byNode: new Map(), byEdge: new Map(), pack: empty(), total: countBySeverity(diagnostics) };
  const bump = (map: Map<string, Counts>, key: string, s: Severity) => {
    let c = map.get(key);
    if (!c) map.set(key, (c = empty()));
    c[s]++;
  };
  for (const d of diagnostics) {
    const loc = locate(pack, d.pointer);
    if (loc.target.kind === 'pack') {
      idx.pack[d.severity]++;
      continue;
    }
    bump(idx.byItem, itemKey(loc.target.kind, loc.target.index), d.severity);
    if (loc.nodeId) bump(idx.byNode, nodeKey(loc.target.index, loc.nodeId), d.severity);
    if (loc.edgeId) bump(idx.byEdge, nodeKey(loc.target.index, loc.edgeId), d.severity);
  }
  return idx;
}
