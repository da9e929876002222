// Two installs into one workspace at the same time, as real `setup-pack install` processes against
// the real server: two packs that share objects (a tag, a pipeline, a template of one name) must
// not both create them, and the same pack twice must not run twice.
import { spawn } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COLLECTION_PATH, LIST_PATH, type LedgerItem, type Pack } from '@setup-pack/core';
import { install, listLedgers, readLedger, type WorkspaceClient } from '../src/index.js';
import { cli, clientFor, duplicateNames, loadPack, proxyTo, useServer } from './harness.js';

const BIN = fileURLToPath(new URL('../../cli/bin/setup-pack.js', import.meta.url));
const listing = loadPack('valid/listing-marketing.json');
/** Another pack made of the same objects: installed after the listing pack, it adopts every one of them. */
const twin: Pack = { ...listing, packId: '0b7e5a52-2f8c-4c1e-9a57-7d1f3e2b6c90', name: 'Listing twin' };

const server = useServer();

const DIR = mkdtempSync(join(tmpdir(), 'sp-concurrent-'));
const FILE = { listing: join(DIR, 'listing.json'), twin: join(DIR, 'twin.json') };
writeFileSync(FILE.listing, JSON.stringify(listing));
writeFileSync(FILE.twin, JSON.stringify(twin));

/** A `setup-pack` process (`install <file>`, `uninstall <packId>`…); resolves with its exit code and output. */
function cliProcess(args: string[], url: string, key: string) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, WORKSPACE_URL: url, WORKSPACE_API_KEY: key, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((r) =>
    child.on('close', (code) => r({ code, stdout, stderr })),
  );
}

const installProcess = (file: string, url: string, key: string) => cliProcess(['install', file], url, key);

/** A promise and the function that settles it. */
function latch() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

/**
 * A proxy in front of the server that holds back every request `hold` picks until `release()`
 * (the rest go through): a run that goes through it can be stopped at one point of its way, while
 * another run goes ahead. `arrived` settles when the first such request comes.
 */
async function holdingProxy(hold: (req: IncomingMessage) => boolean) {
  const arrived = latch();
  const gate = latch();
  const proxy = await proxyTo(server().base, async (req) => {
    if (hold(req)) {
      arrived.open();
      await gate.opened;
    }
    return false;
  });
  return {
    base: proxy.base,
    arrived: arrived.opened,
    release: gate.open,
    close: async () => {
      gate.open();
      await proxy.close();
    },
  };
}

/** A lock request of an install or uninstall run (POST /v1/install-ledgers/{pack_id}/lock). */
const lockRequest = (req: IncomingMessage) => req.method === 'POST' && !!req.url?.endsWith('/lock');

/** Both packs installed once each, nothing duplicated, nothing left to do. */
async function expectBothInstalled(c: WorkspaceClient) {
  expect(await duplicateNames(c)).toEqual([]);
  const ledgers = await listLedgers(c);
  expect(ledgers.map((r) => [r.pack_id, r.ledger?.state, r.lock]).sort()).toEqual(
    [
      [twin.packId, 'installed', null],
      [listing.packId, 'installed', null],
    ].sort(),
  );
  expect((await install(c, listing)).plan.hasChanges).toBe(false);
  expect((await install(c, twin)).plan.hasChanges).toBe(false);
}

describe('two packs that share objects, installed at the same time', () => {
  it('a run that planned before the other finished plans again once it has its lock: it adopts what the other created, no duplicates', async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    // The twin's process plans on the empty workspace; its lock request is held until the listing pack is installed.
    const proxy = await holdingProxy(lockRequest);
    try {
      const second = installProcess(FILE.twin, proxy.base, ws.key);
      await proxy.arrived;
      const first = await cli(['install', FILE.listing], { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key });
      expect(first.code).toBe(0);
      proxy.release();
      const r = await second;
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    } finally {
      await proxy.close();
    }
    await expectBothInstalled(c);
    // The twin adopted the listing pack's objects: it owns none of them.
    const twinLedger = (await listLedgers(c)).find((l) => l.pack_id === twin.packId)!.ledger!;
    expect(Object.values(twinLedger.items).filter((i) => i.owned)).toEqual([]);
  });

  it("a run that takes its lock while another pack's run is writing refuses, writing nothing and naming that run; run again, it adopts", async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    // The listing pack's process holds its lock and is held at its first item write.
    const proxy = await holdingProxy((req) => req.method === 'POST' && !req.url?.startsWith('/v1/install-ledgers'));
    try {
      const first = installProcess(FILE.listing, proxy.base, ws.key);
      await proxy.arrived;
      const [held] = (await listLedgers(c)).filter((l) => l.lock);
      expect(held.pack_id).toBe(listing.packId);
      const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };
      const refused = await cli(['install', FILE.twin], env);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toBe(
        `setup-pack: invalid_request_error (HTTP 409): Another install is in progress in this workspace: pack ${listing.packId} ("${listing.name}") is locked by ${held.lock!.holder} until ${held.lock!.expires_at}; installs into one workspace run one at a time, as packs may share objects; nothing was written: run this one again when it finishes [lock]; if no run is in progress (one crashed or was killed), break it: setup-pack unlock ${listing.packId} ${held.lock!.holder}\n`,
      );
      const json = JSON.parse((await cli(['install', FILE.twin, '--format', 'json'], env)).stdout);
      expect(json.error).toMatchObject({ status: 409, param: 'lock', lock: held.lock });
      // The refused run left nothing: no ledger, no lock, no object.
      expect((await listLedgers(c)).map((l) => l.pack_id)).toEqual([listing.packId]);
      proxy.release();
      const done = await first;
      expect(done.stderr).toBe('');
      expect(done.code).toBe(0);
    } finally {
      await proxy.close();
    }
    const again = await cli(['install', FILE.twin], { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key });
    expect(again.code).toBe(0);
    await expectBothInstalled(c);
  });

  it('started together as two processes: each installs or refuses with the reason, never a duplicate; the refused one then installs', async () => {
    for (const files of [
      [FILE.listing, FILE.twin],
      [FILE.twin, FILE.listing],
    ]) {
      const ws = await server().workspace();
      const c = clientFor(server(), ws.key);
      const runs = await Promise.all(files.map((f) => installProcess(f, server().base, ws.key)));
      expect(await duplicateNames(c)).toEqual([]);
      for (const [i, r] of runs.entries()) {
        if (r.code === 0) continue;
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(
          /^setup-pack: invalid_request_error \(HTTP 409\): Another install (of this pack holds the lock|is in progress in this workspace)/,
        );
        expect((await cli(['install', files[i]], { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key })).code).toBe(0);
      }
      await expectBothInstalled(c);
    }
  });
});

describe('the same pack installed twice at the same time', () => {
  it('runs once: the other process finds it locked (or, later, up to date); one copy of everything, one ledger', async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    const runs = await Promise.all([
      installProcess(FILE.listing, server().base, ws.key),
      installProcess(FILE.listing, server().base, ws.key),
    ]);
    expect(runs.map((r) => r.code)).toContain(0);
    for (const r of runs)
      if (r.code !== 0)
        expect(r.stderr).toMatch(
          /^setup-pack: invalid_request_error \(HTTP 409\): Another install of this pack holds the lock \(setup-pack-[a-z0-9]+\) until /,
        );
    expect(await duplicateNames(c)).toEqual([]);
    const ledgers = await listLedgers(c);
    expect(ledgers).toHaveLength(1);
    expect(ledgers[0]).toMatchObject({ pack_id: listing.packId, lock: null, ledger: { state: 'installed' } });
    expect((await install(c, listing)).plan.hasChanges).toBe(false);
  });
});

/**
 * `setup-pack uninstall <packId>` as a process whose lock request is held (it has read the ledger
 * and planned) while `during` runs; then released, it must finish with code 0 and nothing on stderr.
 */
async function uninstallWhile(key: string, packId: string, during: () => Promise<void>) {
  const proxy = await holdingProxy(lockRequest);
  try {
    const removing = cliProcess(['uninstall', packId], proxy.base, key);
    await proxy.arrived;
    await during();
    proxy.release();
    const r = await removing;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  } finally {
    await proxy.close();
  }
}

describe('an uninstall beside an install', () => {
  it('an uninstall that read the ledger before an upgrade finished reads it again under its lock: it removes what the upgrade added too', async () => {
    const v100 = loadPack('releases/buyer-lead-1.0.0.json');
    const v110 = loadPack('releases/buyer-lead-1.1.0.json');
    const files = { v100: join(DIR, 'buyer-1.0.0.json'), v110: join(DIR, 'buyer-1.1.0.json') };
    writeFileSync(files.v100, JSON.stringify(v100));
    writeFileSync(files.v110, JSON.stringify(v110));
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };
    expect((await cli(['install', files.v100], env)).code).toBe(0);
    // The uninstall process reads the 1.0.0 ledger and plans; its lock request is held until 1.1.0 is installed.
    let upgraded!: Record<string, LedgerItem>;
    await uninstallWhile(ws.key, v100.packId, async () => {
      expect((await cli(['install', files.v110], env)).code).toBe(0);
      upgraded = (await readLedger(c, v100.packId))!.ledger.items;
      expect(upgraded['automation:deal-won-thanks']).toBeDefined();
    });
    expect(await readLedger(c, v100.packId)).toBeNull();
    // Every object the pack owned after the upgrade is gone, the upgrade's new ones too.
    const left: string[] = [];
    for (const [id, item] of Object.entries(upgraded).filter(([, i]) => i.owned)) {
      const path = LIST_PATH[item.collection] ?? COLLECTION_PATH[item.collection];
      if ((await c.listAll<{ id: string }>(path)).some((o) => o.id === item.workspaceId)) left.push(id);
    }
    expect(left).toEqual([]);
  });

  it('an uninstall that planned before another pack adopted its objects keeps them for that pack', async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };
    expect((await cli(['install', FILE.listing], env)).code).toBe(0);
    // The uninstall process plans with no other pack installed; its lock request is held until the twin has adopted everything.
    await uninstallWhile(ws.key, listing.packId, async () => {
      expect((await cli(['install', FILE.twin], env)).code).toBe(0);
    });
    expect(await readLedger(c, listing.packId)).toBeNull();
    const twinLedger = (await readLedger(c, twin.packId))!.ledger;
    expect(Object.values(twinLedger.items).filter((i) => i.owned)).toEqual([]);
    // What the twin adopted is still there: it plans no changes.
    expect((await install(c, twin)).plan.hasChanges).toBe(false);
    expect(await duplicateNames(c)).toEqual([]);
  });
});
