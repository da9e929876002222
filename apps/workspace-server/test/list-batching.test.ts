import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatementBatcher } from '../src/db/batch.js';
import { countRoundTrips, type CountingDb } from '../src/db/counting.js';
import type { Db } from '../src/db/db.js';
import { openStore, type Store } from '../src/db/open.js';
import { openPostgres } from '../src/db/postgres.js';
import { listBatchStats } from '../src/store/contacts.js';
import { Client, startServer, TEST_DATABASE_URL, uniqueSchema, type Reply, type TestServer } from './harness.js';

/**
 * First pages of lists that wait for a connection go to PostgreSQL as one statement (db/batch.ts,
 * docs/store.md "Batching lists"). Every request must get the answer it gets alone: its own page,
 * its own 401, 403 or 429, rate-limit headers that count each request once.
 */
describe.skipIf(!TEST_DATABASE_URL)('batching list requests on PostgreSQL (needs TEST_DATABASE_URL)', () => {
  const schema = uniqueSchema('batch');
  let store: Store;
  let db: CountingDb;
  let s: TestServer;
  let admin: pg.Client;
  beforeAll(async () => {
    // Two connections, so two held transactions saturate the pool.
    store = await openStore({ databaseUrl: TEST_DATABASE_URL, schema, poolSize: 2 });
    db = countRoundTrips(store.db);
    s = await startServer('postgres', { store: { db, close: () => store.close() }, webhooks: { pollMs: 0 } });
    admin = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema},public` });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await s?.close();
    await store?.close();
  });

  /** Holds every connection of the pool (of two) until the returned function is called. */
  async function holdPool(of: Db = db): Promise<() => Promise<void>> {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const held: Promise<void>[] = [];
    let got = 0;
    for (let i = 0; i < 2; i++) held.push(of.pool!.withConnection(async () => { got++; await gate; }));
    while (got < 2) await new Promise((r) => setTimeout(r, 5));
    return async () => {
      release();
      await Promise.all(held);
    };
  }

  /** Sends `calls` while the pool is held, waits until `queued` of them wait in the batchers, then lets them run. */
  async function whileHeld(calls: (() => Promise<Reply>)[], queued: number): Promise<Reply[]> {
    const release = await holdPool();
    const before = listBatchStats(db).waiting;
    const replies = Promise.all(calls.map((c) => c()));
    const until = Date.now() + 10_000;
    try {
      while (listBatchStats(db).waiting - before < queued && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
      expect(listBatchStats(db).waiting - before).toBe(queued);
    } finally {
      await release();
    }
    return replies;
  }

  it('answers each waiting request as alone, in fewer statements, with 401, 403 and 429 kept apart', async () => {
    const tenants = [];
    for (let i = 0; i < 10; i++) {
      const W = await s.workspace();
      for (let j = 0; j < 3; j++) await W.client.post('/v1/contacts', { first_name: `T${i}`, last_name: `C${j}` });
      tenants.push(W);
    }
    const limited = await s.workspace({ rate_limit_per_minute: 3 });
    const revoked = await s.workspace();
    const writerWs = await s.workspace();
    const writer = await s.key(writerWs.id, ['read_deals']);
    // Each key admitted once and each page served once, so the next list is a batchable one.
    const alone: Reply[] = [];
    for (const W of tenants) {
      await W.client.get('/v1/contacts?limit=20');
      alone.push(await W.client.get('/v1/contacts?limit=20'));
    }
    await limited.client.get('/v1/contacts?limit=20');
    await limited.client.get('/v1/contacts?limit=20');
    await limited.client.get('/v1/contacts?limit=20'); // its third of three this minute
    await revoked.client.get('/v1/contacts?limit=20');
    await revoked.client.get('/v1/contacts?limit=20');
    const forbidden = await writer.client.get('/v1/contacts?limit=20');
    expect(forbidden.status).toBe(403);
    // Revoked behind the server's back: it still takes the key for a known one.
    await admin.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [revoked.keyId]);

    const before = listBatchStats(db);
    db.resetRoundTrips();
    const calls = [
      ...tenants.map((W) => () => W.client.get('/v1/contacts?limit=20')),
      () => tenants[0].client.get('/v1/contacts?limit=20'), // a second request of one workspace: the next batch
      () => limited.client.get('/v1/contacts?limit=20'),
      () => revoked.client.get('/v1/contacts?limit=20'),
      () => writer.client.get('/v1/contacts?limit=20'),
    ];
    // All but the last: a page its workspace never served (its key's lists were refused) is read
    // by the statement that writes the texts, which waits for the pool on its own.
    const replies = await whileHeld(calls, calls.length - 1);
    const after = listBatchStats(db);

    for (let i = 0; i < tenants.length; i++) {
      expect(replies[i].status, JSON.stringify(replies[i].body)).toBe(200);
      expect(replies[i].body).toEqual(alone[i].body);
      expect(replies[i].body.data.map((c: { first_name: string }) => c.first_name)).toEqual([`T${i}`, `T${i}`, `T${i}`]);
    }
    // Counted once each: the tenants' keys had made 5 requests (3 creations, 2 lists) before.
    expect(replies.slice(1, tenants.length).map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(tenants.slice(1).map(() => String(100000 - 6)));
    expect([replies[0], replies[tenants.length]].map((r) => r.headers.get('x-ratelimit-remaining')).sort()).toEqual([String(100000 - 7), String(100000 - 6)]);
    expect(replies[tenants.length].body).toEqual(alone[0].body);
    const tooMany = replies[tenants.length + 1];
    expect(tooMany.status).toBe(429);
    expect(tooMany.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(tooMany.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(replies[tenants.length + 2].status).toBe(401);
    expect(replies[tenants.length + 2].body.error.message).toBe('This API key has been revoked');
    expect(replies[tenants.length + 3].status).toBe(403);
    expect(replies[tenants.length + 3].body).toEqual(forbidden.body);
    expect(replies[tenants.length + 3].headers.get('x-ratelimit-remaining')).toBe(String(100000 - 2));
    // The revoked key's request is not counted; the limited one's is (as alone).
    const counts = await admin.query('SELECT workspace_id, count FROM rate_limit_windows WHERE workspace_id = ANY($1)', [[limited.id, revoked.id, tenants[0].id]]);
    const byWs = Object.fromEntries(counts.rows.map((r) => [r.workspace_id, r.count]));
    expect(byWs).toEqual({ [limited.id]: 4, [revoked.id]: 2, [tenants[0].id]: 7 });
    // 14 requests: in batches, so in fewer statements than requests.
    expect(after.batches - before.batches).toBeGreaterThanOrEqual(1);
    expect(after.batched - before.batched).toBeGreaterThanOrEqual(4);
    expect(db.roundTrips).toBeLessThan(calls.length);
  });

  it('sends each request alone when the batch statement fails, so none is lost or counted twice', async () => {
    const tenants = [];
    for (let i = 0; i < 6; i++) {
      const W = await s.workspace();
      await W.client.post('/v1/contacts', { first_name: `F${i}`, last_name: 'L' });
      await W.client.get('/v1/contacts?limit=5');
      tenants.push({ W, alone: await W.client.get('/v1/contacts?limit=5') });
    }
    // Any statement counting several workspaces' requests at once fails.
    await admin.query(`CREATE FUNCTION no_batches() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF current_query() LIKE '%WITH ORDINALITY%' THEN RAISE EXCEPTION 'no batches here'; END IF; RETURN NEW; END $$`);
    await admin.query('CREATE TRIGGER no_batches BEFORE UPDATE ON rate_limit_windows FOR EACH ROW EXECUTE FUNCTION no_batches()');
    try {
      const before = listBatchStats(db);
      const replies = await whileHeld(tenants.map(({ W }) => () => W.client.get('/v1/contacts?limit=5')), tenants.length);
      expect(listBatchStats(db).batches).toBe(before.batches);
      tenants.forEach(({ alone }, i) => {
        expect(replies[i].status, JSON.stringify(replies[i].body)).toBe(200);
        expect(replies[i].body).toEqual(alone.body);
        expect(replies[i].headers.get('x-ratelimit-remaining')).toBe(String(100000 - 4));
      });
    } finally {
      await admin.query('DROP TRIGGER no_batches ON rate_limit_windows; DROP FUNCTION no_batches()');
    }
  });

  it('two processes batching the same workspaces at once count each request once, without a deadlock', async () => {
    const second = await openStore({ databaseUrl: TEST_DATABASE_URL, schema, poolSize: 2 });
    const s2 = await startServer('postgres', { store: second, webhooks: { pollMs: 0 } });
    try {
      const tenants = [];
      for (let i = 0; i < 8; i++) {
        const W = await s.workspace();
        await W.client.post('/v1/contacts', { first_name: `P${i}`, last_name: 'Two' });
        const other = new Client(s2.base, W.key);
        // Each key admitted and each page served in both processes: 1 creation + 4 lists so far.
        for (const c of [W.client, other, W.client, other]) expect((await c.get('/v1/contacts?limit=20')).status).toBe(200);
        tenants.push({ W, other, name: `P${i}` });
      }
      tenants.sort((a, b) => (a.W.id < b.W.id ? -1 : 1));
      const [b1, b2] = [listBatchStats(db), listBatchStats(second.db)];
      // A window row in the middle held, so both batches are under way at once when it is let go:
      // one locks the rows before it in the workspaces' order, the other (in the opposite order)
      // those after it, unless both lock them in one order.
      const blocker = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema},public` });
      await blocker.connect();
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM rate_limit_windows WHERE workspace_id = $1 FOR UPDATE', [tenants[4].W.id]);
      const [r1, r2] = [await holdPool(), await holdPool(second.db)];
      // One process gets them in one order, the other in the opposite one.
      const replies = Promise.all([...tenants.map((t) => () => t.W.client.get('/v1/contacts?limit=20')), ...[...tenants].reverse().map((t) => () => t.other.get('/v1/contacts?limit=20'))].map((c) => c()));
      const until = Date.now() + 10_000;
      while ((listBatchStats(db).waiting < 8 || listBatchStats(second.db).waiting < 8) && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
      await Promise.all([r1(), r2()]);
      const waitingOnLocks = async () =>
        (await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%WITH ORDINALITY%'`)).rows[0].n;
      while ((await waitingOnLocks()) < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
      await blocker.query('COMMIT');
      await blocker.end();
      const all = await replies;
      for (const r of all) expect(r.status, JSON.stringify(r.body)).toBe(200);
      // Each workspace's two requests were its 6th and 7th, one in each process.
      for (let i = 0; i < 8; i++) {
        const pair = [all[i], all[15 - i]];
        expect(pair.map((r) => r.body.data[0].first_name)).toEqual([tenants[i].name, tenants[i].name]);
        expect(pair.map((r) => r.headers.get('x-ratelimit-remaining')).sort()).toEqual([String(100000 - 7), String(100000 - 6)]);
      }
      const counts = await admin.query('SELECT sum(count)::int AS n FROM rate_limit_windows WHERE workspace_id = ANY($1)', [tenants.map((t) => t.W.id)]);
      expect(counts.rows[0].n).toBe(8 * 7);
      // Both as one statement each: neither batch failed on a deadlock and went one by one.
      expect(listBatchStats(db).batches - b1.batches).toBe(1);
      expect(listBatchStats(second.db).batches - b2.batches).toBe(1);
    } finally {
      await s2.close();
      await second.close();
    }
  });

  it('sends each list alone when batching is turned off (serve --no-batching)', async () => {
    const plain = await openStore({ databaseUrl: TEST_DATABASE_URL, schema, poolSize: 2, batching: false });
    const other = await startServer('postgres', { store: plain, webhooks: { pollMs: 0 } });
    try {
      const tenants = [];
      for (let i = 0; i < 5; i++) {
        const W = await other.workspace();
        await W.client.get('/v1/contacts?limit=20');
        tenants.push({ W, alone: await W.client.get('/v1/contacts?limit=20') });
      }
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const held = [0, 1].map(() => plain.db.pool!.withConnection(() => gate));
      await new Promise((r) => setTimeout(r, 50));
      const replies = Promise.all(tenants.map(({ W }) => W.client.get('/v1/contacts?limit=20')));
      await new Promise((r) => setTimeout(r, 200));
      expect(listBatchStats(plain.db).waiting).toBe(0);
      release();
      await Promise.all(held);
      (await replies).forEach((r, i) => expect(r.body).toEqual(tenants[i].alone.body));
      expect(listBatchStats(plain.db)).toEqual({ batches: 0, batched: 0, waiting: 0 });
    } finally {
      await other.close();
      await plain.close();
    }
  });

  it('sends a lone item at once while the pool is free, and what gathers behind a claim as one statement, one key at a time', async () => {
    const sent: string[] = [];
    const b = new StatementBatcher<string, string>(store.db, {
      min: 2, max: 4, key: (x) => x,
      one: async (_c, x) => (sent.push(`one ${x}`), x),
      many: async (_c, xs) => (sent.push(`many ${xs.join(',')}`), xs.map((x) => x.toUpperCase())),
    });
    expect(await b.run('a')).toBe('a');
    expect(b.waiting).toBe(0);
    const release = await holdPool();
    const waiting = Promise.all(['x', 'y', 'x', 'z'].map((x) => b.run(x)));
    expect(b.waiting).toBe(4);
    await release();
    // x, y, z in one statement; the second x after it, alone (fewer than min).
    expect(await waiting).toEqual(['X', 'Y', 'x', 'Z']);
    expect(sent).toEqual(['one a', 'many x,y,z', 'one x']);
    expect([b.batches, b.batched]).toEqual([1, 3]);
  });

  it('fails what waits with the pool\'s error when no connection can be had', async () => {
    // Nothing listens on port 1: each connection attempt is refused.
    const gone = await openPostgres({ connectionString: 'postgres://nobody@127.0.0.1:1/none', max: 1 });
    try {
      const b = new StatementBatcher<string, string>(gone, { min: 2, max: 4, key: (x) => x, one: async () => 'one', many: async (_c, xs) => xs });
      const first = gone.pool!.withConnection(async () => 'never');
      const waiting = b.run('z');
      expect(b.waiting).toBe(1);
      await expect(first).rejects.toThrow(/ECONNREFUSED/);
      await expect(waiting).rejects.toThrow(/ECONNREFUSED/);
      expect(b.waiting).toBe(0);
    } finally {
      await gone.close();
    }
  });
});
