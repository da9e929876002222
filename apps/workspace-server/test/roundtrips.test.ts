import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.js';
import { countRoundTrips, type CountingDb } from '../src/db/counting.js';
import { buildServer } from '../src/server.js';
import { createTag } from '../src/store/lookups.js';
import type { Store } from '../src/db/open.js';
import { ADMIN_TOKEN, Client, openTestStore, TEST_DATABASE_URL, type StoreKind } from './harness.js';

/**
 * Database round trips per API request, counted on the real server over a real store (the
 * numbers docs/store.md records). A request that gains a statement fails here: lower the
 * numbers when a change saves one, raise them only with a reason in docs/store.md.
 */
const expected = {
  'GET /v1/contacts?limit=100 (contacts created through the API: their text cached by the creation)': 2,
  'GET /v1/contacts?limit=100 (a contact changed in plain SQL: its text written out)': 3,
  'GET /v1/contacts?limit=100 (again: every contact from the text cache)': 2,
  'GET /v1/contacts?limit=100&q=harbor (from the text cache)': 2,
  'GET /v1/contacts/:id': 2,
  'POST /v1/contacts (email, phone, stage)': 2,
  'PATCH /v1/contacts/:id (stage)': 3,
  'PUT /v1/contacts/:id/tags/:tag_id': 3,
  'DELETE /v1/contacts/:id/tags/:tag_id': 3,
  'POST /v1/contacts/:id/notes': 2,
  'DELETE /v1/contacts/:id': 2,
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
    const app = await buildServer({ store: { db, close: () => store.close() }, clock: new ManualClock('2026-03-02T10:00:00.000Z'), adminToken: ADMIN_TOKEN, webhooks: { pollMs: 0 } });
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
    for (let i = 0; i < 5; i++) await client.post('/v1/contacts', { first_name: `F${i}`, last_name: 'L', company: i % 2 ? 'Harbor Realty' : 'Other' });
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
    seen['GET /v1/contacts?limit=100 (again: every contact from the text cache)'] = again.trips;
    const q = await trips(() => client.get('/v1/contacts?limit=100&q=harbor'));
    expect(q.body.data).toHaveLength(2);
    seen['GET /v1/contacts?limit=100&q=harbor (from the text cache)'] = q.trips;
    const created = await trips(() => client.post('/v1/contacts', { first_name: 'Ann', last_name: 'Lee', email: 'ann@example.com', phone: '+12075550100', stage_id: stageIds[0] }));
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
