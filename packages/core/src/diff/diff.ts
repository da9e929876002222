// diffPacks: what changed between two releases of a pack, by item key. Node positions never
// count as a change (moving a block in the editor is not a change to the automation).
import { ITEM_KINDS, type GraphEdge, type GraphNode, type ItemKind, type Pack } from '../types.js';
import { compareSemver } from '../plan/version.js';
import { storedForm } from '../export/normal.js';
import type {
  AutomationDiff,
  EdgeChange,
  ItemChange,
  NodeChange,
  PackDiff,
  StageChange,
  UnpairedItem,
  UnpairedPart,
  ValueChange,
} from './types.js';
import { differingDeltas, differingKeys, isObj, jsonEqual, type FieldDelta } from './compare.js';
import { valueChange } from './values.js';
import { diffFilterNodes, diffFilters } from './filters.js';
import { isFilterCondition, isFilterGroup } from '../filters.js';

export { jsonEqual };

/** Something of one side that cannot be paired: where it is in its list, why, and its key or id (but for no-key). */
type PairFail = Omit<UnpairedItem, 'kind' | 'within'>;

/**
 * Two lists' entries by their key or id (`idOf`), those that cannot be paired left out and said in
 * `fails`: an entry that is not an object or has no string key, and every entry of a key that
 * repeats on either side (pairing one of them would be a guess, and the others would read as added
 * or removed). Items by key, a pipeline's stages by key, an automation's nodes and edges by id.
 */
function pairLists(
  oldList: unknown,
  newList: unknown,
  idOf: (v: Record<string, unknown>) => unknown,
  fails: PairFail[],
): [Map<string, Record<string, unknown>>, Map<string, Record<string, unknown>>] {
  const lists = [oldList, newList].map((l) => (Array.isArray(l) ? (l as unknown[]) : []));
  const keyOf = (v: unknown) => {
    const k = isObj(v) ? idOf(v) : undefined;
    return typeof k === 'string' ? k : undefined;
  };
  const counts = lists.map((list) => {
    const n = new Map<string, number>();
    for (const v of list) {
      const k = keyOf(v);
      if (k !== undefined) n.set(k, (n.get(k) ?? 0) + 1);
    }
    return n;
  });
  const maps = lists.map((list, s) => {
    const side = s === 0 ? 'old' : 'new';
    const out = new Map<string, Record<string, unknown>>();
    list.forEach((v, index) => {
      const key = keyOf(v);
      if (key === undefined) fails.push({ side, index, reason: 'no-key' });
      // A key repeated on one side only: its single entry on the other side is not paired either.
      else if (counts[s].get(key)! > 1) fails.push({ side, index, reason: 'duplicate-key', key });
      else if ((counts[1 - s].get(key) ?? 0) > 1) fails.push({ side, index, reason: 'key-repeats-on-other-side', key });
      else out.set(key, v as Record<string, unknown>);
    });
    return out;
  });
  return [maps[0], maps[1]];
}

const keyField = (v: Record<string, unknown>) => v.key;
const idField = (v: Record<string, unknown>) => v.id;

/** A kind's items of both sides by key, those it cannot pair said in `unpaired` (pairLists). */
function pairable(
  kind: ItemKind,
  oldList: unknown,
  newList: unknown,
  unpaired: UnpairedItem[],
): [Map<string, Record<string, unknown>>, Map<string, Record<string, unknown>>] {
  const fails: PairFail[] = [];
  const maps = pairLists(oldList, newList, keyField, fails);
  for (const f of fails)
    unpaired.push({ side: f.side, kind, index: f.index, reason: f.reason, ...(f.key === undefined ? {} : { key: f.key }) });
  return maps;
}

function nameOf(item: Record<string, unknown>): string | undefined {
  if (typeof item.name === 'string') return item.name;
  if (isObj(item.document) && typeof item.document.name === 'string') return item.document.name;
  if (typeof item.fileName === 'string') return item.fileName;
  return undefined;
}

const NODE_SKIP = new Set(['position']);

const NODE_NESTED = new Set(['config']);
const nodeDeltas = (a: GraphNode, b: GraphNode): FieldDelta[] => differingDeltas(a, b, NODE_NESTED, NODE_SKIP);
/** The fields of deltas, and each one's values in words but those said in detail elsewhere (`skip`). */
const said = (deltas: FieldDelta[], skip: (field: string) => boolean = () => false): { fields: string[]; values: ValueChange[] } => ({
  fields: deltas.map((d) => d.field),
  values: deltas.filter((d) => !skip(d.field)).map((d) => valueChange(d.field, d.before, d.after)),
});
const isFilterNode = (n: unknown) => isFilterGroup(n) || isFilterCondition(n);

/** A changed block's config.conditions (control.if's filter tree), said as a smart list's filters are. */
function conditionChanges(a: GraphNode, b: GraphNode, fields: string[]): Pick<NodeChange, 'conditions'> {
  if (!fields.includes('config.conditions')) return {};
  const x = isObj(a.config) ? a.config.conditions : undefined;
  const y = isObj(b.config) ? b.config.conditions : undefined;
  return isFilterNode(x) && isFilterNode(y) ? { conditions: diffFilterNodes(x, y) } : {};
}

const handleOf = (e: GraphEdge) => (typeof e.handle === 'string' ? e.handle : 'next');

function edgeDeltas(a: GraphEdge, b: GraphEdge): FieldDelta[] {
  // A missing handle means "next", so writing it out is not a change.
  const na = { ...a, handle: handleOf(a) };
  const nb = { ...b, handle: handleOf(b) };
  return differingDeltas(na, nb, new Set());
}

const DOCUMENT_NESTED = new Set(['settings']);

/**
 * Node and edge changes between two automation documents, nodes and edges paired by id. Those that
 * cannot be (no string id, an id that repeats on either side: an invalid document) are paired with
 * nothing and handed to `unpaired`, when given, rather than the first of a repeated id taken.
 */
export function diffAutomationDocuments(
  oldDoc: unknown,
  newDoc: unknown,
  unpaired?: (list: 'nodes' | 'edges', fail: Omit<UnpairedItem, 'kind' | 'within'>) => void,
): AutomationDiff {
  const a = isObj(oldDoc) ? oldDoc : {};
  const b = isObj(newDoc) ? newDoc : {};
  const ga = isObj(a.graph) ? a.graph : {};
  const gb = isObj(b.graph) ? b.graph : {};
  const deltas = differingDeltas(a, b, DOCUMENT_NESTED, new Set(['graph']));
  deltas.push(...differingKeys(ga, gb, new Set(['nodes', 'edges'])).map((k) => ({ field: `graph.${k}`, before: ga[k], after: gb[k] })));
  const { fields, values } = said(deltas);

  const nodes: NodeChange[] = [];
  const fails: PairFail[] = [];
  const [na, nb] = pairLists(ga.nodes, gb.nodes, idField, fails) as [Map<string, GraphNode>, Map<string, GraphNode>];
  for (const f of fails.splice(0)) unpaired?.('nodes', f);
  for (const [id, node] of nb) {
    const old = na.get(id);
    if (!old) nodes.push({ id, change: 'added', kind: node.kind });
    else {
      const deltas = nodeDeltas(old, node);
      if (!deltas.length) continue;
      const f = deltas.map((d) => d.field);
      const conditions = conditionChanges(old, node, f);
      nodes.push({
        id,
        change: 'changed',
        kind: node.kind,
        ...said(deltas, (field) => field === 'config.conditions' && conditions.conditions !== undefined),
        ...conditions,
      });
    }
  }
  for (const [id, node] of na) if (!nb.has(id)) nodes.push({ id, change: 'removed', kind: node.kind });

  const edges: EdgeChange[] = [];
  const [ea, eb] = pairLists(ga.edges, gb.edges, idField, fails) as [Map<string, GraphEdge>, Map<string, GraphEdge>];
  for (const f of fails.splice(0)) unpaired?.('edges', f);
  const edge = (e: GraphEdge, change: EdgeChange['change'], f?: FieldDelta[]): EdgeChange => ({
    id: e.id,
    change,
    source: String(e.source),
    target: String(e.target),
    handle: handleOf(e),
    ...(f ? said(f) : {}),
  });
  for (const [id, e] of eb) {
    const old = ea.get(id);
    if (!old) edges.push(edge(e, 'added'));
    else {
      const f = edgeDeltas(old, e);
      if (f.length) edges.push(edge(e, 'changed', f));
    }
  }
  for (const [id, e] of ea) if (!eb.has(id)) edges.push(edge(e, 'removed'));
  return { nodes, edges, fields, values };
}

/**
 * A pipeline's stage changes by key, and the new order when the stages both have moved relative to
 * each other. Stages that cannot be paired by key (pairLists) are said in `fails`, and nowhere else.
 */
function diffStages(oldStages: unknown, newStages: unknown, fails: PairFail[]): { stages: StageChange[]; order?: string[] } {
  const [a, b] = pairLists(oldStages, newStages, keyField, fails);
  const stages: StageChange[] = [];
  const named = (s: Record<string, unknown>) => (typeof s.name === 'string' ? { name: s.name } : {});
  for (const [key, stage] of b) {
    const old = a.get(key);
    if (!old) stages.push({ key, change: 'added', ...named(stage) });
    else {
      const deltas = differingDeltas(old, stage, new Set());
      if (deltas.length) stages.push({ key, change: 'changed', ...named(stage), ...said(deltas) });
    }
  }
  for (const [key, stage] of a) if (!b.has(key)) stages.push({ key, change: 'removed', ...named(stage) });
  const kept = (m: Map<string, unknown>, other: Map<string, unknown>) => [...m.keys()].filter((k) => other.has(k));
  const before = kept(a, b);
  const after = kept(b, a);
  return before.some((k, i) => k !== after[i]) ? { stages, order: [...b.keys()] } : { stages };
}

const NONE: ReadonlySet<string> = new Set();
/** Object fields said by the keys of them that differ (`data.options`): a resource's data. */
const ITEM_NESTED: Partial<Record<ItemKind, ReadonlySet<string>>> = { resources: new Set(['data']) };
/** The pack's brand is said by its fields (`brand.primaryColor`). */
const PACK_NESTED = new Set(['brand']);

function diffItems(kind: ItemKind, oldList: unknown, newList: unknown, unpaired: UnpairedItem[]): ItemChange[] {
  const out: ItemChange[] = [];
  const [a, b] = pairable(kind, oldList, newList, unpaired);
  for (const [key, item] of b) {
    const old = a.get(key);
    const name = nameOf(item);
    const withName = name === undefined ? {} : { name };
    if (!old) {
      out.push({ kind, key, change: 'added', ...withName });
      continue;
    }
    // Written as the service stores it (a default stage type left out, a null richTextDoc): not a change.
    const stored = storedForm(kind, old);
    const storedNew = storedForm(kind, item);
    const deltas = differingDeltas(stored, storedNew, ITEM_NESTED[kind] ?? NONE);
    if (!deltas.length) continue;
    const fields = deltas.map((d) => d.field);
    const change: ItemChange = { kind, key, change: 'changed', ...withName, fields };
    // A stage, node or edge of this item that cannot be paired: said as the item's, in `unpaired`.
    const within = (list: UnpairedPart['list'], f: PairFail) => {
      const index = (f.side === 'old' ? oldList : newList) as unknown[];
      unpaired.push({
        side: f.side,
        kind,
        index: index.indexOf(f.side === 'old' ? old : item),
        reason: f.reason,
        key,
        within: { list, index: f.index, ...(f.key === undefined ? {} : { key: f.key }) },
      });
    };
    if (kind === 'pipelines' && fields.includes('stages')) {
      const fails: PairFail[] = [];
      const { stages, order } = diffStages(stored.stages, storedNew.stages, fails);
      for (const f of fails) within('stages', f);
      if (stages.length) change.stages = stages;
      if (order) change.stageOrder = order;
    }
    if (kind === 'smartLists' && fields.includes('filters')) change.filters = diffFilters(stored.filters, storedNew.filters);
    // Each field's values, but those said in detail: an automation's document, a pipeline's stages, a smart list's filters.
    const detailed = (f: string) =>
      (kind === 'automations' && f === 'document') ||
      (f === 'stages' && (change.stages !== undefined || change.stageOrder !== undefined)) ||
      (f === 'filters' && change.filters !== undefined);
    change.values = said(deltas, detailed).values;
    if (kind === 'automations' && fields.includes('document')) {
      const automation = diffAutomationDocuments(old.document, item.document, within);
      // Only positions moved: the documents differ, yet nothing counts as a change.
      if (!automation.nodes.length && !automation.edges.length && !automation.fields.length) {
        change.fields = fields.filter((f) => f !== 'document');
        if (!change.fields.length) continue;
      } else change.automation = automation;
    }
    out.push(change);
  }
  for (const [key, item] of a) {
    if (b.has(key)) continue;
    const name = nameOf(item);
    out.push({ kind, key, change: 'removed', ...(name === undefined ? {} : { name }) });
  }
  return out;
}

/** What changed from `oldPack` to `newPack`: top-level fields, and items by key for every kind. */
export function diffPacks(oldPack: Pack, newPack: Pack): PackDiff {
  const a = (isObj(oldPack) ? oldPack : {}) as Record<string, unknown>;
  const b = (isObj(newPack) ? newPack : {}) as Record<string, unknown>;
  const oldVersion = typeof a.version === 'string' ? a.version : '';
  const newVersion = typeof b.version === 'string' ? b.version : '';
  const cmp = compareSemver(oldVersion, newVersion);
  const versionChange: PackDiff['versionChange'] =
    cmp === null ? (oldVersion === newVersion ? 'same' : 'unknown') : cmp < 0 ? 'up' : cmp > 0 ? 'down' : 'same';
  const items: ItemChange[] = [];
  const unpaired: UnpairedItem[] = [];
  for (const kind of ITEM_KINDS) items.push(...diffItems(kind, a[kind], b[kind], unpaired));
  return {
    packIdMatches: typeof a.packId === 'string' && a.packId === b.packId,
    oldVersion,
    newVersion,
    versionChange,
    ...said(differingDeltas(a, b, PACK_NESTED, new Set<string>(ITEM_KINDS))),
    items,
    unpaired,
  };
}
