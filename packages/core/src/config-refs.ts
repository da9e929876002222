// The ids a block's config writes in the fields the node catalog types as references, and whether
// each can be installed: a pack key of the field's type (the installer writes the created or bound
// object's id there) or an id the automation lists in its references (bound by the installer).
// Anything else names nothing the installer can find. The validator's reference/unresolved-id and
// the planner's plan/unresolved-id both read this one statement.
import { NODE_CATALOG, type ConfigField } from './catalog/nodes.js';
import { escapeToken } from './json/pointer.js';
import { isPackKey } from './references.js';
import { closest } from './text.js';
import type { ReferenceType } from './types.js';

/** One id a catalog ref/refs field of a block's config holds. */
export interface ConfigRefId {
  field: ConfigField & { ref: ReferenceType };
  id: string;
  /** Where it sits below the node: `/config/<field>` or `/config/<field>/<index>`. */
  path: string;
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Each kind's reference fields with their place below the node, worked out once (the validator asks for every block of every pack). */
const REF_FIELDS = new Map<string, { field: ConfigRefId['field']; at: string }[]>();
for (const [kind, info] of NODE_CATALOG) {
  const fields = info.fields
    .filter((f) => f.ref && (f.type === 'ref' || f.type === 'refs'))
    .map((f) => ({ field: f as ConfigRefId['field'], at: `/config/${escapeToken(f.name)}` }));
  if (fields.length) REF_FIELDS.set(kind, fields);
}
const NONE: ConfigRefId[] = [];

/** The non-empty string ids of a block's catalog reference fields (an empty string reads as unset). */
export function configRefIds(kind: unknown, config: unknown): ConfigRefId[] {
  const fields = typeof kind === 'string' ? REF_FIELDS.get(kind) : undefined;
  if (!fields || !isObj(config)) return NONE;
  const out: ConfigRefId[] = [];
  for (const { field, at } of fields) {
    const v = config[field.name];
    const f = field;
    if (field.type === 'ref' && typeof v === 'string' && v !== '') out.push({ field: f, id: v, path: at });
    if (field.type === 'refs' && Array.isArray(v))
      v.forEach((x, i) => typeof x === 'string' && x !== '' && out.push({ field: f, id: x, path: `${at}/${i}` }));
  }
  return out;
}

/** What an automation's listed references say: the ids it lists, and per type, for suggestions. */
export function listedIds(references: unknown): { ids: Set<string>; byType: Map<unknown, string[]> } {
  const ids = new Set<string>();
  const byType = new Map<unknown, string[]>();
  if (Array.isArray(references)) {
    for (const r of references) {
      if (!isObj(r) || typeof r.id !== 'string') continue;
      ids.add(r.id);
      byType.set(r.type, [...(byType.get(r.type) ?? []), r.id]);
    }
  }
  return { ids, byType };
}

/** How a config ref id installs: the pack's own item, a listed reference, or nothing. */
export function configRefStatus(
  ref: ConfigRefId,
  packKeys: Map<string, number>,
  listed: Set<string>,
): 'pack-key' | 'listed' | 'unresolved' {
  if (listed.has(ref.id)) return 'listed';
  return isPackKey(packKeys, ref.field.ref, ref.id) ? 'pack-key' : 'unresolved';
}

/**
 * Why an unresolved id cannot be installed, with the nearest id it may have meant among the pack's
 * keys of its type and the automation's listed ids of its type.
 */
export function unresolvedIdMessage(
  nodeId: string,
  kind: string,
  ref: ConfigRefId,
  candidates: readonly string[],
): { message: string; suggestion?: string } {
  const suggestion = closest(ref.id, candidates);
  const type = ref.field.ref;
  const message = `config.${ref.path.slice('/config/'.length)} of ${kind} node "${nodeId}" is "${ref.id}", which is neither the key of ${/^[aeiu]/.test(type) ? 'an' : 'a'} ${type} in this pack nor an id the automation lists in its references, so installing cannot point the block at anything${suggestion ? `; did you mean "${suggestion}"?` : '.'}`;
  return suggestion ? { message, suggestion } : { message };
}
