import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, Client, createSchema, startServerProcess, TEST_DATABASE_URL, type ServerProcess } from './harness.js';
import { echoChallenge, Receiver } from './webhooks-harness.js';

type Proc = ServerProcess;

/** A server process with webhook timings short enough for tests, accepting loopback receivers. */
function startProcess(args: string[], env: Record<string, string>): Promise<Proc> {
  return startServerProcess(['--allow-insecure-webhooks', ...args], {
    ADMIN_TOKEN,
    WEBHOOK_TIMEOUT_MS: '4000',
    WEBHOOK_LEASE_MS: '5000',
    WEBHOOK_POLL_MS: '50',
    ...env,
  });
}

async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Kill -9 a server while every delivery is in flight, restart (one or two processes), and check
 * that every event is acknowledged, each delivery exactly once after the restart.
 */
async function killMidDelivery(args: string[], env: Record<string, string>, restartCount: number, procs: Proc[]) {
  const rcv = await new Receiver().start();
  try {
    let phase = 1;
    rcv.behaviour = (r) => (r.json?.type === 'contact.created' ? (phase === 1 ? 'hang' : { status: 200, body: 'ok' }) : echoChallenge(r));
    const first = await startProcess(args, env);
    procs.push(first);
    const admin = new Client(first.base, ADMIN_TOKEN);
    const ws = await admin.post('/admin/workspaces', {
      name: 'Kill test',
      slug: `kill-${Date.now().toString(36)}`,
      rate_limit_per_minute: 100000,
    });
    const key = await admin.post(`/admin/workspaces/${ws.body.id}/api-keys`, { scopes: ['full_access'] });
    const api = new Client(first.base, key.body.secret);
    const ep = await api.post('/v1/webhooks', { url: rcv.url, event_types: ['contact.created'] });
    expect((await api.post(`/v1/webhooks/${ep.body.id}/verify`)).body.verified).toBe(true);
    const N = 20;
    for (let i = 0; i < N; i++) expect((await api.post('/v1/contacts', { first_name: `K${i}`, last_name: 'Nine' })).status).toBe(201);
    // Killed while the receiver holds at least one request open (long before the 4 s timeout).
    await until('a delivery in flight', () => rcv.deliveries().length >= 1, 15_000);
    first.child.kill('SIGKILL');
    await first.exited;

    phase = 2;
    const restarted = await Promise.all(Array.from({ length: restartCount }, () => startProcess(args, env)));
    procs.push(...restarted);
    const acked = () =>
      new Set(
        rcv
          .deliveries()
          .filter((r) => r.answer === 200)
          .map((r) => r.json.id),
      );
    try {
      await until('every event acknowledged after the restart', () => acked().size === N, 30_000);
    } catch (e) {
      const after = new Client(restarted[0].base, key.body.secret);
      const log = (await after.get(`/v1/webhooks/${ep.body.id}/deliveries?limit=100`)).body;
      const evs = (await after.get('/v1/events?limit=100')).body;
      throw new Error(
        `${(e as Error).message}: ${acked().size} of ${N} acknowledged; events ${evs.total_count}; deliveries ${JSON.stringify(log.data.map((d: any) => [d.status, d.attempts.map((a: any) => a.outcome)]))}`,
        { cause: e },
      );
    }

    const after = new Client(restarted[0].base, key.body.secret);
    const logPath = `/v1/webhooks/${ep.body.id}/deliveries?event_type=contact.created&limit=100`;
    // The receiver answers before the server records the answer: wait for the log to catch up.
    await until(
      'every delivery recorded',
      async () => (await after.get(logPath)).body.data.every((d: any) => d.status === 'succeeded'),
      10_000,
    );
    const log = (await after.get(logPath)).body;
    expect(log.total_count).toBe(N);
    let interrupted = 0;
    for (const d of log.data) {
      expect(d.status).toBe('succeeded');
      const outcomes = d.attempts.map((a: any) => a.outcome);
      // Claimed before the kill: logged as interrupted (after its lease ran out), then sent again.
      expect([['succeeded'], ['interrupted', 'succeeded']]).toContainEqual(outcomes);
      if (outcomes[0] === 'interrupted') interrupted++;
    }
    expect(interrupted).toBeGreaterThanOrEqual(1);
    // After the restart each delivery was sent once, even with two servers sharing the queue.
    const okPerDelivery = new Map<string, number>();
    for (const r of rcv.deliveries().filter((x) => x.answer === 200)) {
      const id = String(r.headers['x-service-delivery-id']);
      okPerDelivery.set(id, (okPerDelivery.get(id) ?? 0) + 1);
    }
    expect(okPerDelivery.size).toBe(N);
    expect([...okPerDelivery.values()].every((n) => n === 1)).toBe(true);
  } finally {
    await rcv.close();
  }
}

describe('a server killed mid-delivery delivers everything after restart', () => {
  const procs: Proc[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGTERM');
    await Promise.all(procs.map((p) => p.exited));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('on the embedded store (PGlite data directory)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wh-kill-'));
    dirs.push(dir);
    await killMidDelivery(['--data-dir', dir], { DATABASE_URL: '' }, 1, procs);
    // Opening a PGlite data directory takes seconds (tens on a loaded 2-core runner), twice here.
  }, 180_000);

  it.skipIf(!TEST_DATABASE_URL)(
    'on PostgreSQL, resumed by two processes sharing the queue',
    async () => {
      const { url } = await createSchema('whkill');
      await killMidDelivery([], { DATABASE_URL: url }, 2, procs);
    },
    120_000,
  );
});

describe('serve --webhook-concurrency and --webhook-per-endpoint', () => {
  /** A server with one verified endpoint whose receiver holds every contact.created delivery open, and four contacts created. */
  async function holding(flags: string[]): Promise<{ held: () => number; close: () => Promise<void> }> {
    const rcv = await new Receiver().start();
    rcv.behaviour = (x) => (x.json?.type === 'contact.created' ? 'hang' : echoChallenge(x));
    // The timeout is long, so nothing held times out during the test.
    const p = await startServerProcess(['--memory', '--allow-insecure-webhooks', ...flags], {
      ADMIN_TOKEN,
      DATABASE_URL: '',
      WEBHOOK_TIMEOUT_MS: '60000',
      WEBHOOK_POLL_MS: '50',
    });
    const close = async () => {
      await rcv.close();
      p.child.kill('SIGTERM');
      await p.exited;
    };
    try {
      const admin = new Client(p.base, ADMIN_TOKEN);
      const ws = await admin.post('/admin/workspaces', { name: 'Caps', slug: 'caps', rate_limit_per_minute: 100000 });
      const key = await admin.post(`/admin/workspaces/${ws.body.id}/api-keys`, { scopes: ['full_access'] });
      const api = new Client(p.base, key.body.secret);
      const ep = await api.post('/v1/webhooks', { url: rcv.url, event_types: ['contact.created'] });
      expect((await api.post(`/v1/webhooks/${ep.body.id}/verify`)).body.verified).toBe(true);
      for (let i = 0; i < 4; i++) expect((await api.post('/v1/contacts', { first_name: `C${i}`, last_name: 'Caps' })).status).toBe(201);
    } catch (e) {
      await close();
      throw e;
    }
    return { held: () => rcv.deliveries('contact.created').length, close };
  }

  it('caps the attempts one endpoint has in flight, and those of a process', async () => {
    // Four deliveries due to one endpoint; with the defaults (32 and 128) all four are sent at once.
    const [perEndpoint, perProcess] = await Promise.all([
      holding(['--webhook-per-endpoint', '1']),
      holding(['--webhook-concurrency', '2']),
    ]);
    try {
      await until('attempts in flight', () => perEndpoint.held() >= 1 && perProcess.held() >= 2, 15_000);
      // Many claim rounds later (the loop polls every 50 ms), no more than the caps allow.
      await new Promise((r) => setTimeout(r, 1_000));
      expect([perEndpoint.held(), perProcess.held()]).toEqual([1, 2]);
    } finally {
      await Promise.all([perEndpoint.close(), perProcess.close()]);
    }
  }, 120_000);
});
