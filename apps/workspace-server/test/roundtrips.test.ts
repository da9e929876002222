import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/shared/clock.js';
import { countRoundTrips, type CountingDb } from '../src/db/counting.js';
import { buildServer } from '../src/server.js';
import { batchStats } from '../src/db/batch.js';
import { createTag } from '../src/modules/lookups/store.js';
import { fanOut } from '../src/modules/webhooks/store.js';
import type { Store } from '../src/open-store.js';
import { openStore } from '../src/open-store.js';
import { ADMIN_TOKEN, Client, openTestStore, TEST_DATABASE_URL, uniqueSchema, type StoreKind } from './harness.js';

/**
 * Database round trips per API request, counted on the real server over a real store (the
 * numbers docs/store.md records). A request that gains a statement fails here: lower the
 * numbers when a change saves one, raise them only with a reason in docs/store.md.
 */
const expected = {
  // The list carries the key's authentication in its own statement (a key this process admitted).
  'GET /v1/contacts?limit=100 (contacts created through the API: their text cached by the creation)': 1,
  'GET /v1/contacts?limit=100 (a contact changed in plain SQL: its text written out)': 2,
  'GET /v1/contacts?limit=100 (again, nothing written since: the page held, not read)': 1,
  'GET /v1/contacts?limit=100&q=harbor (from the text cache)': 1,
  'GET /v1/contacts/:id': 1, // its authentication in the read
  'POST /v1/contacts (email, phone, stage)': 1, // its authentication in the creation's statement
  'PATCH /v1/contacts/:id (stage)': 2, // its authentication in the read; the write
  'PUT /v1/contacts/:id/tags/:tag_id': 3,
  'DELETE /v1/contacts/:id/tags/:tag_id': 3,
  'POST /v1/contacts/:id/notes': 1, // its authentication in the note's statement
  'DELETE /v1/contacts/:id': 1,
};

function defineRoundTrips(kind: StoreKind) {
  let db: CountingDb;
  let store: Store;
  let client: Client;
  let close: () => Promise<void>;
  let stageIds: string[];
  let tagId: string;

  beforeAll(async () => {
    store = await openTestStore(kind);
    db = countRoundTrips(store.db);
    const app = await buildServer({
      store: { db, close: () => store.close() },
      clock: new ManualClock('2026-03-02T10:00:00.000Z'),
      adminToken: ADMIN_TOKEN,
      webhooks: { pollMs: 0 },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    close = async () => {
      await app.close();
      await store.close();
    };
    const admin = new Client(base, ADMIN_TOKEN);
    const ws = await admin.post('/admin/workspaces', { name: 'Trips', slug: `trips-${kind}`, rate_limit_per_minute: 100000 });
    const key = await admin.post(`/admin/workspaces/${ws.body.id}/api-keys`, { scopes: ['full_access'] });
    client = new Client(base, key.body.secret);
    stageIds = (await client.get('/v1/contact-stages?limit=10')).body.data.map((s: { id: string }) => s.id);
    tagId = (await createTag(store.db, ws.body.id, 'Trips', null, new Date())).id;
    for (let i = 0; i < 5; i++)
      await client.post('/v1/contacts', { first_name: `F${i}`, last_name: 'L', company: i % 2 ? 'Harbor Realty' : 'Other' });
  });
  afterAll(async () => close?.());

  /** Runs one request and returns its status and the round trips it cost. */
  async function trips(call: () => Promise<{ status: number; body: any }>) {
    db.resetRoundTrips();
    const r = await call();
    return { status: r.status, body: r.body, trips: db.roundTrips };
  }

  it('costs the recorded number of round trips per request', async () => {
    const seen: Record<string, number> = {};
    const list = await trips(() => client.get('/v1/contacts?limit=100'));
    expect(list.status).toBe(200);
    expect(list.body.total_count).toBe(5);
    seen['GET /v1/contacts?limit=100 (contacts created through the API: their text cached by the creation)'] = list.trips;
    await store.db.query(`UPDATE contacts SET job_title = 'Agent' WHERE id = $1`, [list.body.data[0].id]);
    const changed = await trips(() => client.get('/v1/contacts?limit=100'));
    expect(changed.body.data[0].job_title).toBe('Agent');
    seen['GET /v1/contacts?limit=100 (a contact changed in plain SQL: its text written out)'] = changed.trips;
    const again = await trips(() => client.get('/v1/contacts?limit=100'));
    expect(again.body).toEqual(changed.body);
    seen['GET /v1/contacts?limit=100 (again, nothing written since: the page held, not read)'] = again.trips;
    const q = await trips(() => client.get('/v1/contacts?limit=100&q=harbor'));
    expect(q.body.data).toHaveLength(2);
    seen['GET /v1/contacts?limit=100&q=harbor (from the text cache)'] = q.trips;
    const created = await trips(() =>
      client.post('/v1/contacts', {
        first_name: 'Ann',
        last_name: 'Lee',
        email: 'ann@example.com',
        phone: '+12075550100',
        stage_id: stageIds[0],
      }),
    );
    expect(created.status).toBe(201);
    seen['POST /v1/contacts (email, phone, stage)'] = created.trips;
    const one = await trips(() => client.get(`/v1/contacts/${created.body.id}`));
    expect(one.body.email).toBe('ann@example.com');
    seen['GET /v1/contacts/:id'] = one.trips;
    const patched = await trips(() => client.patch(`/v1/contacts/${created.body.id}`, { stage_id: stageIds[1] }));
    expect(patched.body.stage.id).toBe(stageIds[1]);
    seen['PATCH /v1/contacts/:id (stage)'] = patched.trips;
    const tagged = await trips(() => client.put(`/v1/contacts/${created.body.id}/tags/${tagId}`));
    expect(tagged.body.tags.map((t: { id: string }) => t.id)).toEqual([tagId]);
    seen['PUT /v1/contacts/:id/tags/:tag_id'] = tagged.trips;
    const untagged = await trips(() => client.del(`/v1/contacts/${created.body.id}/tags/${tagId}`));
    expect(untagged.body.tags).toEqual([]);
    seen['DELETE /v1/contacts/:id/tags/:tag_id'] = untagged.trips;
    const note = await trips(() => client.post(`/v1/contacts/${created.body.id}/notes`, { body: 'called' }));
    expect(note.status).toBe(201);
    seen['POST /v1/contacts/:id/notes'] = note.trips;
    const deleted = await trips(() => client.del(`/v1/contacts/${created.body.id}`));
    expect(deleted.body.deleted).toBe(true);
    seen['DELETE /v1/contacts/:id'] = deleted.trips;
    expect(seen).toEqual(expected);
  });

  it('counts a refused key as its one authentication statement', async () => {
    const r = await trips(() => client.withKey('sk_live_nope').get('/v1/contacts'));
    expect(r.status).toBe(401);
    expect(r.trips).toBe(1);
  });
}

describe('round trips per request on PGlite', () => defineRoundTrips('pglite'));
describe.skipIf(!TEST_DATABASE_URL)('round trips per request on PostgreSQL (needs TEST_DATABASE_URL)', () => defineRoundTrips('postgres'));

/**
 * Prepared statements keep one plan (docs/store.md, "One plan per statement"): PostgreSQL plans a
 * prepared statement's first five executions for their values, then keeps a generic plan unless it
 * looks costlier. A list page with `LIMIT $n` always looked costlier, so every page was planned
 * again (half of PostgreSQL's time per page). One connection, so every statement is seen by
 * pg_prepared_statements in the session that ran it.
 */
/**
 * Both stores prepare each statement text once and keep a generic plan for it: PostgreSQL through
 * node-postgres' named queries, PGlite through named statements of its own (db/pglite.ts), where
 * PGlite's `query` parsed and planned every text on every run.
 */
describe.each([
  { kind: 'pglite', open: () => openStore({ memory: true }) },
  { kind: 'postgres', open: () => openStore({ databaseUrl: TEST_DATABASE_URL!, schema: uniqueSchema(), poolSize: 1 }) },
] as const)('plans of prepared statements on $kind (PostgreSQL: needs TEST_DATABASE_URL)', ({ kind, open }) => {
  const skip = kind === 'postgres' && !TEST_DATABASE_URL;
  let store: Store;
  let client: Client;
  let close: () => Promise<void>;
  beforeAll(async () => {
    if (skip) return;
    store = await open();
    const app = await buildServer({
      store,
      clock: new ManualClock('2026-03-02T10:00:00.000Z'),
      adminToken: ADMIN_TOKEN,
      webhooks: { pollMs: 0 },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const admin = new Client(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, ADMIN_TOKEN);
    const ws = await admin.post('/admin/workspaces', { name: 'Plans', slug: 'plans', rate_limit_per_minute: 100000 });
    client = admin.withKey((await admin.post(`/admin/workspaces/${ws.body.id}/api-keys`, { scopes: ['full_access'] })).body.secret);
    // A workspace large enough that a plan for an unknown LIMIT looks costly (older than the API's).
    await store.db.query(
      `INSERT INTO contacts (id, workspace_id, first_name, last_name, custom_fields, search_text, created_at, updated_at)
       SELECT 'con_old' || g, $1, 'Old', 'Contact', '{}'::jsonb, 'old contact', $2::timestamptz - g * interval '1 second', $2::timestamptz
         FROM generate_series(1, 20000) g`,
      [ws.body.id, '2026-01-01T00:00:00.000Z'],
    );
    await store.db.query('ANALYZE contacts');
    close = () => app.close();
  });
  afterAll(async () => close?.());

  it.skipIf(skip)('settles the hot statements on a generic plan', async () => {
    for (let i = 0; i < 12; i++) {
      const c = await client.post('/v1/contacts', { first_name: `F${i}`, last_name: 'L', email: `f${i}@example.com` });
      expect(c.status).toBe(201);
      expect((await client.get('/v1/contacts?limit=20')).body.data.map((x: { id: string }) => x.id)).toContain(c.body.id);
      expect((await client.get(`/v1/contacts/${c.body.id}`)).status).toBe(200);
      expect((await client.patch(`/v1/contacts/${c.body.id}`, { job_title: `T${i}` })).body.job_title).toBe(`T${i}`);
    }
    const { rows } = await store.db.query<{ generic_plans: string; custom_plans: string; statement: string }>(
      'SELECT generic_plans::int AS generic_plans, custom_plans::int AS custom_plans, statement FROM pg_prepared_statements',
    );
    const runs = (r: { generic_plans: string; custom_plans: string }) => Number(r.generic_plans) + Number(r.custom_plans);
    const hot = rows.filter((r) => runs(r) >= 10);
    // The list page and the creation (each with its authentication), the authentication of the
    // others, a read, a PATCH's read and write.
    expect(hot.filter((r) => r.statement.includes('string_agg(p.id')).length).toBe(1);
    expect(hot.filter((r) => r.statement.includes('INSERT INTO contacts')).length).toBe(1);
    expect(hot.length).toBeGreaterThanOrEqual(5);
    for (const r of hot)
      expect({ statement: r.statement.slice(0, 80), custom_plans: Number(r.custom_plans) }).toEqual({
        statement: r.statement.slice(0, 80),
        custom_plans: 5,
      });
  });

  // A plan made for a batch of 2 looked cheaper than the generic plan (made for a batch of unknown
  // size), so PostgreSQL planned every batch of creations again: 4–7 ms each. The batch statements
  // hide their size from the planner (BATCH_AUTH_CTES); with the arrays unnest read directly it fails.
  it.skipIf(skip)('plans a batch of creations once, whatever its size, and reuses the plan', async () => {
    const before = batchStats(store.db);
    // Rounds of a few creations at once on one connection: those that wait for it go as a batch.
    // (PGlite batches fewer of them: it waits one turn of the event loop, not for a connection.)
    for (let round = 0; round < 200 && batchStats(store.db).batches - before.batches < 15; round++) {
      const replies = await Promise.all(
        Array.from({ length: 2 + (round % 3) }, (_, i) => client.post('/v1/contacts', { first_name: `R${round}`, last_name: `N${i}` })),
      );
      expect(replies.map((r) => r.status)).toEqual(replies.map(() => 201));
    }
    expect(batchStats(store.db).batches - before.batches).toBeGreaterThanOrEqual(15);
    const batch = (await prepared()).filter((p) => p.statement.includes('jsonb_to_recordset($6::jsonb)'));
    expect(batch).toHaveLength(1);
    expect(batch[0].custom_plans).toBeLessThanOrEqual(5);
    expect(batch[0].generic_plans).toBeGreaterThanOrEqual(10);
  });

  // With its batch size as a parameter, a plan that knew the LIMIT looked cheaper than the generic
  // plan once the outbox was large, and the fan-out's read was planned at nearly every execution.
  it.skipIf(skip)("plans the fan-out's read of the outbox once: it has no parameters", async () => {
    for (let i = 0; i < 8; i++) await fanOut(store.db, new Date());
    const read = (await prepared()).filter(
      (p) => p.statement.includes('FROM outbox_cursor c') && p.statement.includes('CROSS JOIN LATERAL'),
    );
    expect(read).toHaveLength(1);
    expect(read[0]).toMatchObject({ custom_plans: 0 });
    expect(read[0].generic_plans).toBeGreaterThanOrEqual(8);
  });

  const prepared = async () =>
    (
      await store.db.query<{ statement: string; generic_plans: number; custom_plans: number }>(
        'SELECT statement, generic_plans::int AS generic_plans, custom_plans::int AS custom_plans FROM pg_prepared_statements',
      )
    ).rows;
});
