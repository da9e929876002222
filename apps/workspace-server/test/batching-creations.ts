import { expect } from 'vitest';
import type { CountingDb } from '../src/db/counting.js';
import { batchStats } from '../src/db/batch.js';
import type { Reply, TestServer } from './harness.js';

/** What a batching test gives the shared scenario: its server, its counted store, how it holds the store's connections, a query outside them. */
export interface BatchingSetup {
  s: TestServer;
  db: CountingDb;
  /** Sends `calls` while every connection is held, waits until `queued` of them wait in the batchers, then lets them run. */
  whileHeld(calls: (() => Promise<Reply>)[], queued: number): Promise<Reply[]>;
  query(sql: string, params: unknown[]): Promise<{ rows: Record<string, any>[] }>;
}

/** A created contact without what differs between two creations of one body: ids and times. */
const shape = (c: Record<string, unknown>) => JSON.parse(JSON.stringify(c, (k, v) => (k === 'id' || k.endsWith('_at') ? undefined : v)));

/**
 * Creations that wait together go as one statement on either store (docs/store.md, "Batching
 * creations", "Batching on PGlite"), each written and answered as alone: the contact, its rows,
 * its timeline entry, its event and the count; a 400, 401, 403 and 429 kept apart, each request
 * counted once against its limit (the revoked key's not at all), and nothing written for the refused.
 */
export async function expectCreationsAsAlone({ s, db, whileHeld, query }: BatchingSetup): Promise<void> {
  const body = (i: number) => ({
    first_name: `B${i}`,
    last_name: 'Batch',
    email: `b${i}@example.com`,
    phones: [{ value: '555-0100', label: 'Mobile' }],
    company: 'Harbor Realty',
    custom_fields: { zeta: 1, a: [2] },
  });
  const tenants = [];
  for (let i = 0; i < 8; i++) {
    const W = await s.workspace();
    // The key admitted once (so its creations authenticate in their own statement), and one creation alone.
    await W.client.get('/v1/contacts?limit=20');
    const alone = await W.client.post('/v1/contacts', body(i));
    expect(alone.status).toBe(201);
    tenants.push({ W, alone });
  }
  const staged = await s.workspace();
  const stage = (await staged.client.get('/v1/contact-stages')).body.data[1];
  const badStage = await s.workspace();
  const limited = await s.workspace({ rate_limit_per_minute: 2 });
  const revoked = await s.workspace();
  const readerWs = await s.workspace();
  const reader = await s.key(readerWs.id, ['read_contacts']);
  for (const c of [badStage.client, limited.client, limited.client, revoked.client, reader.client]) await c.get('/v1/contacts?limit=20');
  await query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [revoked.keyId]);

  const before = batchStats(db);
  db.resetRoundTrips();
  const calls = [
    ...tenants.map(
      ({ W }, i) =>
        () =>
          W.client.post('/v1/contacts', body(i)),
    ),
    () => tenants[0].W.client.post('/v1/contacts', body(100)), // a second creation of one workspace, counted in its place
    () => staged.client.post('/v1/contacts', { ...body(200), stage_id: stage.id }),
    () => badStage.client.post('/v1/contacts', { ...body(300), stage_id: 'cst_nope' }),
    () => limited.client.post('/v1/contacts', body(400)),
    () => revoked.client.post('/v1/contacts', body(500)),
    () => reader.client.post('/v1/contacts', body(600)),
  ];
  // Every key was admitted before, so every creation waits in the batcher, tenant 0's second too:
  // a write of a workspace with a request under way, at a limit this high, would be counted in a
  // statement of its own first (docs/store.md, "One busy workspace"), but not one that waits for
  // the pool with others, whose batch counts it.
  const replies = await whileHeld(calls, calls.length);
  const after = batchStats(db);
  const statements = db.roundTrips;

  for (let i = 0; i < tenants.length; i++) {
    expect(replies[i].status, JSON.stringify(replies[i].body)).toBe(201);
    expect(shape(replies[i].body)).toEqual(shape(tenants[i].alone.body));
    expect(replies[i].body.custom_fields).toEqual({ a: [2], zeta: 1 });
    // Stored as answered: the contact read back, in its list (two contacts now), its timeline.
    const id = replies[i].body.id;
    expect((await tenants[i].W.client.get(`/v1/contacts/${id}`)).body).toEqual(replies[i].body);
    const list = (await tenants[i].W.client.get('/v1/contacts?limit=20')).body;
    if (i > 0) {
      expect(list.total_count).toBe(2);
      expect(list.data).toContainEqual(replies[i].body);
    }
    expect((await tenants[i].W.client.get(`/v1/contacts/${id}/activities`)).body.data.map((a: { type: string }) => a.type)).toEqual([
      'contact_created',
    ]);
    // Counted once: a list and a creation before.
    if (i > 0) expect(replies[i].headers.get('x-ratelimit-remaining')).toBe(String(100000 - 3));
  }
  const second = replies[tenants.length];
  expect(second.status).toBe(201);
  expect(second.body.first_name).toBe('B100');
  expect([replies[0], second].map((r) => r.headers.get('x-ratelimit-remaining')).sort()).toEqual([String(100000 - 4), String(100000 - 3)]);
  expect((await tenants[0].W.client.get('/v1/contacts?limit=20')).body.total_count).toBe(3);

  const [withStage, noStage, tooMany, gone, forbidden] = replies.slice(tenants.length + 1);
  expect(withStage.status, JSON.stringify(withStage.body)).toBe(201);
  expect(withStage.body.stage).toEqual({ id: stage.id, name: stage.name });
  expect(noStage.status).toBe(400);
  expect(noStage.body.error).toMatchObject({ param: 'stage_id', message: 'No such contact stage: cst_nope' });
  expect(tooMany.status).toBe(429);
  expect(tooMany.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(gone.status).toBe(401);
  expect(gone.body.error.message).toBe('This API key has been revoked');
  expect(forbidden.status).toBe(403);
  expect(forbidden.body.error.message).toBe('This API key lacks the write_contacts scope');

  // One contact.created event per contact written, with the stage's name in its data; nothing for the refused.
  const written = [...replies.slice(0, tenants.length + 2).map((r) => r.body.id)];
  const events = await query("SELECT data FROM events WHERE type = 'contact.created' AND data->>'id' = ANY($1)", [written]);
  expect(events.rows.length).toBe(written.length);
  expect(events.rows.find((e) => e.data.id === withStage.body.id).data.stage).toEqual({ id: stage.id, name: stage.name });
  const refusedWs = [badStage.id, limited.id, revoked.id, readerWs.id];
  expect((await query('SELECT count(*)::int AS n FROM contacts WHERE workspace_id = ANY($1)', [refusedWs])).rows[0].n).toBe(0);
  expect((await query('SELECT count(*)::int AS n FROM events WHERE workspace_id = ANY($1)', [refusedWs])).rows[0].n).toBe(0);
  // Counted as alone: the revoked key's creation not, the others' (400, 403, 429 included) yes.
  const counts = await query('SELECT workspace_id, count FROM rate_limit_windows WHERE workspace_id = ANY($1)', [refusedWs]);
  expect(Object.fromEntries(counts.rows.map((r) => [r.workspace_id, r.count]))).toEqual({
    [badStage.id]: 2,
    [limited.id]: 3,
    [revoked.id]: 1,
    [readerWs.id]: 2,
  });
  expect(after.batches - before.batches).toBeGreaterThanOrEqual(1);
  expect(after.batched - before.batched).toBeGreaterThanOrEqual(4);
  expect(statements).toBeLessThan(calls.length);
}
