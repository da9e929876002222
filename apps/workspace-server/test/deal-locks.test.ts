import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../src/open-store.js';
import { startServer, TEST_DATABASE_URL, uniqueSchema, type TestServer } from './harness.js';

/**
 * A changed deal moves the transactions that show it, locking them (migration 13's trigger), and a
 * transaction falling through changes its won deal (deal_disposition). Two transactions of one won
 * deal falling through at the same moment must both be answered: the PATCH locks the deal before its
 * transaction, in the trigger's order, where locking its transaction first deadlocked them (PostgreSQL
 * aborted one, a 500).
 */
describe.skipIf(!TEST_DATABASE_URL)('transactions of one deal changed at once on PostgreSQL (needs TEST_DATABASE_URL)', () => {
  const schema = uniqueSchema('deallocks');
  let store: Store;
  let s: TestServer;
  let admin: pg.Client;
  beforeAll(async () => {
    store = await openStore({ databaseUrl: TEST_DATABASE_URL, schema, poolSize: 4 });
    s = await startServer('postgres', { store, webhooks: { pollMs: 0 } });
    admin = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema},public` });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await s?.close();
  });

  it('answers two fall-throughs of transactions sharing a won deal, one after the other', async () => {
    const W = await s.workspace();
    const a = W.client;
    const pipelines = (await a.get('/v1/pipelines')).body.data;
    const won = pipelines[0].stages.find((x: { type: string }) => x.type === 'CLOSED_WON');
    const deal = (await a.post('/v1/deals', { name: 'Shared', stage_id: won.id })).body;
    const t1 = (await a.post('/v1/transactions', { deal_id: deal.id })).body;
    const t2 = (await a.post('/v1/transactions', { deal_id: deal.id })).body;
    expect([t1.deal_status, t2.deal_status]).toEqual(['won', 'won']);

    // Hold the deal so that both PATCHes are under way before either may change it.
    await admin.query('BEGIN');
    await admin.query('SELECT 1 FROM deals WHERE id = $1 FOR UPDATE', [deal.id]);
    const {
      rows: [{ pid }],
    } = await admin.query('SELECT pg_backend_pid() AS pid');
    const replies = Promise.all(
      [t1, t2].map((t) =>
        a.patch(`/v1/transactions/${t.id}`, { status: 'fell_through', deal_disposition: 'lost', deal_lost_reason: 'Financing' }),
      ),
    );
    const until = Date.now() + 20_000;
    let blocked = 0;
    const watcher = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await watcher.connect();
    try {
      while (Date.now() < until) {
        // Waiting on the held deal, or behind one that does (a row lock's queue).
        const r = await watcher.query(
          'WITH RECURSIVE b(pid) AS (SELECT $1::int UNION SELECT a.pid FROM pg_stat_activity a JOIN b ON b.pid = ANY(pg_blocking_pids(a.pid))) SELECT count(*)::int - 1 AS n FROM b',
          [pid],
        );
        blocked = r.rows[0].n;
        if (blocked >= 2) break;
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await watcher.end();
      await admin.query('COMMIT');
    }
    expect(blocked).toBe(2);
    const [r1, r2] = await replies;
    expect([r1.status, r2.status], JSON.stringify([r1.body, r2.body])).toEqual([200, 200]);
    expect([r1.body.status, r2.body.status]).toEqual(['fell_through', 'fell_through']);
    const after = (await a.get(`/v1/transactions/${t1.id}`)).body;
    expect(after.deal_status).toBe('lost');
  });
});
