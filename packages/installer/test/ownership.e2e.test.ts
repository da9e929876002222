// What an install owns, against the real server: a brand the user set is theirs (kept unless
// --overwrite, never cleared by uninstall); an item whose key a release renames stays the pack's
// own object (carried across, not adopted as a stranger's and then pruned).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalize, itemId, roundTripForm, type Pack, type PlanItemKind } from '@setup-pack/core';
import { exportWorkspace, install, planInstall, readLedger, uninstall, type WorkspaceClient } from '../src/index.js';
import { cli, clientFor, loadPack, useServer } from './harness.js';

const server = useServer();
const STAMP = '2026-11-22T12:00:00Z';
const v100 = loadPack('releases/buyer-lead-1.0.0.json');
const v110 = loadPack('releases/buyer-lead-1.1.0.json');
const listing = loadPack('valid/listing-marketing.json');

async function fresh(): Promise<{ c: WorkspaceClient; env: Record<string, string> }> {
  const ws = await server().workspace();
  return { c: clientFor(server(), ws.key), env: { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key } };
}

/** Writes packs into a fresh folder, for the CLI. */
function files(packs: Record<string, Pack>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sp-ownership-'));
  for (const [name, pack] of Object.entries(packs)) writeFileSync(join(dir, name), JSON.stringify(pack, null, 2));
  return dir;
}

/** A new release of `pack` with one item's key renamed everywhere it is written (its references, filter values…). */
function withKeyRenamed(pack: Pack, from: string, to: string, version: string): Pack {
  const next = JSON.parse(JSON.stringify(pack).split(JSON.stringify(from)).join(JSON.stringify(to))) as Pack;
  next.version = version;
  return next;
}

const exported = async (c: WorkspaceClient, pack: Pack) => {
  const r = await exportWorkspace(c, { packId: pack.packId, exportedAt: STAMP });
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const { exportedAt: _at, ...rest } = r.pack;
  return rest;
};

describe('a brand the workspace already has', () => {
  const mine = { name: 'My Own Realty', primaryColor: '#123456' };

  it('is kept as a conflict by plan and install, never cleared by uninstall; --overwrite replaces it and then the pack owns it', async () => {
    const { c, env } = await fresh();
    await c.put('/v1/brand', { fields: mine });

    const plan = await cli(['plan', 'valid/listing-marketing.json'], env);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(
      /^ {2}! brand brand "Harbor Realty" \(the workspace's own brand "My Own Realty", not set by this pack, so the pack's brand image logo is not uploaded either: kept \(--overwrite replaces it\)\)$/m,
    );
    expect(plan.stdout).not.toMatch(/\+ brand/);
    expect(plan.stdout).not.toMatch(/\+ media logo/);

    const inst = await cli(['install', 'valid/listing-marketing.json'], env);
    expect(inst.code).toBe(0);
    expect((await c.get<any>('/v1/brand')).fields).toEqual(mine);
    expect((await readLedger(c, listing.packId))!.ledger.items['brand:brand']).toBeUndefined();
    const again = await cli(['plan', 'valid/listing-marketing.json', '--detailed-exitcode'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^No changes\. .*, 1 of the workspace's own kept\.$/m);

    // The export of the install is what the pack installed: the brand is not among it.
    expect((await exported(c, listing)).brand).toBeUndefined();

    const un = await cli(['uninstall', listing.packId], env);
    expect(un.code).toBe(0);
    expect((await c.get<any>('/v1/brand')).fields).toEqual(mine);

    // Asked for: replaced, and the pack's own from then on (uninstall clears what it wrote).
    const over = await cli(['install', 'valid/listing-marketing.json', '--overwrite'], env);
    expect(over.code).toBe(0);
    expect(over.stdout).toMatch(
      /! brand brand "Harbor Realty" \(the workspace's own brand "My Own Realty", not set by this pack: overwritten \(--overwrite\)\)/,
    );
    expect((await c.get<any>('/v1/brand')).fields.name).toBe('Harbor Realty');
    expect((await readLedger(c, listing.packId))!.ledger.items['brand:brand']).toMatchObject({ owned: true });
    expect(canonicalize(await exported(c, listing))).toEqual(roundTripForm(listing));
    await uninstall(c, listing.packId);
    expect((await c.get<any>('/v1/brand')).fields).toBeNull();
  });

  it("the export of an install that kept the workspace's brand leaves out the pack's brand images too, and says so", async () => {
    const ws = await server().workspace();
    const downloads: string[] = [];
    const c = clientFor(server(), ws.key, {
      fetch: async (input, init) => {
        const m = /\/v1\/media\/([^/]+)\/content$/.exec(String(input));
        if (m) downloads.push(decodeURIComponent(m[1]));
        return fetch(input, init);
      },
    });
    await c.put('/v1/brand', { fields: mine });
    await install(c, listing);
    downloads.length = 0;
    const r = await exportWorkspace(c, { packId: listing.packId, exportedAt: STAMP });
    expect(r.diagnostics).toEqual([]);
    expect(r.pack.brand).toBeUndefined();
    // The logo was the brand's; the brand is the workspace's own, so nothing in the export uses it.
    // The email image a template shows stays.
    expect(r.pack.assets!.map((a) => `${a.key} ${a.role}`)).toEqual(['open-house-hero email_image']);
    expect(r.notes).toEqual([
      {
        item: 'brand',
        message: "not set by this install (the workspace keeps its own brand): left out, and so is the pack's brand image logo",
      },
    ]);
    // Nor is the logo downloaded: the one media file read is the email image.
    const media = await c.listAll<any>('/v1/media');
    expect(downloads).toEqual([media.find((m) => m.file_name === 'open-house-hero.png').id]);
    // Nor was the logo uploaded: nothing the install wrote shows it.
    expect(media.map((m) => m.file_name)).toEqual(['open-house-hero.png']);
    expect(r.requests).toBe(r.minimumRequests);
    // Installed back, it has nothing to write.
    const { plan } = await planInstall(c, r.pack);
    expect(plan.ok).toBe(true);
    expect(plan.writes).toBe(0);
    // Once the pack's brand is set (--overwrite), the brand and its logo export back.
    await install(c, listing, { overwrite: true });
    expect(canonicalize(await exported(c, listing))).toEqual(roundTripForm(listing));
  });

  it("a workspace with no brand gets the pack's, owned: it exports back and uninstall clears it", async () => {
    const { c } = await fresh();
    const r = await install(c, listing);
    expect(r.plan.steps.find((s) => s.itemId === 'brand:brand')).toMatchObject({ action: 'create', write: true });
    expect((await c.get<any>('/v1/brand')).fields.name).toBe('Harbor Realty');
    expect(canonicalize(await exported(c, listing))).toEqual(roundTripForm(listing));
    await uninstall(c, listing.packId);
    expect((await c.get<any>('/v1/brand')).fields).toBeNull();
  });

  it("a brand another pack wrote is not this pack's either", async () => {
    const { c } = await fresh();
    await install(c, listing);
    const other = { ...structuredClone(listing), packId: '0d6f3c1e-5b2a-4c8d-9e7f-1a2b3c4d5e6f', name: 'Other brokerage' };
    other.brand = { ...other.brand, name: 'Other Brokerage' };
    const r = await install(c, other);
    expect(r.plan.steps.find((s) => s.itemId === 'brand:brand')).toMatchObject({ action: 'conflict', resolution: 'keep', write: false });
    await uninstall(c, other.packId);
    expect((await c.get<any>('/v1/brand')).fields.name).toBe('Harbor Realty');
  });
});

describe('an item whose key a release renames', () => {
  it("tag-hot → tag-hot-lead with --prune: the same tag, still the pack's, exported under the new key; diff and re-plan show nothing", async () => {
    const { c, env } = await fresh();
    // 1.1.0 as released, but keeping 1.0.0's "Hot lead" tag under a new key.
    const next = structuredClone(v110);
    next.resources!.push({ ...structuredClone(v100.resources!.find((r) => r.key === 'tag-hot')!), key: 'tag-hot-lead' });
    const dir = files({ 'v100.json': v100, 'v110.json': next });
    expect((await cli(['install', 'v100.json'], env, dir)).code).toBe(0);
    const hot = (await c.listAll<any>('/v1/tags')).find((t) => t.name === 'Hot lead');

    const plan = await cli(['plan', 'v110.json', '--prune', '--all'], env, dir);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/^ {2}= resource tag-hot-lead "Hot lead" \(up to date; key renamed from tag-hot\)$/m);
    expect(plan.stdout).not.toMatch(/resource tag-hot "/);
    const up = await cli(['install', 'v110.json', '--prune'], env, dir);
    expect(up.code).toBe(0);

    const tags = (await c.listAll<any>('/v1/tags')).filter((t) => t.name === 'Hot lead');
    expect(tags.map((t) => t.id)).toEqual([hot.id]);
    const ledger = (await readLedger(c, v100.packId))!.ledger;
    expect(ledger.items['resource:tag-hot']).toBeUndefined();
    expect(ledger.items['resource:tag-hot-lead']).toMatchObject({ workspaceId: hot.id, owned: true });

    const replan = await cli(['plan', 'v110.json', '--prune', '--detailed-exitcode'], env, dir);
    expect(replan.code).toBe(0);
    expect(replan.stdout).toMatch(/^No changes\./m);

    const out = await exported(c, next);
    expect(canonicalize(out)).toEqual(roundTripForm(next));
    writeFileSync(join(dir, 'exported.json'), JSON.stringify({ ...out, exportedAt: next.exportedAt }, null, 2));
    const diff = await cli(['diff', 'v110.json', 'exported.json', '--exit-code'], env, dir);
    expect(diff.code).toBe(0);

    // A later release that changes it updates it as the pack's own.
    const later = structuredClone(next);
    later.version = '1.2.0';
    later.resources!.find((r) => r.key === 'tag-hot-lead')!.data = { color: '#ff0000' };
    const r = await install(c, later, { prune: true });
    expect(r.plan.steps.find((s) => s.itemId === 'resource:tag-hot-lead')).toMatchObject({ action: 'update', workspaceId: hot.id });
    expect((await c.listAll<any>('/v1/tags')).find((t) => t.id === hot.id).color).toBe('#ff0000');

    await uninstall(c, v100.packId);
    expect((await c.listAll<any>('/v1/tags')).some((t) => t.id === hot.id)).toBe(false);
  });

  // Every kind of item the planner matches to a workspace object by name.
  const cases: [string, Pack, string, PlanItemKind][] = [
    ['tag', v100, 'tag-buyer-lead', 'resource'],
    ['contact stage', v100, 'stage-nurture', 'resource'],
    ['lead source', v100, 'src-zillow', 'resource'],
    ['custom field', listing, 'cf-listing-interest', 'resource'],
    ['email template resource', listing, 'brochure', 'resource'],
    ['pipeline', v100, 'buyer-pipeline', 'pipeline'],
    ['message template', v100, 'tpl-follow-up', 'template'],
    ['smart list', v100, 'new-buyer-leads', 'smartList'],
    ['automation', v100, 'old-reminder', 'automation'],
    ['media', listing, 'open-house-hero', 'asset'],
  ];
  for (const [label, pack, from, kind] of cases) {
    it(`${label}: install --prune keeps the object under the new key, exports it back, re-plans to nothing`, async () => {
      const { c } = await fresh();
      const next = withKeyRenamed(pack, from, `${from}-renamed`, '9.0.0');
      await install(c, pack);
      const before = (await readLedger(c, pack.packId))!.ledger.items[itemId(kind, from)];
      const r = await install(c, next, { prune: true });
      expect(r.plan.summary).toMatchObject({ create: 0, remove: 0 });
      expect(r.written).toBe(0);
      const ledger = (await readLedger(c, pack.packId))!.ledger;
      expect(ledger.items[itemId(kind, from)]).toBeUndefined();
      expect(ledger.items[itemId(kind, `${from}-renamed`)]).toMatchObject({ workspaceId: before.workspaceId, owned: before.owned });
      expect(canonicalize(await exported(c, next))).toEqual(roundTripForm(next));
      const again = (await planInstall(c, next, { prune: true })).plan;
      expect(again.hasChanges).toBe(false);
    });
  }

  // The user renamed the object by hand as well: its name no longer is the pack's, so matching on
  // it missed the object. Before, the release created a second object and kept the first as an
  // edited orphan; what the ledger recorded writing finds it.
  const renamedByHand: [string, string, string, PlanItemKind][] = [
    ['message template', '/v1/message-templates', 'tpl-follow-up', 'template'],
    ['tag', '/v1/tags', 'tag-buyer-lead', 'resource'],
  ];
  for (const [label, path, from, kind] of renamedByHand) {
    it(`${label} renamed by hand: the renamed key carries it across as a conflict kept, no second object; --overwrite writes it back`, async () => {
      const { c } = await fresh();
      await install(c, v100);
      const before = (await readLedger(c, v100.packId))!.ledger.items[itemId(kind, from)];
      await c.patch(`${path}/${before.workspaceId}`, { name: 'Mine now' });
      const count = (await c.listAll<any>(path)).length;
      const next = withKeyRenamed(v100, from, `${from}-renamed`, '9.0.0');
      const r = await install(c, next, { prune: true });
      const step = r.plan.steps.find((s) => s.itemId === itemId(kind, `${from}-renamed`))!;
      expect(step).toMatchObject({
        action: 'conflict',
        resolution: 'keep',
        write: false,
        workspaceId: before.workspaceId,
        renamedFrom: from,
      });
      expect(r.plan.steps.filter((s) => s.itemId === itemId(kind, from))).toEqual([]);
      expect(r.plan.summary).toMatchObject({ create: 0, remove: 0, orphan: 0 });
      expect((await c.listAll<any>(path)).length).toBe(count);
      const nameNow = async () => (await c.listAll<any>(path)).find((o) => o.id === before.workspaceId).name;
      expect(await nameNow()).toBe('Mine now');
      const ledger = (await readLedger(c, v100.packId))!.ledger;
      expect(ledger.items[itemId(kind, from)]).toBeUndefined();
      expect(ledger.items[itemId(kind, `${from}-renamed`)]).toMatchObject({ workspaceId: before.workspaceId, owned: true });
      const over = await install(c, next, { overwrite: true });
      expect(over.plan.summary).toMatchObject({ create: 0 });
      expect(await nameNow()).not.toBe('Mine now');
    });
  }
});
