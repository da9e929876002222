import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRoundTrips, type CountingDb } from '../src/db/counting.js';
import { ManualClock } from '../src/shared/clock.js';
import { contactPageCache, contactTextCache } from '../src/modules/contacts/cache.js';
import { hashSecret, usableKeys } from '../src/modules/workspaces/store.js';
import {
  Client,
  expectError,
  openTestStore,
  startServer,
  TEST_DATABASE_URL,
  uniqueSchema,
  type Reply,
  type StoreKind,
  type TestServer,
} from './harness.js';

/**
 * GET /v1/contacts authenticates inside its page's statement once this process has admitted the
 * key (docs/store.md, "Authentication inside the route's statement"). Every answer must be the one
 * the separate authentication statement gives: the same 401s, 429s and 403s, in the same order,
 * the same rate-limit headers, and every request counted once.
 */
function defineAuthInStatement(kind: StoreKind) {
  let s: TestServer;
  let db: CountingDb;
  beforeAll(async () => {
    const store = await openTestStore(kind);
    db = countRoundTrips(store.db);
    // No webhook worker: its polls would count as statements.
    s = await startServer(kind, { store: { db, close: () => store.close() }, webhooks: { pollMs: 0 } });
  });
  afterAll(async () => {
    await s?.close();
    await s?.store.close();
  });
  const trips = async <T>(call: () => Promise<T>) => {
    db.resetRoundTrips();
    const r = await call();
    return { r, trips: db.roundTrips };
  };

  it('costs one statement for a key admitted before, and answers the same page', async () => {
    const W = await s.workspace();
    await W.client.post('/v1/contacts', { first_name: 'Ann', last_name: 'Lee' });
    const fresh = await s.workspace();
    await fresh.client.post('/v1/contacts', { first_name: 'Bo', last_name: 'Ray' });
    const other = await s.key(fresh.id, ['read_contacts']);
    const first = await trips(() => other.client.get('/v1/contacts'));
    expect(first.trips).toBe(2); // the key's first request: its own authentication statement
    const second = await trips(() => other.client.get('/v1/contacts'));
    expect(second.r.status, JSON.stringify(second.r.body)).toBe(200);
    expect(second.trips).toBe(1);
    expect(second.r.body).toEqual(first.r.body);
    expect(second.r.body.data.map((c: { first_name: string }) => c.first_name)).toEqual(['Bo']);
    expect(second.r.headers.get('x-ratelimit-remaining')).toBe(String(100000 - 3));
  });

  it('knows the usable keys from its start: a key made before the server costs one statement from its first request', async () => {
    const W = await s.workspace();
    await W.client.post('/v1/contacts', { first_name: 'Cy', last_name: 'Old' });
    const revoked = await s.key(W.id, ['full_access']);
    expect((await s.admin.del(`/admin/api-keys/${revoked.id}`)).status).toBe(200);
    const expired = await s.key(W.id, ['full_access'], { expires_at: new Date(s.clock.now().getTime() + 1_000).toISOString() });
    s.clock.advance(2_000);
    // Only usable keys: not the revoked one, not the expired one.
    const known = new Map((await usableKeys(db, s.clock.now(), 100_000)).map((k) => [k.hash, k.workspaceId]));
    expect(known.get(hashSecret(W.key))).toBe(W.id);
    expect(known.has(hashSecret(revoked.secret))).toBe(false);
    expect(known.has(hashSecret(expired.secret))).toBe(false);
    // A second server on the same store, started now, as after a restart.
    const two = await startServer(kind, { store: { db, close: async () => {} }, clock: s.clock, webhooks: { pollMs: 0 } });
    try {
      const viaTwo = new Client(two.base, W.key);
      const first = await trips(() => viaTwo.get('/v1/contacts'));
      expect(first.r.status, JSON.stringify(first.r.body)).toBe(200);
      expect(first.trips).toBe(1);
      expect(first.r.body.data.map((c: { first_name: string }) => c.first_name)).toEqual(['Cy']);
      for (const [secret, message] of [
        [revoked.secret, 'This API key has been revoked'],
        [expired.secret, 'This API key has expired'],
      ]) {
        const r = await new Client(two.base, secret).get('/v1/contacts');
        expectError(r, 401, 'authentication_error');
        expect(r.body.error.message).toBe(message);
      }
    } finally {
      await two.close();
    }
  });

  it('reads a page it has not served in one statement that writes its texts, in order, then serves it unread while unchanged, and from the text cache once changed', async () => {
    const W = await s.workspace();
    expect((await W.client.get('/v1/me')).status).toBe(200); // the key admitted: lists carry it
    // Contacts written in plain SQL, so none is in the text cache; timestamps a millisecond apart
    // and some equal, so the order is the one of (created_at, id) and not of insertion.
    await db.query(
      `INSERT INTO contacts (id, workspace_id, first_name, last_name, custom_fields, search_text, created_at, updated_at)
       SELECT 'con_sql' || lpad(((g * 7) % 30)::text, 2, '0'), $1, 'Sql', 'N' || g, '{}'::jsonb, 'sql', $2::timestamptz - (g / 3) * interval '1 millisecond', $2::timestamptz
         FROM generate_series(0, 29) g`,
      [W.id, '2026-03-01T00:00:00.000Z'],
    );
    const cache = contactTextCache(db);
    const pageCache = contactPageCache(db);
    const expected = (
      await db.query<{ id: string }>('SELECT id FROM contacts WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC', [W.id])
    ).rows.map((r) => r.id);
    const read = async (path: string) => {
      const [hits, pages] = [cache.hits, pageCache.hits];
      const t = await trips(() => W.client.get(path));
      expect(t.r.status, JSON.stringify(t.r.body)).toBe(200);
      return { body: t.r.body, trips: t.trips, hits: cache.hits - hits, pages: pageCache.hits - pages };
    };
    const first = await read('/v1/contacts?limit=25');
    expect(first).toMatchObject({ trips: 1, hits: 0 });
    expect(first.body.data.map((c: { id: string }) => c.id)).toEqual(expected.slice(0, 25));
    expect(first.body.total_count).toBe(30);
    const rest = await read(`/v1/contacts?limit=25&cursor=${first.body.next_cursor}`);
    expect(rest).toMatchObject({ trips: 1, hits: 0 });
    expect(rest.body.data.map((c: { id: string }) => c.id)).toEqual(expected.slice(25));
    expect(rest.body.has_more).toBe(false);
    // Served before, and no contact written since: the statement leaves the page out (the
    // workspace's write generation is the one the page was read at), the body is the one held.
    const again = await read('/v1/contacts?limit=25');
    expect(again).toMatchObject({ trips: 1, hits: 0, pages: 1 });
    expect(again.body).toEqual(first.body);
    // A contact written since, in plain SQL: the page's ids and versions, every other text from
    // the cache, the changed one written out by a second statement.
    await db.query("UPDATE contacts SET job_title = 'Broker' WHERE id = $1", [expected[3]]);
    const changed = await read('/v1/contacts?limit=25');
    expect(changed).toMatchObject({ trips: 2, hits: 24, pages: 0 });
    expect(changed.body.data.map((c: { id: string }) => c.id)).toEqual(expected.slice(0, 25));
    expect(changed.body.data[3].job_title).toBe('Broker');
    expect(changed.body.data.filter((_: unknown, i: number) => i !== 3)).toEqual(
      first.body.data.filter((_: unknown, i: number) => i !== 3),
    );
    expect(await read('/v1/contacts?limit=25')).toMatchObject({ trips: 1, hits: 0, pages: 1, body: changed.body });
    // A search is not a page of its own: its contacts' texts come from the cache the list filled.
    const search = await read('/v1/contacts?limit=25&q=sql');
    expect(search).toMatchObject({ trips: 1, hits: 25 });
    expect(search.body.data).toEqual(changed.body.data);
    // A refused key reads no page through that statement either.
    const reader = await s.key(W.id, ['read_deals']);
    expect((await reader.client.get('/v1/me')).status).toBe(200);
    const refused = await trips(() => reader.client.get('/v1/contacts?limit=5'));
    expectError(refused.r, 403, 'permission_error');
    expect(refused.trips).toBe(1);
  });

  it('refuses a key revoked or expired after it was admitted, in that one statement, and forgets it', async () => {
    const W = await s.workspace();
    expect((await W.client.get('/v1/contacts')).status).toBe(200);
    expect((await s.admin.del(`/admin/api-keys/${W.keyId}`)).status).toBe(200);
    const revoked = await trips(() => W.client.get('/v1/contacts'));
    expectError(revoked.r, 401, 'authentication_error');
    expect(revoked.r.body.error.message).toBe('This API key has been revoked');
    expect(revoked.trips).toBe(1);
    expect((await trips(() => W.client.get('/v1/contacts'))).trips).toBe(1); // forgotten: the separate statement, which refuses
    expectError(await W.client.get('/v1/contacts'), 401, 'authentication_error');

    const expiring = await s.key(W.id, ['full_access'], { expires_at: new Date(s.clock.now().getTime() + 60_000).toISOString() });
    expect((await expiring.client.get('/v1/contacts')).status).toBe(200);
    s.clock.advance(61_000);
    const expired = await expiring.client.get('/v1/contacts');
    expectError(expired, 401, 'authentication_error');
    expect(expired.body.error.message).toBe('This API key has expired');
  });

  it('counts every request once and answers 429 past the limit with the same headers', async () => {
    const W = await s.workspace({ rate_limit_per_minute: 4 });
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await (i % 2 ? W.client.get('/v1/me') : W.client.get('/v1/contacts'));
      expect(r.status).toBe(200);
      remaining.push(r.headers.get('x-ratelimit-remaining'));
    }
    expect(remaining).toEqual(['3', '2', '1', '0']);
    const over = await W.client.get('/v1/contacts');
    expectError(over, 429, 'rate_limit_error');
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(over.headers.get('x-ratelimit-limit')).toBe('4');
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    s.clock.advance(60_000);
    const next = await W.client.get('/v1/contacts');
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('3');
  });

  it('refuses a key without the scope (403), counted', async () => {
    const W = await s.workspace({ rate_limit_per_minute: 50 });
    const writer = await s.key(W.id, ['read_deals']);
    expect((await writer.client.get('/v1/deals')).status).toBe(200);
    // Admitted on a route it may use, then refused on the list whether it goes the one-statement way or not.
    for (const left of ['48', '47']) {
      const r = await writer.client.get('/v1/contacts');
      expectError(r, 403, 'permission_error');
      expect(r.headers.get('x-ratelimit-remaining')).toBe(left);
    }
  });

  it('answers a bad query of an admitted key with its 400, counted, and a bad query of a revoked key with the 401', async () => {
    const W = await s.workspace({ rate_limit_per_minute: 50 });
    expect((await W.client.get('/v1/contacts')).status).toBe(200);
    const bad = await W.client.get('/v1/contacts?limit=0');
    expectError(bad, 400, 'invalid_request_error', 'limit');
    expect(bad.headers.get('x-ratelimit-remaining')).toBe('48');
    const cursor = await W.client.get('/v1/contacts?cursor=garbled');
    expectError(cursor, 400, 'invalid_request_error', 'cursor');
    expect(cursor.headers.get('x-ratelimit-remaining')).toBe('47');
    expect((await s.admin.del(`/admin/api-keys/${W.keyId}`)).status).toBe(200);
    expectError(await W.client.get('/v1/contacts?limit=0'), 401, 'authentication_error');
    expectError(await W.client.get('/v1/contacts?limit=0'), 401, 'authentication_error');
  });

  it('creates a contact in one statement, and writes nothing for a refused request', async () => {
    const W = await s.workspace({ rate_limit_per_minute: 8 });
    const reader = await s.key(W.id, ['read_contacts']);
    const total = async () => (await reader.client.get('/v1/contacts')).body.total_count as number;
    expect(await total()).toBe(0); // 1 request of 8
    expect((await W.client.post('/v1/contacts', { first_name: 'A', last_name: 'One' })).status).toBe(201); // 2: the key's first
    const created = await trips(() => W.client.post('/v1/contacts', { first_name: 'B', last_name: 'Two', email: 'b@example.com' })); // 3
    expect(created.r.status).toBe(201);
    expect(created.trips).toBe(1);
    expect(created.r.headers.get('x-ratelimit-remaining')).toBe('5');
    expect(await total()).toBe(2); // 4
    // A key without the write scope, admitted on the list: 403 and nothing written.
    expectError(await reader.client.post('/v1/contacts', { first_name: 'C', last_name: 'No' }), 403, 'permission_error'); // 5
    // A bad reference: the 400 names it, nothing written.
    expectError(
      await W.client.post('/v1/contacts', { first_name: 'D', last_name: 'No', stage_id: 'stg_nope' }),
      400,
      'invalid_request_error',
      'stage_id',
    ); // 6
    // A bad body: the 400, counted.
    const bad = await W.client.post('/v1/contacts', { last_name: 'No' }); // 7
    expectError(bad, 400, 'invalid_request_error');
    expect(bad.headers.get('x-ratelimit-remaining')).toBe('1');
    expect(await total()).toBe(2); // 8
    expectError(await W.client.post('/v1/contacts', { first_name: 'E', last_name: 'Over' }), 429, 'rate_limit_error'); // 9: over the limit
    s.clock.advance(60_000);
    expect(await total()).toBe(2);
    expect((await s.admin.del(`/admin/api-keys/${W.keyId}`)).status).toBe(200);
    const revoked = await W.client.post('/v1/contacts', { first_name: 'F', last_name: 'Revoked' });
    expectError(revoked, 401, 'authentication_error');
    expect(revoked.body.error.message).toBe('This API key has been revoked');
    expect(await total()).toBe(2);
  });

  it("reads a contact in one statement: 404 for another workspace's or none, 403 without the scope, 429 and 401 as for any request", async () => {
    const W = await s.workspace({ rate_limit_per_minute: 7 });
    const other = await s.workspace();
    const id = (await W.client.post('/v1/contacts', { first_name: 'Get', last_name: 'One', email: 'get@example.com' })).body.id as string; // 1
    const theirs = (await other.client.post('/v1/contacts', { first_name: 'Not', last_name: 'Yours' })).body.id as string;
    const deals = await s.key(W.id, ['read_deals']);
    expect((await deals.client.get('/v1/me')).status).toBe(200); // 2: admitted, so its reads carry it
    const got = await trips(() => W.client.get(`/v1/contacts/${id}`)); // 3
    expect(got.r.status, JSON.stringify(got.r.body)).toBe(200);
    expect(got.trips).toBe(1);
    expect(got.r.body).toMatchObject({ id, first_name: 'Get', last_name: 'One', email: 'get@example.com' });
    expect(got.r.headers.get('x-ratelimit-remaining')).toBe('4');
    for (const missing of [theirs, 'con_missing']) {
      const r = await trips(() => W.client.get(`/v1/contacts/${missing}`)); // 4, 5: admitted, counted, then not found
      expectError(r.r, 404, 'invalid_request_error', 'contact_id');
      expect(r.trips).toBe(1);
    }
    const refused = await trips(() => deals.client.get(`/v1/contacts/${id}`)); // 6: counted, refused
    expectError(refused.r, 403, 'permission_error');
    expect(refused.trips).toBe(1);
    expect((await W.client.get(`/v1/contacts/${id}`)).status).toBe(200); // 7: the window's last
    expectError(await W.client.get(`/v1/contacts/${id}`), 429, 'rate_limit_error');
    s.clock.advance(60_000);
    expect((await s.admin.del(`/admin/api-keys/${W.keyId}`)).status).toBe(200);
    const revoked = await trips(() => W.client.get(`/v1/contacts/${id}`));
    expectError(revoked.r, 401, 'authentication_error');
    expect(revoked.r.body.error.message).toBe('This API key has been revoked');
    expect(revoked.trips).toBe(1);
  });

  it('deletes a contact in one statement, and deletes nothing for a refused request', async () => {
    const W = await s.workspace({ rate_limit_per_minute: 9 });
    const reader = await s.key(W.id, ['read_contacts']);
    const ids = [] as string[];
    for (const n of ['A', 'B']) ids.push((await W.client.post('/v1/contacts', { first_name: n, last_name: 'Del' })).body.id); // 1, 2
    const exists = async (id: string) => (await W.client.get(`/v1/contacts/${id}`)).status === 200;
    expect((await reader.client.get('/v1/contacts')).status).toBe(200); // the reader admitted (its own count: the workspace's window)
    const refused = await trips(() => reader.client.del(`/v1/contacts/${ids[0]}`));
    expectError(refused.r, 403, 'permission_error');
    expect(refused.trips).toBe(1);
    expect(await exists(ids[0])).toBe(true); // 5
    const deleted = await trips(() => W.client.del(`/v1/contacts/${ids[0]}`)); // 6
    expect(deleted.r.status, JSON.stringify(deleted.r.body)).toBe(200);
    expect(deleted.r.body).toEqual({ id: ids[0], deleted: true });
    expect(deleted.trips).toBe(1);
    expect(deleted.r.headers.get('x-ratelimit-remaining')).toBe('3');
    const again = await trips(() => W.client.del(`/v1/contacts/${ids[0]}`)); // 7: admitted, counted, then not found
    expectError(again.r, 404, 'invalid_request_error', 'contact_id');
    expect(again.trips).toBe(1);
    expect(again.r.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(await exists(ids[1])).toBe(true); // 8
    expect((await W.client.get('/v1/me')).status).toBe(200); // 9: the window's last
    expectError(await W.client.del(`/v1/contacts/${ids[1]}`), 429, 'rate_limit_error');
    s.clock.advance(60_000);
    expect(await exists(ids[1])).toBe(true);
    expect((await s.admin.del(`/admin/api-keys/${W.keyId}`)).status).toBe(200);
    const revoked = await W.client.del(`/v1/contacts/${ids[1]}`);
    expectError(revoked, 401, 'authentication_error');
    expect(revoked.body.error.message).toBe('This API key has been revoked');
    expect((await reader.client.get(`/v1/contacts/${ids[1]}`)).status).toBe(200);
  });

  it('updates a contact in two statements (the read carries the key), and writes nothing for a refused request', async () => {
    const W = await s.workspace({ rate_limit_per_minute: 10 });
    const reader = await s.key(W.id, ['read_contacts']);
    const id = (await W.client.post('/v1/contacts', { first_name: 'P', last_name: 'Atch', email: 'p@example.com' })).body.id; // 1
    const stages = (await W.client.get('/v1/contact-stages')).body.data as { id: string; name: string }[]; // 2
    const read = async () => (await reader.client.get(`/v1/contacts/${id}`)).body; // the reader: admitted, counted
    const before = await read(); // 3
    const events = async () =>
      (await s.store.db.query(`SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND type = 'contact.updated'`, [W.id])).rows[0]
        .n as number;
    const timeline = async () =>
      (await s.store.db.query(`SELECT count(*)::int AS n FROM activities WHERE contact_id = $1`, [id])).rows[0].n as number;
    const [events0, timeline0] = [await events(), await timeline()];
    // A key without the write scope: 403 from the read's row, in one statement, before the 404 a
    // missing contact would be and before the 400 of a missing stage.
    for (const target of [id, 'con_missing']) {
      const refused = await trips(() => reader.client.patch(`/v1/contacts/${target}`, { stage_id: 'cst_missing' })); // 4, 5
      expectError(refused.r, 403, 'permission_error');
      expect(refused.trips).toBe(1);
    }
    const patched = await trips(() => W.client.patch(`/v1/contacts/${id}`, { stage_id: stages[1].id, job_title: 'Broker' })); // 6
    expect(patched.r.status, JSON.stringify(patched.r.body)).toBe(200);
    expect(patched.trips).toBe(2);
    expect(patched.r.headers.get('x-ratelimit-remaining')).toBe('4');
    expect(patched.r.body.stage).toEqual({ id: stages[1].id, name: stages[1].name });
    expect(patched.r.body.job_title).toBe('Broker');
    expect(await events()).toBe(events0 + 1); // contact.updated on the stage change
    expect(await timeline()).toBe(timeline0 + 2); // contact_updated and stage_changed
    const missing = await trips(() => W.client.patch('/v1/contacts/con_missing', { job_title: 'X' })); // 7: admitted, counted, then not found
    expectError(missing.r, 404, 'invalid_request_error', 'contact_id');
    expect(missing.trips).toBe(1);
    expect(missing.r.headers.get('x-ratelimit-remaining')).toBe('3');
    expectError(await W.client.patch(`/v1/contacts/${id}`, { stage_id: 'cst_missing' }), 400, 'invalid_request_error', 'stage_id'); // 8
    expectError(await W.client.patch(`/v1/contacts/${id}`, { first_name: '' }), 400, 'invalid_request_error', 'first_name'); // 9
    const after = await read(); // 10: the window's last
    expect(after).toEqual(patched.r.body);
    const over = await W.client.patch(`/v1/contacts/${id}`, { job_title: 'Over' });
    expectError(over, 429, 'rate_limit_error');
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
    s.clock.advance(60_000);
    expect((await read()).job_title).toBe('Broker');
    expect((await s.admin.del(`/admin/api-keys/${W.keyId}`)).status).toBe(200);
    const revoked = await W.client.patch(`/v1/contacts/${id}`, { job_title: 'Revoked' });
    expectError(revoked, 401, 'authentication_error');
    expect(revoked.body.error.message).toBe('This API key has been revoked');
    expectError(await W.client.patch('/v1/contacts/con_missing', { job_title: 'Revoked' }), 401, 'authentication_error');
    expect((await read()).job_title).toBe('Broker');
    expect([await events(), await timeline()]).toEqual([events0 + 1, timeline0 + 2]);
    expect(before.job_title).toBeNull();
  });

  it('adds a note in one statement, and writes nothing for a refused request', async () => {
    const W = await s.workspace({ rate_limit_per_minute: 7 });
    const reader = await s.key(W.id, ['read_contacts']);
    const id = (await W.client.post('/v1/contacts', { first_name: 'N', last_name: 'Ote' })).body.id; // 1
    const notes = async () =>
      (
        await s.store.db.query(
          `SELECT (SELECT count(*) FROM activities WHERE contact_id = $1 AND type = 'note')::int AS notes,
              (SELECT count(*) FROM events WHERE workspace_id = $2 AND type = 'note.created')::int AS events`,
          [id, W.id],
        )
      ).rows[0];
    expect((await reader.client.get('/v1/contacts')).status).toBe(200); // 2: the reader admitted
    for (const target of [id, 'con_missing']) {
      const refused = await trips(() => reader.client.post(`/v1/contacts/${target}/notes`, { body: 'no' })); // 3, 4
      expectError(refused.r, 403, 'permission_error');
      expect(refused.trips).toBe(1);
    }
    expect(await notes()).toEqual({ notes: 0, events: 0 });
    const added = await trips(() => W.client.post(`/v1/contacts/${id}/notes`, { body: 'Called back' })); // 5
    expect(added.r.status, JSON.stringify(added.r.body)).toBe(201);
    expect(added.trips).toBe(1);
    expect(added.r.body).toMatchObject({ type: 'note', title: 'Note', description: 'Called back' });
    expect(added.r.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(await notes()).toEqual({ notes: 1, events: 1 });
    const contact = (await W.client.get(`/v1/contacts/${id}`)).body; // 6
    expect(contact.last_activity_at).toBe(added.r.body.created_at);
    const missing = await trips(() => W.client.post('/v1/contacts/con_missing/notes', { body: 'x' })); // 7
    expectError(missing.r, 404, 'invalid_request_error', 'contact_id');
    expect(missing.trips).toBe(1);
    expectError(await W.client.post(`/v1/contacts/${id}/notes`, { body: 'over' }), 429, 'rate_limit_error');
    s.clock.advance(60_000);
    const bad = await W.client.post(`/v1/contacts/${id}/notes`, { body: '' });
    expectError(bad, 400, 'invalid_request_error');
    expect(bad.headers.get('x-ratelimit-remaining')).toBe('6');
    expect((await s.admin.del(`/admin/api-keys/${W.keyId}`)).status).toBe(200);
    expectError(await W.client.post(`/v1/contacts/${id}/notes`, { body: 'revoked' }), 401, 'authentication_error');
    expectError(await W.client.post('/v1/contacts/con_missing/notes', { body: 'revoked' }), 401, 'authentication_error');
    expect(await notes()).toEqual({ notes: 1, events: 1 });
  });

  it("counts a busy workspace's concurrent writes exactly, however each one is counted", async () => {
    // A limit above which concurrent writes may be counted in a statement of their own.
    const W = await s.workspace({ rate_limit_per_minute: 1000 });
    expect((await W.client.get('/v1/contacts')).status).toBe(200); // admitted, and the window's row exists
    const windowStart = Math.floor(s.clock.now().getTime() / 60_000) * 60;
    await db.query('UPDATE rate_limit_windows SET count = 995 WHERE workspace_id = $1 AND window_start = $2', [W.id, windowStart]);
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => W.client.post('/v1/contacts', { first_name: 'Busy', last_name: `N${i}` })),
    );
    const created = replies.filter((r) => r.status === 201);
    expect(created.length).toBe(5);
    for (const r of replies) if (r.status !== 201) expectError(r, 429, 'rate_limit_error');
    expect(created.map((r) => r.headers.get('x-ratelimit-remaining')).sort()).toEqual(['0', '1', '2', '3', '4']);
    const stored = await db.query<{ contacts: number; count: number }>(
      `SELECT (SELECT count(*) FROM contacts WHERE workspace_id = $1)::int AS contacts,
              (SELECT count FROM rate_limit_windows WHERE workspace_id = $1 AND window_start = $2)::int AS count`,
      [W.id, windowStart],
    );
    expect(stored.rows[0]).toEqual({ contacts: 5, count: 1015 });
  });

  if (kind === 'postgres') {
    it('counts a write apart while its busy workspace has a request under way; reads and default-limit tenants stay one statement', async () => {
      const schema = (await db.query<{ s: string }>('SELECT current_schema() AS s')).rows[0].s;
      for (const [limit, apart] of [
        [1000, true],
        [120, false],
      ] as const) {
        const W = await s.workspace({ rate_limit_per_minute: limit });
        const reader = await s.key(W.id, ['read_contacts']);
        // A note is a write that is not batched (a creation of a busy workspace waits in its lane instead: batching.test.ts).
        const noted = (await W.client.post('/v1/contacts', { first_name: 'Noted', last_name: 'Contact' })).body.id;
        expect((await W.client.get('/v1/contacts')).status).toBe(200); // both keys admitted; the window's row exists
        expect((await reader.client.get('/v1/contacts')).status).toBe(200);
        // Another session holds the workspace's window row, so each request waits on it, under way.
        const locker = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await locker.connect();
        try {
          await locker.query('BEGIN');
          await locker.query(`SELECT 1 FROM "${schema}".rate_limit_windows WHERE workspace_id = $1 FOR UPDATE`, [W.id]);
          // The backends waiting, directly or through another waiter, on the locker.
          const waiting = async () =>
            Number(
              (
                await locker.query(
                  `WITH RECURSIVE w(pid) AS (SELECT $1::int UNION SELECT a.pid FROM pg_stat_activity a, w WHERE w.pid = ANY(pg_blocking_pids(a.pid)))
             SELECT count(*) - 1 AS n FROM w, pg_stat_clear_snapshot()`,
                  [(locker as unknown as { processID: number }).processID],
                )
              ).rows[0].n,
            );
          const sent: Promise<Reply>[] = [];
          const send = async (call: () => Promise<Reply>) => {
            sent.push(call());
            while ((await waiting()) < sent.length) await new Promise((r) => setTimeout(r, 5));
          };
          db.resetRoundTrips();
          await send(() => W.client.post('/v1/contacts', { first_name: 'First', last_name: 'Write' })); // nothing else under way: one statement
          await send(() => W.client.post(`/v1/contacts/${noted}/notes`, { body: 'Second write' })); // apart when the limit allows many
          await send(() => reader.client.get('/v1/contacts')); // a read: always one statement
          await send(() => reader.client.post('/v1/contacts', { last_name: 'No first name' })); // the scope's 403 before the body's 400
          await locker.query('COMMIT');
          const [first, second, read, refused] = await Promise.all(sent);
          expect([first.status, second.status, read.status]).toEqual([201, 201, 200]);
          expectError(refused, 403, 'permission_error');
          expect(db.roundTrips).toBe(apart ? 5 : 4);
          expect(second.headers.get('x-ratelimit-remaining')).not.toBe(first.headers.get('x-ratelimit-remaining'));
          const written = await db.query<{ contacts: number; notes: number }>(
            "SELECT (SELECT count(*) FROM contacts WHERE workspace_id = $1)::int AS contacts, (SELECT count(*) FROM activities WHERE contact_id = $2 AND type = 'note')::int AS notes",
            [W.id, noted],
          );
          expect(written.rows[0]).toEqual({ contacts: 2, notes: 1 });
        } finally {
          await locker.end();
        }
      }
    });
  }

  it("answers for the key's own workspace only", async () => {
    const A = await s.workspace();
    const B = await s.workspace();
    await A.client.post('/v1/contacts', { first_name: 'Only', last_name: 'A' });
    await B.client.post('/v1/contacts', { first_name: 'Only', last_name: 'B' });
    for (let i = 0; i < 2; i++) {
      expect((await A.client.get('/v1/contacts')).body.data.map((c: { last_name: string }) => c.last_name)).toEqual(['A']);
      expect((await B.client.get('/v1/contacts')).body.data.map((c: { last_name: string }) => c.last_name)).toEqual(['B']);
    }
  });
}

describe('authentication inside the list statement on PGlite', () => defineAuthInStatement('pglite'));
describe.skipIf(!TEST_DATABASE_URL)('authentication inside the list statement on PostgreSQL (needs TEST_DATABASE_URL)', () => {
  defineAuthInStatement('postgres');

  it('refuses, in a server that admitted a key, the key revoked through another server', async () => {
    const schema = uniqueSchema('fused');
    const clock = new ManualClock('2026-03-02T10:00:05.000Z');
    const one = await startServer('postgres', { store: await openTestStore('postgres', schema), clock });
    const two = await startServer('postgres', { store: await openTestStore('postgres', schema), clock });
    try {
      const W = await one.workspace();
      const viaTwo = new Client(two.base, W.key);
      expect((await viaTwo.get('/v1/contacts')).status).toBe(200);
      expect((await viaTwo.get('/v1/contacts')).status).toBe(200);
      expect((await one.admin.del(`/admin/api-keys/${W.keyId}`)).status).toBe(200);
      expectError(await viaTwo.get('/v1/contacts'), 401, 'authentication_error');
    } finally {
      for (const x of [one, two]) {
        await x.close();
        await x.store.close();
      }
    }
  });
});
