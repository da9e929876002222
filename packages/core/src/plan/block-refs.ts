// The ids blocks write in their reference fields that the automation does not list: a pack key of
// the field's type is rewritten to the created or bound object's id like a listed one (items refer
// to each other by key, listed or not); anything else names nothing the installer can bind, and the
// plan refuses the pack before its first write (the validator's reference/unresolved-id says the same).
import { configRefIds, configRefStatus, listedIds, unresolvedIdMessage } from '../config-refs.js';
import { packKeysByReferenceType, packKeyTypes } from '../references.js';
import type { Pack } from '../types.js';
import type { PackTargets } from './bind.js';
import type { PlanError, Rewrite } from './types.js';

export interface BlockRefs {
  /** Per automation key: rewrites of the pack keys its blocks write unlisted. */
  unlisted: Map<string, Rewrite[]>;
  errors: PlanError[];
}

export function blockReferences(pack: Pack, targets: PackTargets): BlockRefs {
  const out: BlockRefs = { unlisted: new Map(), errors: [] };
  const keys = packKeyTypes(pack);
  let byType: ReturnType<typeof packKeysByReferenceType> | undefined;
  for (const a of pack.automations ?? []) {
    const listed = listedIds(a.document.references);
    const seen = new Set<string>();
    const rewrites: Rewrite[] = [];
    for (const node of a.document.graph.nodes) {
      for (const ref of configRefIds(node.kind, node.config)) {
        const status = configRefStatus(ref, keys, listed.ids);
        const type = ref.field.ref;
        if (status === 'pack-key' && !seen.has(`${type}:${ref.id}`)) {
          seen.add(`${type}:${ref.id}`);
          const target = targets.of(type, ref.id);
          if (target) rewrites.push({ kind: 'reference', from: ref.id, target, refType: type, unlisted: true });
        } else if (status === 'unresolved') {
          byType ??= packKeysByReferenceType(pack);
          const { message } = unresolvedIdMessage(node.id, node.kind, ref, [
            ...(byType.get(type) ?? []),
            ...(listed.byType.get(type) ?? []),
          ]);
          out.errors.push({ code: 'plan/unresolved-id', message: `automation ${a.key} ("${a.document.name}"): ${message}` });
        }
      }
    }
    if (rewrites.length) out.unlisted.set(a.key, rewrites);
  }
  return out;
}
