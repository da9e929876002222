import { spawn } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/shared/clock.js';
import { defaultPoolSize, storeParameters } from '../src/db/postgres.js';
import {
  ADMIN_TOKEN,
  Client,
  createSchema,
  expectError,
  openTestStore,
  schemaUrl,
  startServer,
  startServerProcess,
  TEST_DATABASE_URL,
  uniqueSchema,
  type ServerProcess,
  type TestServer,
} from './harness.js';

const bin = fileURLToPath(new URL('../bin/workspace-server.js', import.meta.url));

async function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, stdout, stderr };
}

describe.skipIf(!TEST_DATABASE_URL)('two servers on one PostgreSQL (needs TEST_DATABASE_URL)', () => {
  describe('two in-process servers, each with its own pool, sharing a clock', () => {
    let one: TestServer;
    let two: TestServer;
    beforeAll(async () => {
      const schema = uniqueSchema('two');
      const clock = new ManualClock('2026-03-02T10:00:05.000Z');
      // Opened one after the other, but each store runs migrate(): the second finds nothing to do.
      one = await startServer('postgres', { store: await openTestStore('postgres', schema), clock });
      two = await startServer('postgres', { store: await openTestStore('postgres', schema), clock });
    });
    afterAll(async () => {
      for (const s of [one, two]) {
        await s?.close();
        await s?.store.close();
      }
    });

    it('shares the rate-limit window across both servers', async () => {
      const W = await one.workspace({ rate_limit_per_minute: 6 });
      const viaTwo = new Client(two.base, W.key);
      const remaining: string[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await (i % 2 ? viaTwo : W.client).get('/v1/me');
        expect(r.status).toBe(200);
        remaining.push(r.headers.get('x-ratelimit-remaining')!);
      }
      expect(remaining).toEqual(['5', '4', '3', '2', '1', '0']);
      expectError(await W.client.get('/v1/me'), 429, 'rate_limit_error');
      expectError(await viaTwo.get('/v1/me'), 429, 'rate_limit_error');
      one.clock.advance(60_000);
      expect((await viaTwo.get('/v1/me')).status).toBe(200);
    });

    it('turns concurrent duplicate creations with one idempotency_key into one transaction', async () => {
      const W = await one.workspace();
      const viaTwo = new Client(two.base, W.key);
      const results = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          (i % 2 ? viaTwo : W.client).post('/v1/transactions', { name: 'Retry me', idempotency_key: 'same-key' }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(Array(16).fill(200));
      expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
      const list = await viaTwo.get('/v1/transactions');
      expect(list.body.data).toHaveLength(1);
      expect(list.body.counts.active).toBe('1');
      const events = await one.store.db.query(
        `SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND type = 'transaction.created'`,
        [W.id],
      );
      expect(events.rows[0].n).toBe(1);
    });
  });

  describe('two spawned server processes and the CLI', () => {
    let p1: ServerProcess;
    let p2: ServerProcess;
    const schema = uniqueSchema('proc');
    const env = () => ({
      ADMIN_TOKEN,
      DATABASE_URL: schemaUrl(schema),
    });
    beforeAll(async () => {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`CREATE SCHEMA "${schema}"`);
      await c.end();
      // Started together: the migration lock keeps them from racing on one database.
      [p1, p2] = await Promise.all([startServerProcess([], env()), startServerProcess([], env())]);
    });
    afterAll(async () => {
      for (const p of [p1, p2]) p?.child.kill('SIGTERM');
      await Promise.all([p1?.exited, p2?.exited]);
    });

    it('administers through the CLI and holds idempotency and the rate limit across processes', async () => {
      const cli = (args: string[]) => runCli(args, { ...env(), WORKSPACE_SERVER_URL: p1.base });
      const ws = await cli(['create-workspace', '--name', 'Proc', '--slug', 'proc', '--rate-limit', '1000']);
      expect(ws.code, ws.stderr).toBe(0);
      const workspace = JSON.parse(ws.stdout);
      expect(workspace).toMatchObject({ name: 'Proc', slug: 'proc', rate_limit_per_minute: 1000 });
      const member = JSON.parse((await cli(['add-member', '--workspace', workspace.id, '--name', 'Pat', '--email', 'pat@x.test'])).stdout);
      expect(member.name).toBe('Pat');
      const key = JSON.parse(
        (await cli(['create-key', '--workspace', workspace.id, '--scopes', 'full_access', '--member', member.id])).stdout,
      );
      expect(key.secret).toMatch(/^sk_/);
      const dup = await cli(['create-workspace', '--name', 'Proc', '--slug', 'proc']);
      expect(dup.code).toBe(1);
      expect(dup.stderr).toMatch(/^create-workspace: http:\/\/\S+ refused it \(HTTP 4\d\d, invalid_request_error, slug\): /);

      const a = new Client(p1.base, key.secret);
      const b = new Client(p2.base, key.secret);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? b : a).post('/v1/transactions', { name: 'Twice', idempotency_key: 'k1' })),
      );
      expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
      expect((await b.get('/v1/transactions')).body.data).toHaveLength(1);
      // Both processes count into one window: the remaining count falls across them.
      const r1 = Number((await a.get('/v1/me')).headers.get('x-ratelimit-remaining'));
      const r2 = Number((await b.get('/v1/me')).headers.get('x-ratelimit-remaining'));
      expect(r2 === r1 - 1 || r2 === 999).toBe(true); // 999 only when a new minute started between the two calls

      expect((await cli(['revoke-key', key.id])).code).toBe(0);
      expectError(await b.get('/v1/me'), 401, 'authentication_error');
    });

    it('shuts down cleanly on SIGTERM', async () => {
      const p = await startServerProcess(['--memory'], { ADMIN_TOKEN });
      expect(p.stdout()).toContain('in-memory');
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    });
  });
});

describe('serve --memory --seed demo', () => {
  it('prints a base URL and a full_access key that work against a seeded workspace', async () => {
    const p = await startServerProcess(['--memory', '--seed', 'demo'], { ADMIN_TOKEN, DATABASE_URL: '' });
    try {
      await new Promise<void>((resolve) => {
        const t = setInterval(() => {
          if (/API key \(full_access\): (\S+)/.test(p.stdout())) {
            clearInterval(t);
            resolve();
          }
        }, 50);
      });
      const secret = /API key \(full_access\): (\S+)/.exec(p.stdout())![1];
      expect(p.stdout()).toContain(`Base URL: ${p.base}`);
      const c = new Client(p.base, secret);
      const me = await c.get('/v1/me');
      expect(me.body.api_key.scopes).toEqual(['FULL_ACCESS']);
      const contacts = await c.get('/v1/contacts?limit=5');
      expect(contacts.body.total_count).toBeGreaterThanOrEqual(20);
      expect((await c.get('/v1/deals')).body.total_count).toBeGreaterThan(0);
      expect((await c.get('/v1/transactions')).body.data.length).toBeGreaterThan(0);
      expect((await c.get('/v1/tags')).body.total_count).toBeGreaterThan(0);
      const settings = (await c.get('/v1/transaction-settings')).body;
      expect(settings.checklist_templates.length).toBeGreaterThan(0);
    } finally {
      p.child.kill('SIGINT');
      expect(await p.exited).toBe(0);
    }
  });
});

/** Requests on one kept-alive connection, so all reach the one worker the cluster gave that connection. */
function oneConnection(base: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const send = (method: string, path: string, token: string, body?: unknown) =>
    new Promise<{ status: number; body: any }>((done, fail) => {
      const req = http.request(
        `${base}${path}`,
        { method, agent, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) } },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () =>
            done({ status: res.statusCode!, body: /json/.test(res.headers['content-type'] ?? '') ? JSON.parse(text) : text }),
          );
        },
      );
      req.on('error', fail);
      req.end(body ? JSON.stringify(body) : undefined);
    });
  const stats = async () => (await send('GET', '/admin/stats', ADMIN_TOKEN)).body;
  /** The text cache's counts once it has received more than `beyond` texts from the other worker (or after 2 s, whatever it holds). */
  const receivedBeyond = async (beyond: number) => {
    for (let i = 0; i < 100 && (await stats()).contact_texts.received <= beyond; i++) await new Promise((r) => setTimeout(r, 20));
    return (await stats()).contact_texts;
  };
  return { send, stats, receivedBeyond, close: () => agent.destroy() };
}

/** A kept-alive connection to each of two workers (the cluster hands new connections to its workers in turn). */
async function twoWorkers(base: string) {
  const first = oneConnection(base);
  const a = (await first.stats()).pid;
  let second = oneConnection(base);
  for (let i = 0; i < 10 && (await second.stats()).pid === a; i++) {
    second.close();
    second = oneConnection(base);
  }
  expect((await second.stats()).pid).not.toBe(a);
  return [first, second] as const;
}

const METRICS_TOKEN = 'workers-metrics-token';

describe.skipIf(!TEST_DATABASE_URL)('serve --workers 2 on PostgreSQL (needs TEST_DATABASE_URL)', () => {
  let p: ServerProcess;
  const schema = uniqueSchema('workers');
  beforeAll(async () => {
    const { url } = await createSchema('workers', schema);
    p = await startServerProcess(['--workers', '2', '--no-editor'], { ADMIN_TOKEN, DATABASE_URL: url, METRICS_TOKEN });
  });
  afterAll(async () => {
    p?.child.kill('SIGTERM');
    await p?.exited;
  });

  const workerPids = () => [...p.stdout().matchAll(/worker (\d+) listening/g)].map((m) => Number(m[1]));
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it('hands the contact texts one worker writes to the other, whose list then uses them instead of having PostgreSQL write them again', async () => {
    const admin = new Client(p.base, ADMIN_TOKEN);
    const ws = await admin.post('/admin/workspaces', { name: 'Shared texts', slug: 'shared-texts' });
    const key = (await admin.post(`/admin/workspaces/${ws.body.id}/api-keys`, { scopes: ['full_access'] })).body.secret;
    const [first, second] = await twoWorkers(p.base);
    const [a, b] = [(await first.stats()).pid, (await second.stats()).pid];
    expect(workerPids().sort()).toEqual([a, b].sort());
    // Each worker serves the workspace's list once: a page a process has not served is written by
    // PostgreSQL whole, one it has is read as row versions, its texts taken from the cache.
    for (const c of [first, second]) expect((await c.send('GET', '/v1/contacts', key)).body.data).toEqual([]);
    const created = await first.send('POST', '/v1/contacts', key, { first_name: 'Shared', last_name: 'Text', email: 'shared@example.com' });
    expect(created.status).toBe(201);
    // The creation's text reaches the other worker through the primary.
    const before = await second.receivedBeyond(0);
    expect(before.received).toBeGreaterThanOrEqual(1);
    const list = await second.send('GET', '/v1/contacts', key);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([created.body]);
    const after = (await second.stats()).contact_texts;
    expect({ hits: after.hits - before.hits, misses: after.misses - before.misses }).toEqual({ hits: 1, misses: 0 });
    // A text the other worker's list had PostgreSQL write (a changed contact) comes back the same way.
    const patched = await second.send('PATCH', `/v1/contacts/${created.body.id}`, key, { job_title: 'Broker' });
    expect(patched.status).toBe(200);
    const firstBefore = (await first.stats()).contact_texts;
    const secondBefore = (await second.stats()).contact_texts;
    const viaSecond = await second.send('GET', '/v1/contacts', key);
    expect(viaSecond.body.data).toEqual([patched.body]);
    expect((await second.stats()).contact_texts.misses - secondBefore.misses).toBe(1);
    expect((await first.receivedBeyond(firstBefore.received)).received).toBeGreaterThan(firstBefore.received);
    const viaFirst = await first.send('GET', '/v1/contacts', key);
    expect(viaFirst.body.data).toEqual([patched.body]);
    const firstAfter = (await first.stats()).contact_texts;
    expect({ hits: firstAfter.hits - firstBefore.hits, misses: firstAfter.misses - firstBefore.misses }).toEqual({ hits: 1, misses: 0 });
    first.close();
    second.close();
  });

  it("answers GET /metrics from either worker with the cluster's, aggregated by the primary", async () => {
    const admin = new Client(p.base, ADMIN_TOKEN);
    const ws = await admin.post('/admin/workspaces', { name: 'Metrics', slug: 'cluster-metrics' });
    const key = (await admin.post(`/admin/workspaces/${ws.body.id}/api-keys`, { scopes: ['full_access'] })).body.secret;
    const workers = await twoWorkers(p.base);
    for (const w of workers) for (let i = 0; i < 3; i++) expect((await w.send('GET', '/v1/me', key)).status).toBe(200);
    const sample = (text: string, series: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(`${series} `))
          ?.slice(series.length + 1),
      );
    for (const w of workers) {
      const r = await w.send('GET', '/metrics', METRICS_TOKEN);
      expect(r.status).toBe(200);
      // Three requests answered by each worker, summed; each worker's pool, summed; up in both.
      expect(sample(r.body, 'workspace_http_requests_total{method="GET",route="/v1/me",status="200"}')).toBe(6);
      expect(sample(r.body, 'workspace_db_pool_max_connections')).toBe(2 * defaultPoolSize());
      expect(sample(r.body, 'workspace_database_up')).toBe(1);
      expect(r.body).toMatch(/^process_cpu_user_seconds_total \d/m);
      expect((await w.send('GET', '/readyz', '')).body).toEqual({ status: 'ready' });
      w.close();
    }
  });

  it('serves one port from two processes with the rate limit and idempotency exact across them, and stops them all on SIGTERM', async () => {
    expect(p.stdout()).toContain('2 workers');
    const pids = workerPids();
    expect(pids).toHaveLength(2);
    expect(pids.every(alive)).toBe(true);
    const admin = new Client(p.base, ADMIN_TOKEN);
    const ws = await admin.post('/admin/workspaces', { name: 'Workers', slug: 'workers', rate_limit_per_minute: 30 });
    const key = await admin.post(`/admin/workspaces/${ws.body.id}/api-keys`, { scopes: ['full_access'] });
    const c = new Client(p.base, key.body.secret);
    // New connections each (fetch opens several at once), spread by the cluster over both workers.
    const created = await Promise.all(
      Array.from({ length: 10 }, () => c.post('/v1/transactions', { name: 'Once', idempotency_key: 'same' })),
    );
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    const statuses = (await Promise.all(Array.from({ length: 30 }, () => c.get('/v1/me')))).map((r) => r.status);
    // 30 a minute: 10 creations and 20 reads allowed, the other 10 refused (unless a minute began meanwhile).
    const ok = statuses.filter((x) => x === 200).length;
    expect(statuses.every((x) => x === 200 || x === 429)).toBe(true);
    expect(ok === 20 || statuses.filter((x) => x === 429).length < 10).toBe(true);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(pids.some(alive)).toBe(false);
  });

  it('refuses --workers without PostgreSQL and a pool size that is not a count, naming the flag', async () => {
    const a = await runCli(['serve', '--memory', '--port', '0', '--workers', '2'], { ADMIN_TOKEN, DATABASE_URL: '' });
    expect(a.code).toBe(1);
    expect(a.stderr).toMatch(/--workers needs PostgreSQL \(set DATABASE_URL\)/);
    const b = await runCli(['serve', '--memory', '--port', '0', '--pool-size', '0'], { ADMIN_TOKEN, DATABASE_URL: '' });
    expect(b.code).toBe(1);
    expect(b.stderr).toMatch(/--pool-size expects a whole number of at least 1, got "0"/);
  });
});

describe.skipIf(!TEST_DATABASE_URL)('serve --workers 2: one fan-out per cluster (needs TEST_DATABASE_URL)', () => {
  let p: ServerProcess;
  let db: pg.Client;
  const schema = uniqueSchema('fanout');
  beforeAll(async () => {
    db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    await db.query(`CREATE SCHEMA "${schema}"`);
    const url = schemaUrl(schema);
    // A poll of a minute: within the test every fan-out but each worker's first is a write's nudge's.
    p = await startServerProcess(['--workers', '2', '--no-editor'], { ADMIN_TOKEN, DATABASE_URL: url, WEBHOOK_POLL_MS: '60000' });
  });
  afterAll(async () => {
    p?.child.kill('SIGTERM');
    await p?.exited;
    await db?.end();
  });

  const until = async (done: () => Promise<boolean>, what: string) => {
    for (let i = 0; i < 150 && !(await done()); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await done(), what).toBe(true);
  };
  /** Events written and not yet past the webhook fan-out's cursor. */
  const unfanned = async () =>
    Number(
      (
        await db.query(
          `SELECT count(*) FROM "${schema}".events e, "${schema}".outbox_cursor c WHERE c.name = 'webhooks' AND (e.txid, e.id) > (c.txid, c.event_id)`,
        )
      ).rows[0].count,
    );
  const fanOuts = async (c: ReturnType<typeof oneConnection>) => (await c.stats()).webhooks.fan_outs as number;

  it("names one worker to fan out on writes; the other's writes nudge it through the primary, and when it exits the other is named", async () => {
    const admin = new Client(p.base, ADMIN_TOKEN);
    const ws = await admin.post('/admin/workspaces', { name: 'Fan-out', slug: 'fan-out' });
    const key = (await admin.post(`/admin/workspaces/${ws.body.id}/api-keys`, { scopes: ['full_access'] })).body.secret;
    const [x, y] = await twoWorkers(p.base);
    await until(
      async () => (await x.stats()).webhooks.relays_nudges !== (await y.stats()).webhooks.relays_nudges,
      'one worker fans out, the other relays',
    );
    const [leader, relayer] = (await x.stats()).webhooks.relays_nudges ? [y, x] : [x, y];
    await until(async () => (await unfanned()) === 0, "the workspace's own events fanned out");

    // Writes through the relaying worker: the named one fans them out, the relaying one runs none.
    const [leaderBefore, relayerBefore] = [await fanOuts(leader), await fanOuts(relayer)];
    for (let i = 0; i < 5; i++)
      expect((await relayer.send('POST', '/v1/contacts', key, { first_name: `Relay${i}`, last_name: 'Nudge' })).status).toBe(201);
    await until(async () => (await unfanned()) === 0, 'the relayed writes fanned out');
    expect(await fanOuts(leader)).toBeGreaterThan(leaderBefore);
    expect(await fanOuts(relayer)).toBe(relayerBefore);
    // Its own writes, the named worker fans out itself.
    expect((await leader.send('POST', '/v1/contacts', key, { first_name: 'Own', last_name: 'Nudge' })).status).toBe(201);
    await until(async () => (await unfanned()) === 0, "the named worker's own write fanned out");
    expect(await fanOuts(relayer)).toBe(relayerBefore);

    // The named worker dies: the other is named, and fans out its own writes from then on.
    const leaderPid = (await leader.stats()).pid;
    leader.close();
    process.kill(leaderPid, 'SIGKILL');
    await until(async () => (await relayer.stats()).webhooks.relays_nudges === false, 'the surviving worker named');
    const survivorBefore = await fanOuts(relayer);
    expect((await relayer.send('POST', '/v1/contacts', key, { first_name: 'After', last_name: 'Failover' })).status).toBe(201);
    await until(async () => (await unfanned()) === 0, "the survivor's write fanned out");
    expect(await fanOuts(relayer)).toBeGreaterThan(survivorBefore);
    // The worker started in the dead one's place is told to relay.
    await until(async () => [...p.stdout().matchAll(/worker (\d+) listening/g)].length === 3, 'a worker started in its place');
    const survivorPid = (await relayer.stats()).pid;
    let fresh = oneConnection(p.base);
    for (let i = 0; i < 10 && (await fresh.stats()).pid === survivorPid; i++) {
      fresh.close();
      fresh = oneConnection(p.base);
    }
    await until(async () => (await fresh.stats()).webhooks.relays_nudges === true, 'the new worker relays');
    fresh.close();
    relayer.close();
  });
});

describe('prepared_statements in DATABASE_URL', () => {
  it("takes a boolean's spellings out of the URL and refuses anything else, naming the parameter", async () => {
    expect(storeParameters('postgres://u@h:6432/db?prepared_statements=false&application_name=x')).toEqual({
      connectionString: 'postgres://u@h:6432/db?application_name=x',
      preparedStatements: false,
    });
    expect(storeParameters('postgres://u@h/db?prepared_statements=ON')).toEqual({
      connectionString: 'postgres://u@h/db',
      preparedStatements: true,
    });
    expect(storeParameters('postgres://u@h/db?sslmode=require')).toEqual({ connectionString: 'postgres://u@h/db?sslmode=require' });
    const r = await runCli(['serve', '--port', '0', '--no-editor'], {
      ADMIN_TOKEN,
      DATABASE_URL: 'postgres://u:secret@127.0.0.1:1/db?prepared_statements=maybe',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /cannot open the store, PostgreSQL at postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/db\?prepared_statements=maybe \(DATABASE_URL\): DATABASE_URL: prepared_statements must be true or false, got "maybe"/,
    );
  });
});

describe('serve --retention-days', () => {
  it('refuses a value that is not a whole number of days, naming the flag', async () => {
    const r = await runCli(['serve', '--memory', '--port', '0', '--retention-days', 'forever'], { ADMIN_TOKEN, DATABASE_URL: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--retention-days expects a whole number of days/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
  });
});

describe('serve --webhook-concurrency / --webhook-per-endpoint', () => {
  it('refuses a cap that is not a count, naming the flag or the variable', async () => {
    const r = await runCli(['serve', '--memory', '--port', '0', '--webhook-per-endpoint', '0'], { ADMIN_TOKEN, DATABASE_URL: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^--webhook-per-endpoint expects a whole number of at least 1, got "0"$/m);
    const e = await runCli(['serve', '--memory', '--port', '0'], { ADMIN_TOKEN, DATABASE_URL: '', WEBHOOK_CONCURRENCY: 'many' });
    expect(e.code).toBe(1);
    expect(e.stderr).toMatch(/^WEBHOOK_CONCURRENCY expects a whole number of at least 1, got "many"$/m);
    expect(e.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
  });
});
