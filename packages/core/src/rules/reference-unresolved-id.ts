import { defineRule, type AutomationRef, type RuleContext } from './rule.js';
import { configRefIds, configRefStatus, listedIds, unresolvedIdMessage } from '../config-refs.js';
import { packKeysByReferenceType, REFERENCE_HOLDERS } from '../references.js';
import { packKeyTypesOfRules } from './util.js';
import type { ReferenceType } from '../types.js';

export default defineRule({
  meta: {
    code: 'reference/unresolved-id',
    severity: 'warning',
    description: "An id in a block's reference field is the key of a pack item of its type, or listed in the automation's references.",
    docs: "Items refer to each other by key, and graph references to workspace items are listed in the automation's references, so an id that is neither names nothing the installer can bind: `setup-pack plan` refuses such a pack (plan/unresolved-id). Block configs are not part of the spec, so this is a warning here; it is always reported.",
  },
  check(ctx) {
    let keys: Map<string, number> | undefined;
    let byType: Map<ReferenceType, Set<string>> | undefined;
    for (const a of ctx.automations()) {
      const g = a.graph;
      if (!g) continue;
      const listed = listedIds(a.document?.references);
      for (let n = 0; n < g.nodeCount; n++) {
        if (g.isBroken(n)) continue;
        const refs = configRefIds(g.kind(n), g.config(n));
        if (refs.length === 0) continue;
        keys ??= packKeyTypesOfRules(ctx);
        for (const ref of refs) {
          if (configRefStatus(ref, keys, listed.ids) !== 'unresolved') continue;
          // An item of that type may be in the pack but broken: that error is the one to fix first.
          if ((REFERENCE_HOLDERS[ref.field.ref] ?? []).some((h) => ctx.isBroken(h))) continue;
          byType ??= packKeysByReferenceType(ctx.pack);
          report(ctx, a, g.id(n), g.kind(n), g.nodePointer(n), ref, [
            ...(byType.get(ref.field.ref) ?? []),
            ...(listed.byType.get(ref.field.ref) ?? []),
          ]);
        }
      }
    }
  },
});

function report(
  ctx: RuleContext,
  a: AutomationRef,
  nodeId: string,
  kind: string,
  nodePointer: string,
  ref: Parameters<typeof unresolvedIdMessage>[2],
  candidates: string[],
): void {
  const { message, suggestion } = unresolvedIdMessage(nodeId, kind, ref, candidates);
  ctx.report({
    pointer: `${nodePointer}${ref.path}`,
    message,
    hint: suggestion
      ? `Write "${suggestion}", or list the id in ${a.pointer}/document/references with its name.`
      : `Use the key of a ${ref.field.ref} of the pack, or list the id in the automation's references with the name of the workspace item.`,
  });
}
