import type { Pack } from '@setup-pack/core';
import { describe, expect, it } from 'vitest';
import { breakLock, install, InstallStepError, listLedgers, readLedger, WorkspaceApiError, type WorkspaceClient } from '../src/index.js';
import { clientFor, countingFetch, duplicateNames, loadPack, proxyTo, useServer } from './harness.js';
import { generatedPack } from '../src/generate.js';
import { startFaultProxy } from './proxy.js';

const v100 = loadPack('releases/buyer-lead-1.0.0.json');
const v110 = loadPack('releases/buyer-lead-1.1.0.json');
const listing = loadPack('valid/listing-marketing.json');

const server = useServer();

const COLLECTIONS = [
  '/v1/tags',
  '/v1/contact-stages',
  '/v1/lead-sources',
  '/v1/custom-fields',
  '/v1/pipeline-details',
  '/v1/message-templates',
  '/v1/media',
  '/v1/smart-lists',
  '/v1/automations',
  '/v1/members',
];

/**
 * The workspace as comparable data: ids replaced by "collection:name" labels wherever they occur
 * (graph configs, filters), media addresses by their file name, volatile fields dropped, lists
 * sorted. Two workspaces with the same content compare equal whatever their ids.
 */
async function normalizedWorkspace(c: WorkspaceClient) {
  const raw: Record<string, any[]> = {};
  for (const p of COLLECTIONS) raw[p] = await c.listAll(p);
  const brand = await c.get('/v1/brand');
  const labels = new Map<string, string>();
  const urls = new Map<string, string>();
  for (const [p, list] of Object.entries(raw)) {
    for (const o of list) {
      labels.set(o.id, `${p}:${o.name}`);
      for (const s of o.stages ?? []) labels.set(s.id, `${p}:${o.name}/${s.name}`);
      if (o.url) urls.set(o.url, `media:${o.file_name}`);
    }
  }
  const norm = (v: any): any => {
    if (typeof v === 'string') {
      let s = labels.get(v) ?? v;
      for (const [u, l] of urls) s = s.split(u).join(l);
      return s;
    }
    if (Array.isArray(v)) return v.map(norm);
    if (v && typeof v === 'object') {
      const out: any = {};
      for (const k of Object.keys(v).sort()) if (!['id', 'created_at', 'updated_at', 'position'].includes(k)) out[k] = norm(v[k]);
      return out;
    }
    return v;
  };
  const out: Record<string, string[]> = {};
  for (const [p, list] of Object.entries(raw)) out[p] = list.map((o) => JSON.stringify(norm(o))).sort();
  out.brand = [JSON.stringify(norm({ fields: brand.fields, asset_urls: brand.asset_urls }))];
  return out;
}

/**
 * What a run that went wrong (interrupted, retried, resumed) left in workspace `c` is what a clean
 * install of the same packs, in order, makes in a fresh workspace: the same objects, no name twice,
 * and nothing left to do for the last release of each pack.
 */
async function expectAsCleanInstall(c: WorkspaceClient, packs: Pack[]) {
  const cc = clientFor(server(), (await server().workspace()).key);
  for (const p of packs) await install(cc, p);
  expect(await normalizedWorkspace(c)).toEqual(await normalizedWorkspace(cc));
  expect(await duplicateNames(c)).toEqual([]);
  for (const [i, p] of packs.entries()) {
    if (packs.slice(i + 1).some((q) => q.packId === p.packId)) continue;
    expect((await install(c, p)).plan.hasChanges, `${p.name} ${p.version} re-plans to nothing`).toBe(false);
  }
}

describe('installer robustness against the real server()', () => {
  it('stays under the real 120/minute limit: zero 429 responses', async () => {
    const ws = await server().workspace({ rateLimit: 120 });
    const counting = countingFetch();
    const waits: { ms: number; reason: string }[] = [];
    const c = clientFor(server(), ws.key, { fetch: counting.fetch, onWait: (w) => waits.push(w) });
    const pack = generatedPack({ resources: 200, templates: 30, smartLists: 20, pipelines: 5, automations: 30 });
    const start = server().clock.now().getTime();
    const r = await install(c, pack);
    expect(r.written).toBe(285);
    expect(counting.counts.status429).toBe(0);
    expect(c.stats.rateLimited).toBe(0);
    const total = Object.values(counting.counts).reduce((a, b) => a + b, 0) - counting.counts.status429;
    expect(total).toBeGreaterThan(240);
    // The run had to wait for at least two further windows, and did so by pacing.
    expect(server().clock.now().getTime() - start).toBeGreaterThanOrEqual(120_000);
    expect(c.stats.pacedMs).toBeGreaterThan(0);
    // Each wait for a window was told (a command line says so), and only those.
    expect(waits.length).toBeGreaterThanOrEqual(2);
    expect(new Set(waits.map((w) => w.reason))).toEqual(new Set(['rate-limit']));
    expect(waits.every((w) => w.ms >= 1000 && w.ms <= 60_000)).toBe(true); // the wait the headers asked for, without the client's few ms of margin
  });

  it('waits for Retry-After when something else spent the window', async () => {
    const ws = await server().workspace({ rateLimit: 120 });
    const other = clientFor(server(), ws.key);
    // Another client of the workspace spends the whole window without reading the headers.
    for (let i = 0; i < 120; i++) await fetch(`${server().base}/v1/me`, { headers: { authorization: `Bearer ${ws.key}` } });
    const waits: string[] = [];
    const c = clientFor(server(), ws.key, { onWait: (w) => waits.push(w.reason) });
    await install(c, v100);
    expect(c.stats.rateLimited).toBeGreaterThanOrEqual(1);
    expect(waits).toContain('retry-after');
    expect((await readLedger(other, v100.packId))!.ledger.state).toBe('installed');
  });

  it('a 429 without Retry-After (only the X-RateLimit headers) waits for X-RateLimit-Reset: one 429, not a burst of retries into the spent window', async () => {
    const ws = await server().workspace({ rateLimit: 30 });
    // A workspace API that answers 429 with the X-RateLimit headers only (the real server's answers, Retry-After taken out).
    let status429 = 0;
    const proxy = await proxyTo(server().base, async (req, res, body) => {
      const headers: Record<string, string> = {};
      for (const h of ['authorization', 'content-type']) if (req.headers[h]) headers[h] = String(req.headers[h]);
      const up = await fetch(`${server().base}${req.url}`, { method: req.method, headers, body: body.length ? body : undefined });
      const out: Record<string, string> = {};
      for (const h of ['content-type', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
        if (up.headers.get(h) !== null) out[h] = up.headers.get(h)!;
      if (up.status === 429) status429++;
      res.writeHead(up.status, out);
      res.end(await up.text());
      return true;
    });
    try {
      // Another client of the workspace spends the whole window without reading the headers.
      for (let i = 0; i < 30; i++) await fetch(`${server().base}/v1/me`, { headers: { authorization: `Bearer ${ws.key}` } });
      const waits: { ms: number; reason: string }[] = [];
      const c = clientFor(server(), ws.key, { onWait: (w) => waits.push(w) }, proxy.base);
      const r = await install(c, v100);
      expect(r.ledger!.state).toBe('installed');
      expect(status429).toBe(1);
      expect(waits[0]).toMatchObject({ reason: 'rate-limit' }); // "waiting … for the workspace's next rate-limit window"
      expect(waits[0].ms).toBeGreaterThanOrEqual(1000);
    } finally {
      await proxy.close();
    }
  });

  it('a workspace that goes away mid-install past every retry: the run fails naming the item and the lock it could not release; back up, breaking that lock resumes it', async () => {
    const ws = await server().workspace();
    let writes = 0;
    let down = false;
    const proxy = await proxyTo(server().base, (req, res) => {
      if (req.method !== 'GET' && ++writes === 7) down = true;
      if (!down) return false;
      res.socket?.destroy();
      return true;
    });
    const waits: string[] = [];
    let err: unknown;
    try {
      err = await install(clientFor(server(), ws.key, { onWait: (w) => waits.push(w.reason) }, proxy.base), listing).catch((e) => e);
    } finally {
      await proxy.close();
    }
    expect(err).toBeInstanceOf(InstallStepError);
    const e = err as InstallStepError;
    expect(e).toMatchObject({ status: 0, type: 'network_error', written: 4 });
    expect(e.message).toMatch(/^creating .+: cannot reach http:\/\/127\.0\.0\.1:\d+ \(.+\) during POST \/v1\//);
    expect(waits.filter((w) => w === 'retry').length).toBeGreaterThanOrEqual(8);
    const c = clientFor(server(), ws.key);
    const [record] = await listLedgers(c);
    expect(e.lockLeft).toEqual({ packId: listing.packId, holder: record.lock!.holder });
    expect(record.ledger!.state).toBe('in_progress');
    expect(await breakLock(c, listing.packId, e.lockLeft!.holder)).toEqual({ packId: listing.packId, released: true });
    await install(c, listing);
    await expectAsCleanInstall(c, [listing]);
  });

  it('converges through 500s, dropped connections and delays to exactly what a clean install makes', async () => {
    const faulty = await server().workspace();
    for (const seed of [1, 2, 3]) {
      const proxy = await startFaultProxy(
        server().base,
        { failBefore: 0.1, failAfter: 0.1, dropBefore: 0.05, dropAfter: 0.08, delay: 0.1 },
        seed,
      );
      try {
        const fc = clientFor(server(), faulty.key, { maxRetries: 12 }, proxy.base);
        const packs: Pack[] = seed === 1 ? [v100, listing] : seed === 2 ? [v110] : [v110, listing];
        for (const p of packs) await install(fc, p);
        expect(proxy.injected.failAfter + proxy.injected.dropAfter).toBeGreaterThan(0);
      } finally {
        await proxy.close();
      }
    }
    await expectAsCleanInstall(clientFor(server(), faulty.key), [v100, listing, v110]);
  });

  it('a run killed mid-install is locked out until the lock expires, then resumes with no duplicates', async () => {
    const ws = await server().workspace();
    let writes = 0;
    const killAfter = 9;
    const dying: typeof fetch = async (input, init) => {
      if ((init?.method ?? 'GET') !== 'GET' && ++writes > killAfter) throw new TypeError('fetch failed: process killed');
      return fetch(input, init);
    };
    const killed = clientFor(server(), ws.key, { fetch: dying, maxRetries: 1 });
    const err = await install(killed, listing, { checkpointEvery: 3, lockTtlSeconds: 60 }).catch((e) => e);
    expect(err).toBeInstanceOf(WorkspaceApiError);
    expect((err as WorkspaceApiError).type).toBe('network_error');

    const c = clientFor(server(), ws.key);
    const locked = await install(c, listing).catch((e) => e);
    expect(locked).toBeInstanceOf(WorkspaceApiError);
    expect((locked as WorkspaceApiError).status).toBe(409);
    const partial = await readLedger(c, listing.packId);
    expect(partial!.ledger.state).toBe('in_progress');
    expect(Object.keys(partial!.ledger.items).length).toBeGreaterThan(0);

    server().clock.advance(61_000);
    const resumed = await install(c, listing);
    expect(resumed.plan.summary.create).toBeLessThan(resumed.plan.steps.length);
    await expectAsCleanInstall(c, [listing]);
    const ledger = (await readLedger(c, listing.packId))!.ledger;
    expect(Object.values(ledger.items).every((i) => i.owned)).toBe(true);
  });
});
