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
const arr = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** Keys, per reference type, of the items a (possibly partly invalid) pack carries. */
export function packKeysByReferenceType(pack: Partial<Pack> | Record<string, unknown>): Map<ReferenceType, Set<string>> {
  const p = pack as Record<string, unknown>;
  const map = new Map<ReferenceType, Set<string>>();
  const add = (t: ReferenceType, k: unknown) => {
    if (typeof k !== 'string') return;
    let s = map.get(t);
    if (!s) map.set(t, (s = new Set()));
    s.add(k);
  };
  const typesOfKind = new Map<unknown, ReferenceType[]>();
  for (const [t, kind] of Object.entries(RESOURCE_KIND_OF_REFERENCE)) typesOfKind.set(kind, [...(typesOfKind.get(kind) ?? []), t as ReferenceType]);
  for (const r of arr(p.resources)) for (const t of typesOfKind.get(r.kind) ?? []) add(t, r.key);
  for (const t of arr(p.messageTemplates)) add('email_template', t.key);
  for (const s of arr(p.smartLists)) add('smart_list', s.key);
  for (const a of arr(p.automations)) add('automation', a.key);
  for (const pl of arr(p.pipelines)) {
    add('pipeline', pl.key);
    for (const st of arr(pl.stages)) add('deal_stage', st.key);
  }
  return map;
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
