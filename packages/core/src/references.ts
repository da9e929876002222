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

/**
 * The items, per reference type and key, that a (possibly partly invalid) pack carries: a
 * reference whose id is one of these keys resolves inside the pack. The first item with a key wins.
 */
export function packItemsByReferenceType(pack: Partial<Pack> | Record<string, unknown>): Map<ReferenceType, Map<string, PackItemOfReference>> {
  const p = pack as Record<string, unknown>;
  const map = new Map<ReferenceType, Map<string, PackItemOfReference>>();
  const add = (t: ReferenceType, k: unknown, at: PackItemOfReference) => {
    if (typeof k !== 'string') return;
    let m = map.get(t);
    if (!m) map.set(t, (m = new Map()));
    if (!m.has(k)) m.set(k, at);
  };
  const name = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const typesOfKind = new Map<unknown, ReferenceType[]>();
  for (const [t, kind] of Object.entries(RESOURCE_KIND_OF_REFERENCE)) typesOfKind.set(kind, [...(typesOfKind.get(kind) ?? []), t as ReferenceType]);
  const each = (v: unknown, fn: (item: Record<string, unknown>, index: number) => void) => {
    if (Array.isArray(v)) v.forEach((x, i) => isObj(x) && fn(x, i));
  };
  each(p.resources, (r, index) => {
    for (const t of typesOfKind.get(r.kind) ?? []) add(t, r.key, { kind: 'resources', index, name: name(r.name) });
  });
  each(p.messageTemplates, (t, index) => add('email_template', t.key, { kind: 'messageTemplates', index, name: name(t.name) }));
  each(p.smartLists, (s, index) => add('smart_list', s.key, { kind: 'smartLists', index, name: name(s.name) }));
  each(p.automations, (a, index) => add('automation', a.key, { kind: 'automations', index, name: name(isObj(a.document) ? a.document.name : undefined) }));
  each(p.pipelines, (pl, index) => {
    add('pipeline', pl.key, { kind: 'pipelines', index, name: name(pl.name) });
    each(pl.stages, (st, stage) => add('deal_stage', st.key, { kind: 'pipelines', index, stage, name: name(st.name) }));
  });
  return map;
}

/** Keys, per reference type, of the items a (possibly partly invalid) pack carries. */
export function packKeysByReferenceType(pack: Partial<Pack> | Record<string, unknown>): Map<ReferenceType, Set<string>> {
  const out = new Map<ReferenceType, Set<string>>();
  for (const [t, items] of packItemsByReferenceType(pack)) out.set(t, new Set(items.keys()));
  return out;
}

/** Every string a node config writes, at any depth: the ids a graph refers to. */
export function stringsInConfig(config: unknown, out: Set<string> = new Set()): Set<string> {
  const stack: unknown[] = [config];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') out.add(v);
    else if (Array.isArray(v)) stack.push(...v);
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
  else if (isObj(value)) for (const k in value) if (wanted.size > 0 && Object.prototype.hasOwnProperty.call(value, k)) removeWrittenStrings(value[k], wanted);
}
