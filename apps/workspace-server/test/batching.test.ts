import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LaneBatcher, StatementBatcher } from '../src/db/batch.js';
import { countRoundTrips, type CountingDb } from '../src/db/counting.js';
import type { Db } from '../src/db/db.js';
import { openStore, type Store } from '../src/open-store.js';
import { openPostgres } from '../src/db/postgres.js';
import { batchStats } from '../src/db/batch.js';
import { createContact } from '../src/modules/contacts/create.js';
import type { ContactInput } from '../src/modules/contacts/store.js';
import { expectCreationsAsAlone } from './batching-creations.js';
import { Client, startServer, TEST_DATABASE_URL, uniqueSchema, type Reply, type TestServer } from './harness.js';

/**
 * First pages of lists, and creations, that wait for a connection go to PostgreSQL as one statement
 * each (db/batch.ts, docs/store.md "Batching lists", "Batching creations"). Every request must get
 * the answer it gets alone: its own page or contact, its own 400, 401, 403 or 429, rate-limit
 * headers that count each request once, and a creation everything it writes alone.
 */
describe.skipIf(!TEST_DATABASE_URL)('batching list and creation requests on PostgreSQL (needs TEST_DATABASE_URL)', () => {
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
    for (let i = 0; i < 2; i++)
      held.push(
        of.pool!.withConnection(async () => {
          got++;
          await gate;
        }),
      );
    while (got < 2) await new Promise((r) => setTimeout(r, 5));
    return async () => {
      release();
      await Promise.all(held);
    };
  }

  /** Sends `calls` while the pool is held, waits until `queued` of them wait in the batchers, then lets them run. */
  async function whileHeld(calls: (() => Promise<Reply>)[], queued: number): Promise<Reply[]> {
    const release = await holdPool();
    const before = batchStats(db).waiting;
    const replies = Promise.all(calls.map((c) => c()));
    const until = Date.now() + 10_000;
    try {
      while (batchStats(db).waiting - before < queued && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
      expect(batchStats(db).waiting - before).toBe(queued);
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

    const before = batchStats(db);
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
    const after = batchStats(db);

    for (let i = 0; i < tenants.length; i++) {
      expect(replies[i].status, JSON.stringify(replies[i].body)).toBe(200);
      expect(replies[i].body).toEqual(alone[i].body);
      expect(replies[i].body.data.map((c: { first_name: string }) => c.first_name)).toEqual([`T${i}`, `T${i}`, `T${i}`]);
    }
    // Counted once each: the tenants' keys had made 5 requests (3 creations, 2 lists) before.
    expect(replies.slice(1, tenants.length).map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(
      tenants.slice(1).map(() => String(100000 - 6)),
    );
    expect([replies[0], replies[tenants.length]].map((r) => r.headers.get('x-ratelimit-remaining')).sort()).toEqual([
      String(100000 - 7),
      String(100000 - 6),
    ]);
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
    const counts = await admin.query('SELECT workspace_id, count FROM rate_limit_windows WHERE workspace_id = ANY($1)', [
      [limited.id, revoked.id, tenants[0].id],
    ]);
    const byWs = Object.fromEntries(counts.rows.map((r) => [r.workspace_id, r.count]));
    expect(byWs).toEqual({ [limited.id]: 4, [revoked.id]: 2, [tenants[0].id]: 7 });
    // 14 requests: in batches, so in fewer statements than requests.
    expect(after.batches - before.batches).toBeGreaterThanOrEqual(1);
    expect(after.batched - before.batched).toBeGreaterThanOrEqual(4);
    expect(db.roundTrips).toBeLessThan(calls.length);
  });

  it('writes each waiting creation as alone, in fewer statements: contact, rows, timeline, event, count; 400, 401, 403 and 429 kept apart', () =>
    expectCreationsAsAlone({ s, db, whileHeld, query: (sql, params) => admin.query(sql, params) }));

  it('counts the creations of one busy workspace that wait together each in its place, in one statement', async () => {
    // A limit above 600 a minute: a creation with another request of its workspace under way waits
    // in the workspace's lane (docs/store.md, "One busy workspace").
    const W = await s.workspace({ rate_limit_per_minute: 1000 });
    expect((await W.client.get('/v1/contacts?limit=20')).status).toBe(200);
    // 994 requests this minute: 6 left.
    await admin.query('UPDATE rate_limit_windows SET count = 994 WHERE workspace_id = $1', [W.id]);
    const before = batchStats(db);
    db.resetRoundTrips();
    const replies = await whileHeld(
      Array.from(
        { length: 9 },
        (_, i) => () => W.client.post('/v1/contacts', { first_name: `Busy${i}`, last_name: 'One', email: `busy${i}@example.com` }),
      ),
      9,
    );
    // The first, with nothing of its workspace under way, waits for the pool as any creation and
    // goes alone; the eight behind it go from the workspace's lane as one statement.
    expect(db.roundTrips).toBe(2);
    expect(batchStats(db).batches - before.batches).toBe(1);
    expect(batchStats(db).batched - before.batched).toBe(8);
    const created = replies.filter((r) => r.status === 201);
    const refused = replies.filter((r) => r.status === 429);
    expect([created.length, refused.length]).toEqual([6, 3]);
    // Each counted once, in its place: the 995th to the 1,000th admitted, the three after refused.
    expect(created.map((r) => r.headers.get('x-ratelimit-remaining')).sort()).toEqual(['0', '1', '2', '3', '4', '5']);
    for (const r of refused) expect([r.headers.get('x-ratelimit-remaining'), r.body.error.type]).toEqual(['0', 'rate_limit_error']);
    expect((await admin.query('SELECT count FROM rate_limit_windows WHERE workspace_id = $1', [W.id])).rows[0].count).toBe(1003);
    // Written once each as answered, with an email, a timeline entry and an event; nothing for the refused.
    const stored = await admin.query(
      `SELECT c.first_name, (SELECT count(*)::int FROM contact_emails e WHERE e.contact_id = c.id) AS emails,
              (SELECT count(*)::int FROM activities a WHERE a.contact_id = c.id) AS activities,
              (SELECT count(*)::int FROM events v WHERE v.type = 'contact.created' AND v.data->>'id' = c.id) AS events
         FROM contacts c WHERE c.workspace_id = $1 ORDER BY c.first_name`,
      [W.id],
    );
    expect(stored.rows).toEqual(
      created
        .map((r) => r.body.first_name)
        .sort()
        .map((first_name) => ({ first_name, emails: 1, activities: 1, events: 1 })),
    );
    // The workspace's count, kept by the creation's own counter shard, is exact.
    db.resetRoundTrips();
    await admin.query('UPDATE rate_limit_windows SET count = 0 WHERE workspace_id = $1', [W.id]);
    const list = (await W.client.get('/v1/contacts?limit=20')).body;
    expect(list.total_count).toBe(6);
    for (const r of created) expect(list.data).toContainEqual(r.body);
  });

  it("sends a busy workspace's creations at most two statements at a time, what gathers behind them as one, with the pool free", async () => {
    const W = await s.workspace({ rate_limit_per_minute: 1000 });
    expect((await W.client.get('/v1/contacts?limit=20')).status).toBe(200); // the key admitted
    const window = async () =>
      (await admin.query('SELECT count FROM rate_limit_windows WHERE workspace_id = $1', [W.id])).rows[0].count as number;
    const counted = await window();
    // Another session holds the workspace's window row: each statement that counts a request waits on it.
    const locker = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema},public` });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT 1 FROM rate_limit_windows WHERE workspace_id = $1 FOR UPDATE', [W.id]);
      // The backends waiting, directly or behind another waiter, on the locker.
      const onLock = async () =>
        Number(
          (
            await admin.query(
              `WITH RECURSIVE w(pid) AS (SELECT $1::int UNION SELECT a.pid FROM pg_stat_activity a, w WHERE w.pid = ANY(pg_blocking_pids(a.pid)))
         SELECT count(*) - 1 AS n FROM w, pg_stat_clear_snapshot()`,
              [(locker as unknown as { processID: number }).processID],
            )
          ).rows[0].n,
        );
      const until = Date.now() + 10_000;
      const before = batchStats(db);
      db.resetRoundTrips();
      const post = (i: number) =>
        W.client.post('/v1/contacts', { first_name: `Lane${i}`, last_name: 'Busy', email: `lane${i}@example.com` });
      // The first, nothing else of its workspace under way: its own statement, on one of the pool's two connections.
      const sent = [post(0)];
      while ((await onLock()) < 1 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
      // The next nine are the busy workspace's: the lane's first claim takes the other connection
      // with the second alone, its second claim waits for the pool, and what follows gathers.
      sent.push(post(1));
      while ((await onLock()) < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
      sent.push(...[2, 3, 4, 5, 6, 7, 8, 9].map(post));
      while (batchStats(db).waiting - before.waiting < 8 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
      expect(batchStats(db).waiting - before.waiting).toBe(8);
      expect(db.roundTrips).toBe(2);
      await locker.query('COMMIT');
      const replies = await Promise.all(sent);
      for (const r of replies) expect(r.status, JSON.stringify(r.body)).toBe(201);
      // Three statements for ten creations: the eight that gathered went as one when a connection came free.
      expect(db.roundTrips).toBe(3);
      expect([batchStats(db).batches - before.batches, batchStats(db).batched - before.batched]).toEqual([1, 8]);
      // Each request counted once, in its place.
      expect(await window()).toBe(counted + 10);
      const remaining = replies.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => b - a);
      expect(remaining).toEqual(Array.from({ length: 10 }, (_, i) => 1000 - counted - 1 - i));
      const stored = await admin.query(
        `SELECT c.first_name, (SELECT count(*)::int FROM contact_emails e WHERE e.contact_id = c.id) AS emails,
                (SELECT count(*)::int FROM events v WHERE v.type = 'contact.created' AND v.data->>'id' = c.id) AS events
           FROM contacts c WHERE c.workspace_id = $1 AND c.last_name = 'Busy' ORDER BY c.first_name`,
        [W.id],
      );
      expect(stored.rows).toEqual(Array.from({ length: 10 }, (_, i) => ({ first_name: `Lane${i}`, emails: 1, events: 1 })));
    } finally {
      await locker.end();
    }
  });

  it('writes creations whose requests were counted before together in one statement, each as alone', async () => {
    // A key's first request in a process, or a busy workspace's write counted apart, is counted in
    // a statement of its own; its creation then waits for the pool with others like it.
    const tenants = [await s.workspace(), await s.workspace(), await s.workspace()];
    const now = new Date('2026-03-02T10:00:00.000Z');
    const release = await holdPool();
    const before = batchStats(db);
    const inputs = [0, 1, 2, 3, 4].map((i) => ({
      ws: tenants[i % 3],
      input: { first_name: `Counted${i}`, last_name: 'Before', email: `c${i}@example.com` },
    }));
    const made = Promise.allSettled([
      ...inputs.map(({ ws, input }) => createContact(db, ws.id, input as ContactInput, now)),
      createContact(db, tenants[1].id, { first_name: 'NoStage', last_name: 'Before', stage_id: 'cst_nope' } as ContactInput, now),
    ]);
    const until = Date.now() + 10_000;
    while (batchStats(db).waiting - before.waiting < 6 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    expect(batchStats(db).waiting - before.waiting).toBe(6);
    db.resetRoundTrips();
    await release();
    const settled = await made;
    expect(db.roundTrips).toBe(1);
    expect(batchStats(db).batched - before.batched).toBe(6);
    const last = settled[5];
    expect(last.status === 'rejected' && (last.reason as { message: string }).message).toBe('No such contact stage: cst_nope');
    for (const [i, r] of settled.slice(0, 5).entries()) {
      if (r.status !== 'fulfilled') throw new Error(`creation ${i} failed: ${String(r.reason)}`);
      const W = inputs[i].ws;
      const read = await W.client.get(`/v1/contacts/${r.value.id}`);
      expect(read.status).toBe(200);
      expect([read.body.first_name, read.body.emails.map((e: { value: string }) => e.value)]).toEqual([
        `Counted${i}`,
        [`c${i}@example.com`],
      ]);
      expect((await W.client.get(`/v1/contacts/${r.value.id}/activities`)).body.data.map((a: { type: string }) => a.type)).toEqual([
        'contact_created',
      ]);
    }
    // The workspaces' counts, each kept by the creations' own counter shard, are exact; one event each.
    expect(await Promise.all(tenants.map(async (W) => (await W.client.get('/v1/contacts?limit=20')).body.total_count))).toEqual([2, 2, 1]);
    const ids = settled.slice(0, 5).map((r) => (r as PromiseFulfilledResult<{ id: string }>).value.id);
    expect(
      (await admin.query("SELECT count(*)::int AS n FROM events WHERE type = 'contact.created' AND data->>'id' = ANY($1)", [ids])).rows[0]
        .n,
    ).toBe(5);
    expect(
      (await admin.query("SELECT count(*)::int AS n FROM contacts WHERE first_name = 'NoStage' AND workspace_id = $1", [tenants[1].id]))
        .rows[0].n,
    ).toBe(0);
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
      const before = batchStats(db);
      const replies = await whileHeld(
        tenants.map(
          ({ W }) =>
            () =>
              W.client.get('/v1/contacts?limit=5'),
        ),
        tenants.length,
      );
      expect(batchStats(db).batches).toBe(before.batches);
      tenants.forEach(({ alone }, i) => {
        expect(replies[i].status, JSON.stringify(replies[i].body)).toBe(200);
        expect(replies[i].body).toEqual(alone.body);
        expect(replies[i].headers.get('x-ratelimit-remaining')).toBe(String(100000 - 4));
      });
      // Creations too: each written once, alone.
      const created = await whileHeld(
        tenants.map(
          ({ W }, i) =>
            () =>
              W.client.post('/v1/contacts', { first_name: `Again${i}`, last_name: 'L' }),
        ),
        tenants.length,
      );
      expect(batchStats(db).batches).toBe(before.batches);
      for (const [i, { W }] of tenants.entries()) {
        expect(created[i].status, JSON.stringify(created[i].body)).toBe(201);
        expect(created[i].headers.get('x-ratelimit-remaining')).toBe(String(100000 - 5));
        const list = (await W.client.get('/v1/contacts?limit=5')).body;
        expect(list.total_count).toBe(2);
        expect(list.data.filter((c: { first_name: string }) => c.first_name === `Again${i}`)).toEqual([created[i].body]);
      }
    } finally {
      await admin.query('DROP TRIGGER no_batches ON rate_limit_windows; DROP FUNCTION no_batches()');
    }
  });

  it.each(['lists', 'creations'] as const)(
    'two processes batching %s of the same workspaces at once count each request once, without a deadlock',
    async (kind) => {
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
        const [b1, b2] = [batchStats(db), batchStats(second.db)];
        // A window row in the middle held, so both batches are under way at once when it is let go:
        // one locks the rows before it in the workspaces' order, the other (in the opposite order)
        // those after it, unless both lock them in one order.
        const blocker = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema},public` });
        await blocker.connect();
        await blocker.query('BEGIN');
        await blocker.query('SELECT 1 FROM rate_limit_windows WHERE workspace_id = $1 FOR UPDATE', [tenants[4].W.id]);
        const [r1, r2] = [await holdPool(), await holdPool(second.db)];
        // One process gets them in one order, the other in the opposite one.
        const send = (c: Client, name: string) =>
          kind === 'lists' ? c.get('/v1/contacts?limit=20') : c.post('/v1/contacts', { first_name: name, last_name: 'Again' });
        const replies = Promise.all(
          [...tenants.map((t) => () => send(t.W.client, t.name)), ...[...tenants].reverse().map((t) => () => send(t.other, t.name))].map(
            (c) => c(),
          ),
        );
        const until = Date.now() + 10_000;
        while ((batchStats(db).waiting < 8 || batchStats(second.db).waiting < 8) && Date.now() < until)
          await new Promise((r) => setTimeout(r, 5));
        await Promise.all([r1(), r2()]);
        const waitingOnLocks = async () =>
          (
            await admin.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%WITH ORDINALITY%'`,
            )
          ).rows[0].n;
        while ((await waitingOnLocks()) < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
        await blocker.query('COMMIT');
        await blocker.end();
        const all = await replies;
        for (const r of all) expect(r.status, JSON.stringify(r.body)).toBe(kind === 'lists' ? 200 : 201);
        // Each workspace's two requests were its 6th and 7th, one in each process.
        for (let i = 0; i < 8; i++) {
          const pair = [all[i], all[15 - i]];
          if (kind === 'lists') expect(pair.map((r) => r.body.data[0].first_name)).toEqual([tenants[i].name, tenants[i].name]);
          else expect(pair.map((r) => r.body.first_name)).toEqual([tenants[i].name, tenants[i].name]);
          expect(pair.map((r) => r.headers.get('x-ratelimit-remaining')).sort()).toEqual([String(100000 - 7), String(100000 - 6)]);
        }
        if (kind === 'creations') {
          const created = await admin.query(
            "SELECT workspace_id, count(*)::int AS n FROM contacts WHERE last_name = 'Again' AND workspace_id = ANY($1) GROUP BY workspace_id",
            [tenants.map((t) => t.W.id)],
          );
          expect(created.rows.map((r) => r.n)).toEqual(tenants.map(() => 2));
        }
        const counts = await admin.query('SELECT sum(count)::int AS n FROM rate_limit_windows WHERE workspace_id = ANY($1)', [
          tenants.map((t) => t.W.id),
        ]);
        expect(counts.rows[0].n).toBe(8 * 7);
        // Both as one statement each: neither batch failed on a deadlock and went one by one.
        expect(batchStats(db).batches - b1.batches).toBe(1);
        expect(batchStats(second.db).batches - b2.batches).toBe(1);
      } finally {
        await s2.close();
        await second.close();
      }
    },
  );

  it('sends each list and creation alone when batching is turned off (serve --no-batching)', async () => {
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
      expect(batchStats(plain.db).waiting).toBe(0);
      release();
      await Promise.all(held);
      (await replies).forEach((r, i) => expect(r.body).toEqual(tenants[i].alone.body));
      // Nor creations.
      let release2!: () => void;
      const gate2 = new Promise<void>((r) => (release2 = r));
      const held2 = [0, 1].map(() => plain.db.pool!.withConnection(() => gate2));
      await new Promise((r) => setTimeout(r, 50));
      const created = Promise.all(tenants.map(({ W }) => W.client.post('/v1/contacts', { first_name: 'Plain', last_name: 'L' })));
      await new Promise((r) => setTimeout(r, 200));
      expect(batchStats(plain.db).waiting).toBe(0);
      release2();
      await Promise.all(held2);
      for (const r of await created) expect(r.status).toBe(201);
      expect(batchStats(plain.db)).toEqual({ batches: 0, batched: 0, waiting: 0 });
    } finally {
      await other.close();
      await plain.close();
    }
  });

  it('sends a lone item at once while the pool is free, and what gathers behind a claim as one statement, one key at a time', async () => {
    const sent: string[] = [];
    const b = new StatementBatcher<string, string>(store.db, {
      min: 2,
      max: 4,
      key: (x) => x,
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

  it("sends a lane's items at most two statements at a time, what gathers behind them as one, each key its own lane", async () => {
    const sent: string[] = [];
    const gates = new Map<string, () => void>();
    const b = new LaneBatcher<string, string>(store.db, {
      min: 2,
      max: 3,
      inFlight: 2,
      one: async (_c, x) => {
        sent.push(`one ${x}`);
        if (x.startsWith('a')) await new Promise<void>((r) => gates.set(x, r)); // lane a's statements under way until let go
        return x;
      },
      many: async (_c, xs) => (sent.push(`many ${xs.join(',')}`), xs.map((x) => x.toUpperCase())),
    });
    const until = async (n: number) => {
      while (sent.length < n) await new Promise((r) => setTimeout(r, 1));
    };
    const first = b.run('a', 'a1');
    await until(1);
    const second = b.run('a', 'a2');
    await until(2);
    // Two under way for lane a: the next ones gather. Lane b claims a connection of its own (the
    // pool's two are lane a's, so it waits for one).
    const rest = ['a3', 'a4', 'a5', 'a6', 'a7'].map((x) => b.run('a', x));
    const other = b.run('b', 'b1');
    expect(b.waiting).toBe(6);
    // a2's statement returns: its connection goes to lane b's claim, first in the pool's queue;
    // lane a claims again, behind it, for up to max of what gathered, then for the rest.
    gates.get('a2')!();
    expect(await second).toBe('a2');
    expect(await other).toBe('b1');
    expect(await Promise.all(rest)).toEqual(['A3', 'A4', 'A5', 'A6', 'A7']);
    gates.get('a1')!();
    expect(await first).toBe('a1');
    expect(sent).toEqual(['one a1', 'one a2', 'one b1', 'many a3,a4,a5', 'many a6,a7']);
    expect([b.batches, b.batched, b.waiting]).toEqual([2, 5, 0]);
  });

  it("fails what waits in a lane with the pool's error when no connection can be had", async () => {
    const gone = await openPostgres({ connectionString: 'postgres://nobody@127.0.0.1:1/none', max: 1 });
    try {
      const b = new LaneBatcher<string, string>(gone, { min: 2, max: 4, inFlight: 2, one: async () => 'one', many: async (_c, xs) => xs });
      const waiting = ['x', 'y', 'z'].map((x) => b.run('k', x));
      await Promise.all(waiting.map((w) => expect(w).rejects.toThrow(/ECONNREFUSED/)));
      expect(b.waiting).toBe(0);
    } finally {
      await gone.close();
    }
  });

  it("fails what waits with the pool's error when no connection can be had", async () => {
    // Nothing listens on port 1: each connection attempt is refused.
    const gone = await openPostgres({ connectionString: 'postgres://nobody@127.0.0.1:1/none', max: 1 });
    try {
      const b = new StatementBatcher<string, string>(gone, {
        min: 2,
        max: 4,
        key: (x) => x,
        one: async () => 'one',
        many: async (_c, xs) => xs,
      });
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
