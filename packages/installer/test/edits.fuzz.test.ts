// The promise after the first install, as properties (docs/install.md): what an upgrade does with
// the user's hand edits, and what two packs that share objects do to each other.
//   1. A generated pack is installed into a fresh workspace; a user edits some of its objects
//      through the REST API (renames one, changes one's content — a tag's colour, a template's
//      body, a pipeline's stage order —, removes a pipeline's stage, switches an automation on,
//      deletes one); the pack is upgraded to a generated next release, with and without
//      --overwrite and --prune. A plan fails only for a stage a kept pipeline lacks, naming
//      --overwrite, which then goes ahead. Each item gets the documented action
//      (edited: a conflict, kept or overwritten; deleted: created again; gone from the release:
//      an orphan, removed by prune only when unedited), a kept edit is left as the user made it,
//      every other object is as the ledger records it, a second plan has nothing to write, and
//      once the edits are overwritten the export gives the release back. Uninstalling then keeps
//      exactly the edited objects.
//   2. Two generated packs installed into one workspace, the second holding exact copies of some
//      of the first's items (adopted) and referring to some of its resources by name (bound).
//      Both re-plan to nothing and export back; then one is uninstalled or upgraded (--prune
//      too): what the other holds stays, with the reason, and the other still re-plans to nothing
//      and exports back the same.
// FUZZ_RUNS sequences (a small default in npm test, 10,000 in npm run fuzz); FUZZ_SEED replays one.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalize,
  COLLECTION_PATH,
  contentHash,
  normalizeName,
  projectWorkspaceObject,
  roundTripForm,
  validatePack,
  type InstallLedger,
  type Pack,
  type PlanStep,
  type WorkspaceCollection,
} from '@setup-pack/core';
import { editRequest, fuzzConfig, handEdits, LIMITS, nextRelease, sharingPack, validPack, withCopiesOf } from '@setup-pack/testkit';
import { exportWorkspace, fetchSnapshot, install, planInstall, readLedger, uninstall, type WorkspaceClient } from '../src/index.js';
import { defaultNames, fuzzWorkspace, namesOf, useServer } from './harness.js';

const server = useServer();
const STAMP = '2026-11-22T12:00:00Z';

const errorsOf = (pack: Pack) =>
  validatePack(pack)
    .diagnostics.filter((d) => d.severity === 'error')
    .map((d) => `${d.code} ${d.pointer}: ${d.message}`);
const writesOf = (steps: PlanStep[]) => steps.filter((s) => s.write).map((s) => `${s.action} ${s.itemId}: ${s.reason}`);

/** The workspace's copy of every object a ledger holds, projected as the planner hashes it (undefined: gone). */
async function copies(c: WorkspaceClient, ledger: InstallLedger): Promise<Map<string, string | undefined>> {
  const collections = [...new Set(Object.values(ledger.items).map((i) => i.collection))].sort() as WorkspaceCollection[];
  const snapshot = await fetchSnapshot(c, collections);
  const out = new Map<string, string | undefined>();
  for (const [id, item] of Object.entries(ledger.items)) {
    const obj = (snapshot.collections[item.collection] ?? []).find((o) => o.id === item.workspaceId);
    out.set(id, obj && contentHash(projectWorkspaceObject(item.collection, obj)));
  }
  return out;
}

/** Ids of every object of the collections given, as the workspace lists them. */
async function objectIds(c: WorkspaceClient, collections: WorkspaceCollection[]): Promise<Set<string>> {
  const snapshot = await fetchSnapshot(c, collections);
  return new Set(Object.values(snapshot.collections).flatMap((list) => (list ?? []).map((o) => o.id)));
}

const exported = async (c: WorkspaceClient, packId: string) => {
  const r = await exportWorkspace(c, { packId, exportedAt: STAMP });
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const { exportedAt: _at, ...rest } = r.pack;
  return canonicalize(rest);
};

/** A second plan with the same options writes nothing and creates or updates nothing. */
async function replansToNothing(c: WorkspaceClient, pack: Pack, options: { overwrite?: boolean; prune?: boolean } = {}) {
  const again = await planInstall(c, pack, options);
  expect(again.plan.errors).toEqual([]);
  expect(writesOf(again.plan.steps)).toEqual([]);
}

/** Names that must not repeat within a collection for the expectations to be exact (a repeat is the adoption rules' business, tested elsewhere). */
function namesClash(packs: Pack[], taken: Set<string>): boolean {
  const seen = new Set<string>();
  for (const pack of packs) {
    for (const n of namesOf(pack)) {
      const k = normalizeName(n);
      if (taken.has(k) || seen.has(k)) return true;
      seen.add(k);
    }
  }
  return false;
}

describe('hand edits in the workspace, then an upgrade to the next release', () => {
  const { numRuns, seed, timeoutMs } = fuzzConfig('install → hand edits → upgrade', 8);
  it(
    `keeps, reports or overwrites each edit as documented, for ${numRuns} generated sequences`,
    async () => {
      const taken = await defaultNames(await fuzzWorkspace(server()));
      const sequence = validPack({ maxItems: 2 }).chain((v1) =>
        fc.record({ v1: fc.constant(v1), v2: nextRelease(v1), edits: handEdits(4), overwrite: fc.boolean(), prune: fc.boolean() }),
      );
      await fc.assert(
        fc.asyncProperty(sequence, async ({ v1, v2, edits, overwrite: asked, prune }) => {
          let overwrite = asked;
          fc.pre(!namesClash([v1], taken) && !namesClash([v2], taken));
          expect(errorsOf(v2)).toEqual([]);
          const c = await fuzzWorkspace(server());
          await install(c, v1);
          const ledger1 = (await readLedger(c, v1.packId))!.ledger;
          const ids = Object.keys(ledger1.items).sort();

          // The user's edits, one an object at most.
          const edited = new Map<string, string>(); // itemId → hash of the edited copy
          const deleted = new Set<string>();
          let n = 0;
          for (const e of edits) {
            if (!ids.length) break;
            const id = ids[e.pick % ids.length];
            if (edited.has(id) || deleted.has(id)) continue;
            const item = ledger1.items[id];
            const obj = (await fetchSnapshot(c, [item.collection])).collections[item.collection]!.find((o) => o.id === item.workspaceId)!;
            const req = editRequest(item.collection, obj, e, ++n);
            if (!req) continue;
            const path = `${COLLECTION_PATH[item.collection]}/${encodeURIComponent(item.workspaceId)}`;
            if (req.method === 'DELETE') {
              await c.delete(path);
              deleted.add(id);
            } else if (req.method === 'POST') await c.post(`${path}${req.path}`);
            else await c.patch(path, req.body);
          }
          for (const [id, hash] of await copies(c, ledger1)) {
            if (deleted.has(id)) continue;
            if (hash !== ledger1.items[id].hash) edited.set(id, hash!);
          }

          // A pipeline edited by hand, kept, that lacks a stage an automation being written uses: the
          // plan fails before any write, naming the stage and --overwrite; with it, the upgrade goes ahead.
          // (An automation left unchanged that names a stage removed by hand is a warning, below.)
          const first = await planInstall(c, v2, { overwrite, prune });
          if (!first.plan.ok) {
            expect(overwrite).toBe(false);
            for (const e of first.plan.errors)
              expect(`${e.code}: ${e.message}`).toMatch(
                /^plan\/unresolved-reference: deal_stage .* has no such stage in the workspace, where it was edited since it was installed and is kept; --overwrite replaces it/,
              );
            expect(first.plan.errors.length).toBeGreaterThan(0);
            expect((await readLedger(c, v1.packId))!.ledger).toEqual(ledger1);
            overwrite = true;
          }
          const options = { overwrite, prune };
          const up = await install(c, v2, options);
          // Each item's step (the first: an automation in a cycle has a second write that completes it).
          const stepOf = new Map<string, PlanStep>();
          for (const s of up.plan.steps) if (!stepOf.has(s.itemId)) stepOf.set(s.itemId, s);
          // An item whose key the release renamed took over its old key's entry (planned under the new key).
          const carried = new Set(up.plan.steps.filter((s) => s.renamedFrom !== undefined).map((s) => `${s.kind}:${s.renamedFrom}`));
          // Warnings are about what the plan leaves as it is: an unchanged automation naming a removed
          // stage of a kept pipeline; an orphan --prune keeps; an adopted object, never written.
          for (const w of up.plan.warnings) {
            const s = stepOf.get(w.item.itemId);
            const expected = {
              'plan/missing-stage': { action: 'unchanged', write: false },
              'plan/prune-kept': { action: 'orphan', write: false },
              'plan/adopted-differs': { action: 'adopt', write: false },
            }[w.code];
            expect({ warning: w.message, action: s?.action, write: s?.write }).toEqual({ warning: w.message, ...expected });
            if (w.code === 'plan/prune-kept') expect(prune).toBe(true);
            if (w.code === 'plan/missing-stage') expect(overwrite).toBe(false);
          }
          for (const id of ids) {
            if (carried.has(id)) continue;
            const s = stepOf.get(id)!;
            const gone = s.reason.startsWith('gone from the release');
            const what = `${id} (${deleted.has(id) ? 'deleted' : edited.has(id) ? 'edited' : 'untouched'}): ${s.action} ${s.reason}`;
            if (deleted.has(id))
              expect(what).toMatch(
                gone ? /: remove gone from the release and from the workspace$/ : /: create missing from the workspace$/,
              );
            else if (edited.has(id)) {
              if (gone) expect(what).toMatch(/: orphan gone from the release, edited in the workspace: kept$/);
              else
                expect({ what, action: s.action, resolution: s.resolution, write: s.write }).toEqual({
                  what,
                  action: 'conflict',
                  resolution: overwrite ? 'overwrite' : 'keep',
                  write: overwrite,
                });
            } else if (gone)
              expect({ what, action: s.action, write: s.write }).toEqual({ what, action: prune ? 'remove' : 'orphan', write: prune });
            else expect(what).toMatch(/: (unchanged|update) /);
          }

          // What the upgrade left: a kept edit as the user made it; every other object as the ledger records it.
          const ledger2 = (await readLedger(c, v2.packId))!.ledger;
          expect(ledger2.version).toBe(v2.version);
          const now = await copies(c, ledger2);
          for (const [id, hash] of now) {
            const keptEdit = edited.has(id) && (!overwrite || stepOf.get(id)?.action === 'orphan');
            if (keptEdit) expect({ id, hash }).toEqual({ id, hash: edited.get(id) });
            else expect({ id, hash }).toEqual({ id, hash: ledger2.items[id].hash });
          }
          for (const s of up.plan.steps.filter((x) => x.action === 'remove')) expect(ledger2.items[s.itemId], s.itemId).toBeUndefined();
          const removedIds = up.plan.steps.filter((x) => x.action === 'remove' && x.write).map((x) => x.workspaceId!);
          const left = await objectIds(c, [...new Set(Object.values(ledger1.items).map((i) => i.collection))]);
          for (const w of removedIds) expect(left.has(w), w).toBe(false);
          await replansToNothing(c, v2, options);

          // With every edit overwritten and nothing of the old release left over, the export is the release.
          const leftOver = Object.keys(ledger2.items).some((id) => stepOf.get(id)?.action === 'orphan');
          if ((overwrite || edited.size === 0) && !leftOver) expect(await exported(c, v2.packId)).toEqual(roundTripForm(v2));

          // Uninstalling keeps what is edited (and the media a kept item shows), removes the rest.
          const kept = new Set([...now].filter(([id, hash]) => hash !== undefined && hash !== ledger2.items[id].hash).map(([id]) => id));
          const un = await uninstall(c, v2.packId);
          for (const s of un.kept) expect(kept.has(s.itemId) || s.kind === 'asset', `${s.itemId}: ${s.reason}`).toBe(true);
          for (const id of kept) expect(un.kept.map((s) => s.itemId)).toContain(id);
          const after = await objectIds(c, [...new Set(Object.values(ledger2.items).map((i) => i.collection))]);
          for (const s of un.plan.steps.filter((x) => x.write)) expect(after.has(s.workspaceId!), s.itemId).toBe(false);
          expect(await readLedger(c, v2.packId)).toBeNull();
        }),
        { numRuns, seed, endOnFailure: true },
      );
    },
    timeoutMs(8_000),
  );
});

const shared = (k: string) => [...`shared ${k}`].slice(0, LIMITS.key).join('');

/** What `other`'s ledger holds of the objects of `ledger`'s items: adopted, or bound a reference to (to it or one of its stages). */
function holding(ledger: InstallLedger, otherLedger: InstallLedger, other: Pack) {
  const held = new Set([...Object.values(otherLedger.items).map((i) => i.workspaceId), ...Object.values(otherLedger.bindings)]);
  const holds = (id: string) => [ledger.items[id].workspaceId, ...Object.values(ledger.items[id].stages ?? {})].some((w) => held.has(w));
  return { held, holds, heldReason: `used by the installed pack "${other.name}" (${other.packId}): kept` };
}

/**
 * Uninstalls `x` beside `y` (installed as `yRelease`): each item it owns is removed, or kept with
 * the reason when `y` holds it; what it adopted stays; nothing `y` holds is removed; `y` still
 * re-plans to nothing and, when its ledger holds nothing its release lacks, exports as its release.
 */
async function uninstallKeepsWhatIsHeld(c: WorkspaceClient, x: Pack, y: Pack, yRelease: Pack, yOptions: { prune?: boolean } = {}) {
  const lx = (await readLedger(c, x.packId))!.ledger;
  const ly = (await readLedger(c, y.packId))!.ledger;
  const { held, holds, heldReason } = holding(lx, ly, y);
  const r = await uninstall(c, x.packId);
  for (const s of r.plan.steps) {
    const item = lx.items[s.itemId];
    const want = !item.owned ? 'adopt' : holds(s.itemId) ? 'orphan' : 'remove';
    expect({ item: s.itemId, action: s.action }).toEqual({ item: s.itemId, action: want });
    if (want === 'orphan') expect(s.reason).toBe(heldReason);
  }
  expect(await readLedger(c, x.packId)).toBeNull();
  const left = await objectIds(c, [...new Set([...Object.values(lx.items), ...Object.values(ly.items)].map((i) => i.collection))].sort());
  for (const s of r.plan.steps) {
    if (s.write)
      expect({ removed: s.itemId, left: left.has(s.workspaceId!), held: held.has(s.workspaceId!) }).toEqual({
        removed: s.itemId,
        left: false,
        held: false,
      });
    else if (s.action !== 'remove') expect({ kept: s.itemId, left: left.has(s.workspaceId!) }).toEqual({ kept: s.itemId, left: true });
  }
  await replansToNothing(c, yRelease, yOptions);
  const wanted = new Set((await planInstall(c, yRelease, yOptions)).plan.steps.filter((s) => s.action !== 'orphan').map((s) => s.itemId));
  if (Object.keys((await readLedger(c, y.packId))!.ledger.items).every((id) => wanted.has(id)))
    expect(await exported(c, y.packId)).toEqual(roundTripForm(yRelease));
}

/** The second pack's copies of the first's items (\`shared …\` keys): adopted, so its release keeps them as they are. */
const sharedOf = (b: Pack) =>
  new Set(
    (['resources', 'pipelines', 'messageTemplates', 'smartLists'] as const).flatMap((l) =>
      (b[l] ?? []).filter((x) => x.key.startsWith('shared ')).map((x) => `${l}/${x.key}`),
    ),
  );

type Act = 'uninstall first' | 'uninstall second' | 'upgrade first' | 'upgrade second';

describe('two packs sharing objects in one workspace', () => {
  const { numRuns, seed, timeoutMs } = fuzzConfig('two packs sharing objects → uninstall or upgrade one', 5);
  it(
    `each keeps what the other holds and still installs and exports the same, for ${numRuns} generated pairs`,
    async () => {
      const taken = await defaultNames(await fuzzWorkspace(server()));
      const pairs = validPack({ maxItems: 2 }).chain((a) =>
        sharingPack(a).chain((b) => {
          // The first pack's items the second holds stay as they are in its next release (the
          // second would otherwise export another pack's change); dropping them is fine.
          const frozen = new Set<string>();
          for (const l of ['resources', 'pipelines', 'messageTemplates', 'smartLists'] as const) {
            for (const item of a[l] ?? [])
              if (
                (b[l] ?? []).some(
                  (x: { key: string }) => x.key !== item.key && JSON.stringify({ ...x, key: '' }) === JSON.stringify({ ...item, key: '' }),
                )
              )
                frozen.add(`${l}/${item.key}`);
          }
          const byName = new Set((b.automations ?? []).flatMap((x) => (x.document.references ?? []).map((r) => r.name)));
          for (const r of a.resources ?? []) if (byName.has(r.name)) frozen.add(`resources/${r.key}`);
          return fc.record({
            a: fc.constant(a),
            b: fc.constant(b),
            a2: nextRelease(a, { frozen }).chain((r) => withCopiesOf(r, b)),
            b2: nextRelease(b, { frozen: sharedOf(b) }),
            act: fc.constantFrom<Act>('uninstall first', 'uninstall second', 'upgrade first', 'upgrade second'),
            prune: fc.boolean(),
          });
        }),
      );
      await fc.assert(
        fc.asyncProperty(pairs, async ({ a, b, a2, b2, act, prune }) => {
          // Each name once across both packs but for the second pack's copies of the first's items.
          const own = structuredClone(b);
          for (const l of ['resources', 'pipelines', 'messageTemplates', 'smartLists'] as const) {
            own[l] = (own[l] ?? []).filter(
              (x: { key: string; name: string }) =>
                !(a[l] ?? []).some((y: { key: string; name: string }) => y.name === x.name && y.key !== x.key),
            ) as never;
          }
          own.automations = (own.automations ?? []).filter((x) => x.key !== 'shared by name');
          fc.pre(!namesClash([a, own], taken) && !namesClash([a2], taken) && !namesClash([b2], taken));
          fc.pre(a.packId !== b.packId);
          expect(errorsOf(b)).toEqual([]);
          expect(errorsOf(a2)).toEqual([]);
          expect(errorsOf(b2)).toEqual([]);

          const c = await fuzzWorkspace(server());
          await install(c, a);
          const fromB = await install(c, b);
          const la = (await readLedger(c, a.packId))!.ledger;
          // Every exact copy is adopted: bound to the first pack's object, not made twice.
          for (const s of fromB.plan.steps.filter((x) => x.key.startsWith('shared ') && x.key !== 'shared by name')) {
            const original = Object.values(la.items).find((i) => i.kind === s.kind && shared(i.key) === s.key);
            expect({ item: s.itemId, action: s.action, workspaceId: s.workspaceId }).toEqual({
              item: s.itemId,
              action: 'adopt',
              workspaceId: original?.workspaceId,
            });
          }
          // A reference by name binds to the first pack's object: by its name, or, where the second
          // pack carries a copy of it (adopted, so the same object), through that copy, which a
          // reference of its name binds to first (docs/install.md).
          const aIds = new Set(Object.values(la.items).map((i) => i.workspaceId));
          const objectOf = (t: (typeof fromB.plan.bindings)[number]['target']) =>
            'workspaceId' in t ? t.workspaceId : fromB.plan.steps.find((x) => x.itemId === t.itemId)?.workspaceId;
          for (const bd of fromB.plan.bindings.filter((x) => x.id.startsWith('by-name-'))) {
            const carried =
              'itemId' in bd.target &&
              fromB.plan.steps.some((x) => x.itemId === (bd.target as { itemId: string }).itemId && x.action === 'adopt');
            expect({ id: bd.id, source: bd.source, inFirst: aIds.has(objectOf(bd.target) ?? '') }).toEqual({
              id: bd.id,
              source: carried ? 'pack' : 'name',
              inFirst: true,
            });
          }

          await replansToNothing(c, a);
          await replansToNothing(c, b);
          expect(await exported(c, a.packId)).toEqual(roundTripForm(a));
          expect(await exported(c, b.packId)).toEqual(roundTripForm(b));

          const first = act.endsWith('first');
          const [x, y, x2] = first ? [a, b, a2] : [b, a, b2];
          if (act.startsWith('uninstall')) {
            await uninstallKeepsWhatIsHeld(c, x, y, y);
            return;
          }
          const lx = (await readLedger(c, x.packId))!.ledger;
          const ly = (await readLedger(c, y.packId))!.ledger;
          const { holds, heldReason } = holding(lx, ly, y);
          const r = await install(c, x2, { prune });
          for (const s of r.plan.steps.filter((st) => st.reason.startsWith('gone from the release'))) {
            const item = lx.items[s.itemId];
            const want = !item.owned ? 'remove' : prune && !holds(s.itemId) ? 'remove' : 'orphan';
            expect({ item: s.itemId, action: s.action, write: s.write }).toEqual({
              item: s.itemId,
              action: want,
              write: want === 'remove' && item.owned,
            });
            if (want === 'orphan' && prune) expect(s.reason).toBe(`gone from the release; ${heldReason}`);
            if (want === 'remove' && item.owned) expect(await objectIds(c, [item.collection])).not.toContain(item.workspaceId);
          }
          // The first pack's release holding copies of the second's items adopts them: each pack then holds the other's.
          // (A copy named like an item the release dropped takes over that item's object instead: a
          // renamed key, docs/install.md, "Renamed keys"; generated names repeat now and then.)
          for (const s of r.plan.steps.filter(
            (st) => st.key.startsWith('shared ') && !lx.items[st.itemId] && st.renamedFrom === undefined,
          )) {
            const original = Object.values(ly.items).find((i) => i.kind === s.kind && shared(i.key) === s.key);
            if (original)
              expect({ item: s.itemId, action: s.action, workspaceId: s.workspaceId }).toEqual({
                item: s.itemId,
                action: 'adopt',
                workspaceId: original.workspaceId,
              });
          }
          await replansToNothing(c, x2, { prune });
          await replansToNothing(c, y);
          expect(await exported(c, y.packId)).toEqual(roundTripForm(y));
          // Then the other one goes: what the upgraded pack holds of it stays, and it still installs to nothing and exports as its release.
          await uninstallKeepsWhatIsHeld(c, y, x, x2, { prune });
        }),
        { numRuns, seed, endOnFailure: true },
      );
    },
    timeoutMs(10_000),
  );
});
