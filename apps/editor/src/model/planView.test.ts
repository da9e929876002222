// The plan preview's words come from core's plan and the installer's wording, whichever thread
// works them out: the same plan, smaller.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { plan, requiredCollections, type Pack } from '@setup-pack/core';
import { describeStep, summaryLine, symbolOf } from '@setup-pack/installer';
import { planView } from './planView.js';

const pack: Pack = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../../fixtures/valid/buyer-lead-starter.json', import.meta.url)), 'utf8'),
);
const collections = requiredCollections(pack, null);
// An empty workspace but for the member the pack's automation names (matched by name).
const empty = {
  ledger: null,
  snapshot: { collections: { ...Object.fromEntries(collections.map((c) => [c, []])), members: [{ id: 'u1', name: 'Jordan Lee' }] } },
  options: { prune: false },
};

describe('planView', () => {
  it("gives core's plan in the installer's words: each step's symbol, name and description, the summary, the references bound", () => {
    const { view, note } = planView(pack, { ...empty, collections });
    const p = plan(pack, null, empty.snapshot, {});
    expect(note).toBeUndefined();
    expect({ ok: view!.ok, summary: view!.summary, errors: view!.errors.map((e) => e.message) }).toEqual({
      ok: p.ok,
      summary: p.ok ? summaryLine(p) : '',
      errors: p.errors.map((e) => e.message),
    });
    expect(view!.steps).toEqual(
      p.steps.map((s) => ({
        itemId: s.itemId,
        kind: s.kind,
        key: s.key,
        action: s.action,
        symbol: symbolOf(s),
        name: s.name,
        description: describeStep(s),
      })),
    );
    expect(view!.steps.length).toBeGreaterThan(3);
    expect(view!.references.map((r) => `${r.type}:${r.id}`)).toEqual(
      p.bindings.filter((b) => b.source !== 'pack').map((b) => `${b.type}:${b.id}`),
    );
    expect(JSON.stringify(view).length).toBeLessThan(JSON.stringify(p).length / 2);
  });

  it("says why there is no plan: a collection the pack uses was not read, or prune waits for the other packs' ledgers", () => {
    expect(planView(pack, { ...empty, collections: collections.slice(1) }).note).toBe(
      'The pack now uses parts of the workspace not read yet: refresh.',
    );
    const ledger = { packId: pack.packId } as never;
    expect(planView(pack, { ...empty, ledger, collections, options: { prune: true } }).note).toMatch(
      /^Reading the packs installed beside this one/,
    );
  });
});
