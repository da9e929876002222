// The visual diff of two releases, on core's diffPacks: per-automation merged graphs (new
// graph plus removed nodes/edges from the old one) with a mark per node and edge.
import {
  describeValueChange,
  diffPacks,
  filterPlace,
  printable,
  unpairedEntries,
  type FilterChange,
  type ItemChange,
  type Pack,
  type PackDiff,
  type UnpairedItem,
} from '@setup-pack/core';
import { asObj, str, type Obj } from './json.js';
import { edgesOf, nodesOf, withGraph } from './graph.js';
import { items, itemName, type PackValue } from './pack.js';

export type Mark = 'added' | 'removed' | 'changed';

export function comparePacks(oldPack: PackValue, newPack: PackValue): PackDiff {
  return diffPacks(oldPack as unknown as Pack, newPack as unknown as Pack);
}

export interface MergedGraph {
  doc: Obj;
  marks: Map<string, Mark>;
  edgeMarks: Map<string, Mark>;
}

const byKey = (pack: PackValue, key: string) => items(pack, 'automations').find((a) => a.key === key);

/** One automation as a graph showing both releases: what the new one has, plus what it lost. */
export function mergedAutomation(oldPack: PackValue, newPack: PackValue, change: ItemChange): MergedGraph {
  const oldDoc = asObj(byKey(oldPack, change.key)?.document);
  const newDoc = asObj(byKey(newPack, change.key)?.document);
  const marks = new Map<string, Mark>();
  const edgeMarks = new Map<string, Mark>();
  if (change.change === 'added') {
    for (const n of nodesOf(newDoc)) marks.set(str(n.id), 'added');
    for (const e of edgesOf(newDoc)) edgeMarks.set(str(e.id), 'added');
    return { doc: newDoc, marks, edgeMarks };
  }
  if (change.change === 'removed') {
    for (const n of nodesOf(oldDoc)) marks.set(str(n.id), 'removed');
    for (const e of edgesOf(oldDoc)) edgeMarks.set(str(e.id), 'removed');
    return { doc: oldDoc, marks, edgeMarks };
  }
  for (const n of change.automation?.nodes ?? []) marks.set(n.id, n.change);
  for (const e of change.automation?.edges ?? []) edgeMarks.set(e.id, e.change);
  const newIds = new Set(nodesOf(newDoc).map((n) => str(n.id)));
  const removedNodes = nodesOf(oldDoc).filter((n) => marks.get(str(n.id)) === 'removed' && !newIds.has(str(n.id)));
  const nodes = [...nodesOf(newDoc), ...removedNodes];
  const present = new Set(nodes.map((n) => str(n.id)));
  const newEdgeIds = new Set(edgesOf(newDoc).map((e) => str(e.id)));
  const removedEdges = edgesOf(oldDoc).filter(
    (e) => edgeMarks.get(str(e.id)) === 'removed' && !newEdgeIds.has(str(e.id)) && present.has(str(e.source)) && present.has(str(e.target)),
  );
  return { doc: withGraph(newDoc, nodes, [...edgesOf(newDoc), ...removedEdges]), marks, edgeMarks };
}

/** One change in a filter tree (a smart list's filters, a control.if block's conditions): its place, and the node in words. */
function filterLine(f: FilterChange): string {
  const head = `${f.node === 'other' ? 'node' : f.node} ${filterPlace(f.path)} ${f.change}`;
  if (f.change === 'reordered') return `${head}: the same filter`;
  if (f.change === 'changed')
    return `${head}${f.fields && f.fields.length > 0 ? ` (${f.fields.join(', ')})` : ''}: ${f.before ?? ''} → ${f.after ?? ''}`;
  return `${head}: ${(f.change === 'added' ? f.after : f.before) ?? ''}`;
}

/**
 * What changed in one item, in words: for an automation, which blocks, connections and settings
 * (never the bare "document"); for a pipeline, which stages (by key) and a new order; for a smart
 * list, which conditions and groups of its filters (by place, in words before and after; never the
 * bare "filters"); for other kinds, which fields. Each changed field is then said with its old and
 * new value in core's words (describeValueChange: `subject: "Hi" → "Hello"`, a body by its lines,
 * references by those added and removed), after the block or stage it belongs to.
 */
export function describeItemChange(c: ItemChange): string[] {
  const lines: string[] = [];
  const fields = [
    ...(c.fields ?? []).filter(
      (f) => !(c.automation && f === 'document') && !((c.stages || c.stageOrder) && f === 'stages') && !(c.filters && f === 'filters'),
    ),
    ...(c.filters?.fields ?? []).map((f) => `filters.${f}`),
  ];
  if (fields.length > 0) lines.push(`changed: ${fields.join(', ')}`);
  for (const v of c.values ?? []) lines.push(describeValueChange(v));
  for (const st of c.stages ?? []) {
    lines.push(
      `stage ${st.key}${st.name !== undefined && st.name !== st.key ? ` "${st.name}"` : ''} ${st.change}${st.fields && st.fields.length > 0 ? `: ${st.fields.join(', ')}` : ''}`,
    );
    for (const v of st.values ?? []) lines.push(`stage ${st.key} ${describeValueChange(v)}`);
  }
  if (c.stageOrder) lines.push(`stage order: ${c.stageOrder.join(', ')}`);
  for (const f of c.filters?.changes ?? []) lines.push(filterLine(f));
  const a = c.automation;
  if (!a) return lines;
  for (const n of a.nodes) {
    lines.push(`block ${n.id} ${n.change}${n.fields && n.fields.length > 0 ? `: ${n.fields.join(', ')}` : ''}`);
    for (const v of n.values ?? []) lines.push(`block ${n.id} ${describeValueChange(v)}`);
    for (const f of n.conditions ?? []) lines.push(`block ${n.id} ${filterLine(f)}`);
  }
  for (const e of a.edges) {
    const connection = `connection ${e.source} → ${e.target}${e.handle && e.handle !== 'next' ? ` (${e.handle})` : ''}`;
    lines.push(`${connection} ${e.change}`);
    for (const v of e.values ?? []) lines.push(`${connection} ${describeValueChange(v)}`);
  }
  if (a.fields.length > 0) lines.push(`changed: ${a.fields.join(', ')}`);
  for (const v of a.values ?? []) lines.push(describeValueChange(v));
  return lines;
}

/** The pack's own fields that changed, each with its old and new value in core's words (`name: "A" → "B"`). */
export function describePackFields(d: PackDiff): string[] {
  return (d.values ?? []).map(describeValueChange);
}

/** Where an unpaired item is (`automations[1]`) and, when it has one, its name: “Stage nurture”. */
function unpairedPlace(pack: PackValue, u: UnpairedItem): string {
  const item = Array.isArray(pack[u.kind]) ? (pack[u.kind] as unknown[])[u.index] : undefined;
  const obj = asObj(item);
  const name = item === obj ? itemName(u.kind, obj) : '';
  return `${u.kind}[${u.index}]${name && name !== '(unnamed)' && name !== obj.key ? ` “${printable(name)}”` : ''}`;
}

/**
 * The items diffPacks could not pair by key (core's `unpaired`: no string key, a key repeated in
 * its kind), so the comparison leaves them out: per release, one line a reason, naming where each
 * is, in core's words (unpairedEntries, what `setup-pack diff` refuses such a pack with), here
 * shown beside the comparison with each item's name.
 */
export function describeUnpaired(d: PackDiff, oldPack: PackValue, newPack: PackValue): { side: 'old' | 'new'; lines: string[] }[] {
  const out: { side: 'old' | 'new'; lines: string[] }[] = [];
  for (const side of ['old', 'new'] as const) {
    const pack = side === 'old' ? oldPack : newPack;
    const lines = unpairedEntries(
      d.unpaired.filter((u) => u.side === side),
      (u) => unpairedPlace(pack, u),
    );
    if (lines.length > 0) out.push({ side, lines });
  }
  return out;
}

/**
 * Whether an item the comparison says was added (removed) may really be one of the other
 * release's unpaired items of its kind — the same item with a key that went wrong — rather than
 * a new (dropped) one: core says such an item added or removed, as it cannot know.
 */
export function mayBeUnpaired(d: PackDiff, c: ItemChange): boolean {
  if (c.change === 'changed') return false;
  const otherSide = c.change === 'removed' ? 'new' : 'old';
  return d.unpaired.some((u) => u.kind === c.kind && u.side === otherSide && !u.within);
}
