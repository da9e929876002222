// The installer against a workspace whose database goes away mid-run: the real server on a real
// PostgreSQL reached through a TCP plug the test pulls (connections reset, new ones refused). The
// server answers 503 service_unavailable with Retry-After; the client waits that long, says so,
// and carries on once the database is back.
import type { AddressInfo } from 'node:net';
import { tcpPlug, type TcpPlug } from '@setup-pack/testkit';
import { buildServer, ManualClock, openStore, type Store } from '@setup-pack/workspace-server';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWait, install, readLedger, WorkspaceApiError, WorkspaceClient, type WaitEvent } from '../src/index.js';
import { loadPack } from './harness.js';

const URL_ = process.env.TEST_DATABASE_URL;
const ADMIN = 'unavailable-test-admin';
const v100 = loadPack('releases/buyer-lead-1.0.0.json');

describe.skipIf(!URL_)(`the installer when the workspace's database goes away${URL_ ? '' : ' (skipped: needs TEST_DATABASE_URL)'}`, () => {
  let plug: TcpPlug;
  let store: Store;
  let app: FastifyInstance;
  let base: string;
  const clock = new ManualClock('2026-11-21T22:00:00.000Z');

  beforeAll(async () => {
    const target = new URL(URL_!);
    plug = await tcpPlug({ host: target.hostname, port: Number(target.port || 5432) });
    store = await openStore({ databaseUrl: plug.via(URL_!), schema: `unavail_${Math.random().toString(36).slice(2, 10)}`, poolSize: 3 });
    app = await buildServer({ store, clock, adminToken: ADMIN });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await plug?.insert();
    await app?.close();
    await store?.close();
    await plug?.close();
  });

  async function workspaceKey(): Promise<string> {
    const admin = (path: string, body: unknown) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json());
    const slug = `unavail-${Math.random().toString(36).slice(2, 10)}`;
    const ws = await admin('/admin/workspaces', { name: slug, slug, rate_limit_per_minute: 100000 });
    for (const [i, name] of ['Jordan Lee', 'Avery Brooks'].entries())
      await admin(`/admin/workspaces/${ws.id}/members`, { name, email: `m${i}@example.test` });
    return (await admin(`/admin/workspaces/${ws.id}/api-keys`, { scopes: ['full_access'] })).secret;
  }

  it('waits the Retry-After of each 503, says what it waited for, and finishes the install once the database is back', async () => {
    const key = await workspaceKey();
    const waits: WaitEvent[] = [];
    const client = new WorkspaceClient({
      baseUrl: base,
      apiKey: key,
      now: () => clock.now().getTime(),
      onWait: (w) => waits.push(w),
      // The database comes back after the client has waited twice for it.
      sleep: async (ms) => {
        clock.advance(ms);
        if (waits.filter((w) => w.reason === 'unavailable').length >= 2) await plug.insert();
      },
    });
    await plug.pull();
    const r = await install(client, v100);
    expect(r.ledger!.state).toBe('installed');
    expect((await readLedger(client, v100.packId))!.ledger.state).toBe('installed');
    const unavailable = waits.filter((w) => w.reason === 'unavailable');
    expect(unavailable).toEqual([
      { ms: 1000, reason: 'unavailable' },
      { ms: 1000, reason: 'unavailable' },
    ]);
    expect(describeWait(unavailable[0])).toBe('waiting 1 s as the workspace asked (503 service unavailable, Retry-After)');
  });

  it('gives up after its retries with the 503 as a typed error while the database stays away', async () => {
    const key = await workspaceKey();
    const client = new WorkspaceClient({
      baseUrl: base,
      apiKey: key,
      maxRetries: 2,
      now: () => clock.now().getTime(),
      sleep: async (ms) => clock.advance(ms),
    });
    await plug.pull();
    try {
      const err = await client.get('/v1/me').catch((e) => e);
      expect(err).toBeInstanceOf(WorkspaceApiError);
      expect([err.status, err.type, err.retryable]).toEqual([503, 'service_unavailable', true]);
      expect(client.stats.retries).toBe(2);
    } finally {
      await plug.insert();
    }
    expect((await client.get('/v1/me')).workspace).toBeDefined();
  });
});
