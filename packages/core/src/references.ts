// Which pack items a reference type can resolve to. A reference whose id is the key of such an
// item resolves inside the pack; any other is matched in the workspace by name.
import type { Pack, ReferenceType, ResourceKind } from './types.js';

export const RESOURCE_KIND_OF_REFERENCE: Partial<Record<ReferenceType, ResourceKind>> = {
  tag: 'tag',
  stage: 'contact_stage',
  lead_source: 'lead_source',
  custom_field: 'custom_field',
  email_template: 'email_template',
};

/** Where the pack items a reference type resolves to sit: a schema error there hides keys, so findings about them wait for it. */
export const REFERENCE_HOLDERS: Partial<Record<ReferenceType, string[]>> = {
  tag: ['/resources'],
  stage: ['/resources'],
  lead_source: ['/resources'],
  custom_field: ['/resources'],
  email_template: ['/messageTemplates', '/resources'],
  smart_list: ['/smartLists'],
  pipeline: ['/pipelines'],
  deal_stage: ['/pipelines'],
  automation: ['/automations'],
};

/** Reference types a workspace can create when missing (the installer creates them). */
export const CREATABLE_REFERENCE_TYPES: readonly ReferenceType[] = ['tag', 'stage', 'lead_source', 'custom_field'];

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Where a reference resolves inside a pack: the item (and for a deal stage, the stage) and its name. */
export interface PackItemOfReference {
  kind: 'resources' | 'messageTemplates' | 'smartLists' | 'automations' | 'pipelines';
  index: number;
  /** For a deal stage: its index in the pipeline's stages. */
  stage?: number;
  name?: string;
}

/** Reference types per resource kind: RESOURCE_KIND_OF_REFERENCE turned round, once. */
const TYPES_OF_RESOURCE_KIND = new Map<unknown, ReferenceType[]>();
for (const [t, kind] of Object.entries(RESOURCE_KIND_OF_REFERENCE))
  TYPES_OF_RESOURCE_KIND.set(kind, [...(TYPES_OF_RESOURCE_KIND.get(kind) ?? []), t as ReferenceType]);

type ItemVisitor = (
  type: ReferenceType,
  key: unknown,
  kind: PackItemOfReference['kind'],
  index: number,
  stage: number | undefined,
  name: unknown,
) => void;

/**
 * Every item of the pack a reference can resolve to, in document order of kinds as listed here:
 * the one statement of which items count, read by packItemsByReferenceType and
 * packKeysByReferenceType. Plain loops: the validator runs this once per pack.
 */
function forEachItemOfReference(p: Record<string, unknown>, visit: ItemVisitor): void {
  const { resources, messageTemplates, smartLists, automations, pipelines } = p;
  if (Array.isArray(resources))
    for (let i = 0; i < resources.length; i++) {
      const r: unknown = resources[i];
      if (!isObj(r)) continue;
      const types = TYPES_OF_RESOURCE_KIND.get(r.kind);
      if (types) for (const t of types) visit(t, r.key, 'resources', i, undefined, r.name);
    }
  if (Array.isArray(messageTemplates))
    for (let i = 0; i < messageTemplates.length; i++) {
      const t: unknown = messageTemplates[i];
      if (isObj(t)) visit('email_template', t.key, 'messageTemplates', i, undefined, t.name);
    }
  if (Array.isArray(smartLists))
    for (let i = 0; i < smartLists.length; i++) {
      const s: unknown = smartLists[i];
      if (isObj(s)) visit('smart_list', s.key, 'smartLists', i, undefined, s.name);
    }
  if (Array.isArray(automations))
    for (let i = 0; i < automations.length; i++) {
      const a: unknown = automations[i];
      if (isObj(a)) visit('automation', a.key, 'automations', i, undefined, isObj(a.document) ? a.document.name : undefined);
    }
  if (Array.isArray(pipelines))
    for (let i = 0; i < pipelines.length; i++) {
      const pl: unknown = pipelines[i];
      if (!isObj(pl)) continue;
      visit('pipeline', pl.key, 'pipelines', i, undefined, pl.name);
      const stages = pl.stages;
      if (!Array.isArray(stages)) continue;
      for (let j = 0; j < stages.length; j++) {
        const st: unknown = stages[j];
        if (isObj(st)) visit('deal_stage', st.key, 'pipelines', i, j, st.name);
      }
    }
}

/**
 * Whether a deal stage of the pipeline at `index` is meant over one of the pipeline at `held`
 * when both have the stage key: stage keys are unique within a pipeline only, and the pipeline
 * with the lowest key (by code unit) is meant, so the order of the pack's pipelines (which export
 * sorts) never changes what a reference means.
 */
function stageWins(pipelines: unknown, index: number, held: number): boolean {
  if (!Array.isArray(pipelines)) return false;
  const key = (i: number): unknown => (isObj(pipelines[i]) ? pipelines[i].key : undefined);
  const a = key(index);
  const b = key(held);
  return typeof a === 'string' && (typeof b !== 'string' || a < b);
}

/**
 * The items, per reference type and key, that a (possibly partly invalid) pack carries: a
 * reference whose id is one of these keys resolves inside the pack. The first item with a key
 * wins, except for a deal stage: that of the pipeline with the lowest key (stageWins).
 */
export function packItemsByReferenceType(
  pack: Partial<Pack> | Record<string, unknown>,
): Map<ReferenceType, Map<string, PackItemOfReference>> {
  const map = new Map<ReferenceType, Map<string, PackItemOfReference>>();
  const pipelines = (pack as Record<string, unknown>).pipelines;
  forEachItemOfReference(pack, (t, k, kind, index, stage, name) => {
    if (typeof k !== 'string') return;
    let m = map.get(t);
    if (!m) map.set(t, (m = new Map<string, PackItemOfReference>()));
    const held = m.get(k);
    if (held && !(stage !== undefined && stageWins(pipelines, index, held.index))) return;
    const shown = typeof name === 'string' && name !== '' ? name : undefined;
    m.set(k, stage === undefined ? { kind, index, name: shown } : { kind, index, stage, name: shown });
  });
  return map;
}

/** Keys, per reference type, of the items a (possibly partly invalid) pack carries. */
export function packKeysByReferenceType(pack: Partial<Pack> | Record<string, unknown>): Map<ReferenceType, Set<string>> {
  const out = new Map<ReferenceType, Set<string>>();
  forEachItemOfReference(pack, (t, k) => {
    if (typeof k !== 'string') return;
    let keys = out.get(t);
    if (!keys) out.set(t, (keys = new Set()));
    keys.add(k);
  });
  return out;
}

/** A bit for each reference type an item can be reached by, numbered as forEachItemOfReference first names them. */
const TYPE_BITS = new Map<unknown, number>();

/**
 * For each key in the pack, the reference types (as bits) of the items it is the key of: one
 * map per pack and no set per type, for the validator, which asks it of every pack it reads.
 * Ask it with isPackKey.
 */
export function packKeyTypes(pack: Partial<Pack> | Record<string, unknown>): Map<string, number> {
  const keys = new Map<string, number>();
  forEachItemOfReference(pack, (t, k) => {
    if (typeof k !== 'string') return;
    let bit = TYPE_BITS.get(t);
    if (bit === undefined) TYPE_BITS.set(t, (bit = 1 << TYPE_BITS.size));
    keys.set(k, (keys.get(k) ?? 0) | bit);
  });
  return keys;
}

/** Whether `id` is the key of an item of the pack that a reference of `type` resolves to (keys: packKeyTypes). */
export function isPackKey(keys: Map<string, number>, type: unknown, id: string): boolean {
  const bit = TYPE_BITS.get(type);
  return bit !== undefined && ((keys.get(id) ?? 0) & bit) !== 0;
}

/** Every string a node config writes, at any depth: the ids a graph refers to. */
export function stringsInConfig(config: unknown, out: Set<string> = new Set()): Set<string> {
  const stack: unknown[] = [config];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') out.add(v);
    else if (Array.isArray(v)) stack.push(...(v as unknown[]));
    else if (isObj(v)) for (const k of Object.keys(v)) stack.push(v[k]);
  }
  return out;
}

/**
 * Removes from `wanted` every string `value` holds, at any depth; stops walking as soon as
 * nothing is left to find.
 */
export function removeWrittenStrings(value: unknown, wanted: Set<string>): void {
  if (typeof value === 'string') wanted.delete(value);
  else if (Array.isArray(value)) for (let i = 0; i < value.length && wanted.size > 0; i++) removeWrittenStrings(value[i], wanted);
  else if (isObj(value))
    for (const k in value) if (wanted.size > 0 && Object.prototype.hasOwnProperty.call(value, k)) removeWrittenStrings(value[k], wanted);
}
