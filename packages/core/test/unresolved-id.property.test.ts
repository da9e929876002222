// A block's reference id that is neither a pack key of its type nor listed in the automation's
// references is reported by the validator (reference/unresolved-id) and refused by the planner
// (plan/unresolved-id), for every generated pack and every such place in it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configRefIds, plan, requiredCollections, validatePack, type Pack, type WorkspaceSnapshot } from '../src/index.js';
import { fuzzConfig, validPack } from '@setup-pack/testkit';

const { numRuns, seed } = fuzzConfig('a mutated block id is reported by validate and plan', 100);

/** Every place a block of the pack writes a reference id. */
function places(pack: Pack) {
  return (pack.automations ?? []).flatMap((a, ai) =>
    a.document.graph.nodes.flatMap((n, ni) => configRefIds(n.kind, n.config).map((r) => ({ ai, ni, r }))),
  );
}

const emptyWorkspace = (pack: Pack): WorkspaceSnapshot => ({
  collections: Object.fromEntries(requiredCollections(pack, null).map((c) => [c, []])),
});

describe('reference/unresolved-id and plan/unresolved-id', () => {
  it(`a mutated id is reported by both, and only where it was mutated (${numRuns} packs)`, () => {
    const withPlaces = validPack({ maxItems: 3 }).filter((p) => places(p).length > 0);
    fc.assert(
      fc.property(withPlaces, fc.nat(), (pack, pick) => {
        const before = validatePack(pack).diagnostics.filter((d) => d.code === 'reference/unresolved-id');
        expect(before).toEqual([]);
        const all = places(pack);
        const { ai, ni, r } = all[pick % all.length];
        const mutated = structuredClone(pack);
        const node = mutated.automations![ai].document.graph.nodes[ni];
        const typo = `${r.id}~typo`;
        const [, , field, index] = r.path.split('/');
        const config = node.config as Record<string, unknown>;
        if (index === undefined) config[field] = typo;
        else (config[field] as string[])[Number(index)] = typo;

        const found = validatePack(mutated).diagnostics.filter((d) => d.code === 'reference/unresolved-id');
        expect(found.map((d) => d.pointer)).toEqual([`/automations/${ai}/document/graph/nodes/${ni}${r.path}`]);
        expect(found[0].severity).toBe('warning');
        const planned = plan(mutated, null, emptyWorkspace(mutated));
        const refused = planned.errors.filter((e) => e.code === 'plan/unresolved-id');
        expect(refused).toHaveLength(1);
        expect(refused[0].message).toContain(`node "${node.id}" is "${typo}"`);
        expect(planned.ok).toBe(false);
      }),
      { numRuns, seed },
    );
  });
});
