import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRoundTrips, type CountingDb } from '../src/db/counting.js';
import { openStore, type Store } from '../src/open-store.js';
import { batchStats } from '../src/db/batch.js';
import { expectCreationsAsAlone } from './batching-creations.js';
import { startServer, type Reply, type TestServer } from './harness.js';

/**
 * On PGlite a statement runs to its end before the next request is read, so nothing ever waited
 * for its one connection: a batcher's claim now takes it once the turn of the event loop is done,
 * and what arrived in that turn goes as one statement (db/pglite.ts; docs/store.md, "Batching on
 * PGlite"). Each request must still get the answer it gets alone. The test holds the connection
 * (a transaction waiting on a gate), so the requests certainly arrive while it is taken.
 */
describe('batching list and creation requests on PGlite', () => {
  let store: Store;
  let db: CountingDb;
  let s: TestServer;
  beforeAll(async () => {
    store = await openStore({ memory: true });
    db = countRoundTrips(store.db);
    s = await startServer('pglite', { store: { db, close: () => store.close() }, webhooks: { pollMs: 0 } });
  });
  afterAll(async () => {
    await s?.close();
    await store?.close();
  });

  /** Sends `calls` while PGlite's connection is held, waits until `queued` wait in the batchers, then lets them run. */
  async function whileHeld(calls: (() => Promise<Reply>)[], queued: number): Promise<Reply[]> {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let held = false;
    const holding = store.db.transaction(async () => {
      held = true;
      await gate;
    });
    while (!held) await new Promise((r) => setTimeout(r, 5));
    const before = batchStats(db).waiting;
    const replies = Promise.all(calls.map((c) => c()));
    const until = Date.now() + 10_000;
    try {
      while (batchStats(db).waiting - before < queued && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
      expect(batchStats(db).waiting - before).toBe(queued);
    } finally {
      release();
      await holding;
    }
    return replies;
  }

  const body = (i: number) => ({
    first_name: `B${i}`,
    last_name: 'Batch',
    email: `b${i}@example.com`,
    phone: '555-0100',
    custom_fields: { zeta: 1, a: [2] },
  });

  it('sends a lone request alone, in one statement, at once', async () => {
    const W = await s.workspace();
    await W.client.get('/v1/contacts?limit=20'); // the key admitted
    const before = batchStats(db);
    db.resetRoundTrips();
    const created = await W.client.post('/v1/contacts', body(1));
    expect(created.status).toBe(201);
    expect(db.roundTrips).toBe(1);
    expect(batchStats(db).batches).toBe(before.batches);
    expect((await W.client.get(`/v1/contacts/${created.body.id}`)).body).toEqual(created.body);
  });

  it('writes creations that arrive together as one statement, each as alone: contact, rows, timeline, event, count; 400, 401, 403 and 429 kept apart', () =>
    expectCreationsAsAlone({ s, db, whileHeld, query: (sql, params) => store.db.query(sql, params) }));

  it('reads first pages of lists that arrive together in one statement, each as alone', async () => {
    const tenants = [];
    for (let i = 0; i < 6; i++) {
      const W = await s.workspace();
      for (let j = 0; j < 3; j++) await W.client.post('/v1/contacts', { first_name: `T${i}`, last_name: `C${j}` });
      await W.client.get('/v1/contacts?limit=20');
      tenants.push({ W, alone: await W.client.get('/v1/contacts?limit=20') });
    }
    const before = batchStats(db);
    db.resetRoundTrips();
    const replies = await whileHeld(
      tenants.map(
        ({ W }) =>
          () =>
            W.client.get('/v1/contacts?limit=20'),
      ),
      tenants.length,
    );
    const after = batchStats(db);
    for (let i = 0; i < tenants.length; i++) {
      expect(replies[i].status).toBe(200);
      expect(replies[i].body).toEqual(tenants[i].alone.body);
      expect(replies[i].body.data.map((c: { first_name: string }) => c.first_name)).toEqual([`T${i}`, `T${i}`, `T${i}`]);
      expect(replies[i].headers.get('x-ratelimit-remaining')).toBe(String(100000 - 6));
    }
    expect(after.batches - before.batches).toBeGreaterThanOrEqual(1);
    expect(db.roundTrips).toBeLessThan(tenants.length);
  });
});
