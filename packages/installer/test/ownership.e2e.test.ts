// What an install owns, against the real server: a brand the user set is theirs (kept unless
// --overwrite, never cleared by uninstall).
import { describe, expect, it } from 'vitest';
import { canonicalize, roundTripForm, type Pack } from '@setup-pack/core';
import { exportWorkspace, install, readLedger, uninstall, type WorkspaceClient } from '../src/index.js';
import { cli, clientFor, loadPack, useServer } from './harness.js';

const server = useServer();
const STAMP = '2026-11-22T12:00:00Z';
const listing = loadPack('valid/listing-marketing.json');

async function fresh(): Promise<{ c: WorkspaceClient; env: Record<string, string> }> {
  const ws = await server().workspace();
  return { c: clientFor(server(), ws.key), env: { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key } };
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
    expect(plan.stdout).toMatch(/^ {2}! brand brand "Harbor Realty" \(the workspace's own brand "My Own Realty", not set by this pack: kept \(--overwrite replaces it\)\)$/m);
    expect(plan.stdout).not.toMatch(/\+ brand/);

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
    expect(over.stdout).toMatch(/! brand brand "Harbor Realty" \(the workspace's own brand "My Own Realty", not set by this pack: overwritten \(--overwrite\)\)/);
    expect((await c.get<any>('/v1/brand')).fields.name).toBe('Harbor Realty');
    expect((await readLedger(c, listing.packId))!.ledger.items['brand:brand']).toMatchObject({ owned: true });
    expect(canonicalize(await exported(c, listing))).toEqual(roundTripForm(listing));
    await uninstall(c, listing.packId);
    expect((await c.get<any>('/v1/brand')).fields).toBeNull();
  });

  it('a workspace with no brand gets the pack\'s, owned: it exports back and uninstall clears it', async () => {
    const { c } = await fresh();
    const r = await install(c, listing);
    expect(r.plan.steps.find((s) => s.itemId === 'brand:brand')).toMatchObject({ action: 'create', write: true });
    expect((await c.get<any>('/v1/brand')).fields.name).toBe('Harbor Realty');
    expect(canonicalize(await exported(c, listing))).toEqual(roundTripForm(listing));
    await uninstall(c, listing.packId);
    expect((await c.get<any>('/v1/brand')).fields).toBeNull();
  });

  it('a brand another pack wrote is not this pack\'s either', async () => {
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
