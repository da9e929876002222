import { createHash } from 'node:crypto';
import Stripe from 'stripe';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from '../src/db/db.js';
import { RETRY_DELAYS_MS } from '../src/modules/webhooks/backoff.js';
import { claimDue, DEFAULT_PER_ENDPOINT, fanOut, recordSuccesses, type ClaimedDelivery } from '../src/modules/webhooks/store.js';
import { WebhookWorker } from '../src/modules/webhooks/worker.js';
import pg from 'pg';
import { Client, expectError, openTestStore, TEST_DATABASE_URL, uniqueSchema, type StoreKind } from './harness.js';
import { echoChallenge, Receiver, startHookServer, type HookServer, type Received } from './webhooks-harness.js';

const stripe = new Stripe('sk_test_unused');

/** The independent check: Stripe's verifier implements the same t=…,v1=… scheme. */
function stripeVerifies(r: Received, key: string, nowMs: number): boolean {
  try {
    stripe.webhooks.constructEvent(r.body, String(r.headers['x-service-signature']), key, 300, undefined, nowMs);
    return true;
  } catch {
    return false;
  }
}

/** The store's db, telling `see` each statement it sends (its text from its first keyword). */
function seeing(db: Db, see: (sql: string) => void): Db {
  return {
    kind: db.kind,
    pool: db.pool,
    transaction: (fn) => db.transaction(fn),
    exec: (sql) => db.exec(sql),
    close: async () => {},
    query: (sql, params, opts) => {
      see(sql.trimStart());
      return db.query(sql, params, opts);
    },
  };
}

const tOf = (r: Received) => Number(/t=(\d+)/.exec(String(r.headers['x-service-signature']))![1]);

/**
 * `throughPooler`: the store reaches PostgreSQL through a pooler in transaction mode
 * (pgbouncer-webhooks.postgres.test.ts), where a test that needs a session of its own (a schema's
 * search_path, a statement prepared on one connection) cannot run.
 */
export function defineWebhookSuite(kind: StoreKind, opts: { throughPooler?: boolean } = {}) {
  let s: HookServer;
  const schema = uniqueSchema('wh');
  const receivers: Receiver[] = [];
  const receiver = async () => {
    const r = await new Receiver().start();
    receivers.push(r);
    return r;
  };

  /** A workspace with one endpoint already verified through the real challenge. */
  async function verifiedEndpoint(types: string[] = ['*'], client?: Client) {
    const c = client ?? (await s.workspace()).client;
    const rcv = await receiver();
    const created = await c.post('/v1/webhooks', { url: rcv.url, event_types: types });
    expect(created.status).toBe(201);
    const v = await c.post(`/v1/webhooks/${created.body.id}/verify`);
    expect(v.body.verified).toBe(true);
    return { client: c, rcv, id: created.body.id as string, secret: created.body.secret as string };
  }

  beforeAll(async () => {
    // heldWarnMs 0: checkHeld() reports any wait at once (the loop, which would call it, is off).
    s = await startHookServer(kind, { store: await openTestStore(kind, schema), webhooks: { heldWarnMs: 0 } });
  });
  afterAll(async () => {
    await s?.close();
    await s?.store.close();
    for (const r of receivers) await r.close();
  });

  it('registers an endpoint: secret once, https only, SSRF guard, scopes', async () => {
    const { client } = await s.workspace();
    const rcv = await receiver();
    const r = await client.post('/v1/webhooks', {
      url: rcv.url,
      event_types: ['contact.created', 'contact.created'],
      description: 'crm sync',
    });
    expect(r.status).toBe(201);
    expect(r.body.secret).toMatch(/^whsec_/);
    expect(r.body).toMatchObject({ status: 'unverified', event_types: ['contact.created'], signing_key_type: 'secret', verified_at: null });
    const got = await client.get(`/v1/webhooks/${r.body.id}`);
    expect(got.body.secret).toBeUndefined();
    expect(got.body.url).toBe(rcv.url);
    const list = await client.get('/v1/webhooks');
    expect(list.body).toMatchObject({ total_count: 1, has_more: false });

    // This server allows insecure receivers; a default one must refuse http and loopback.
    const strict = await startHookServer(kind, { store: s.store, clock: s.clock, webhooks: { allowInsecure: false } });
    try {
      const sc = new Client(strict.base, client.key);
      for (const url of [
        'http://example.com/hook',
        'https://127.0.0.1/hook',
        'https://localhost/hook',
        'https://localhost./hook',
        'https://10.1.2.3/x',
        'https://[::1]/x',
        'https://169.254.169.254/latest',
        'ftp://example.com/',
      ]) {
        expectError(await sc.post('/v1/webhooks', { url, event_types: ['*'] }), 400, 'invalid_request_error', 'url');
      }
      expect((await sc.post('/v1/webhooks', { url: 'https://203.0.113.5/hook', event_types: ['*'] })).status).toBe(400);
      expect((await sc.post('/v1/webhooks', { url: 'https://[::ffff:192.168.0.1]/x', event_types: ['*'] })).status).toBe(400);
    } finally {
      await strict.close();
    }
    // Even with --allow-insecure-webhooks, private ranges stay refused.
    expectError(
      await client.post('/v1/webhooks', { url: 'http://192.168.1.10/hook', event_types: ['*'] }),
      400,
      'invalid_request_error',
      'url',
    );
    expectError(await client.post('/v1/webhooks', { url: rcv.url, event_types: [] }), 400, 'invalid_request_error');

    const ws = await s.workspace(['read_contacts']);
    expectError(await ws.client.get('/v1/webhooks'), 403, 'permission_error');
    const reader = await s.workspace(['read_webhooks']);
    expect((await reader.client.get('/v1/webhooks')).status).toBe(200);
    expect((await reader.client.get('/v1/events')).status).toBe(200);
    expectError(await reader.client.post('/v1/webhooks', { url: rcv.url, event_types: ['*'] }), 403, 'permission_error');
    expectError(await client.get('/v1/webhooks/we_missing'), 404, 'invalid_request_error');
  });

  it('verification: 2xx with the challenge verifies; a signed challenge; failures leave it unverified', async () => {
    const { client } = await s.workspace();
    const rcv = await receiver();
    const ep = (await client.post('/v1/webhooks', { url: rcv.url, event_types: ['*'] })).body;

    rcv.behaviour = () => ({ status: 200, body: 'ok' });
    let v = await client.post(`/v1/webhooks/${ep.id}/verify`);
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({ verified: false, status_code: 200, endpoint: { status: 'unverified' } });
    expect(v.body.error).toMatch(/challenge/);

    rcv.behaviour = (r) => ({ status: 500, body: r.json.data.challenge });
    v = await client.post(`/v1/webhooks/${ep.id}/verify`);
    expect(v.body).toMatchObject({ verified: false, status_code: 500 });

    rcv.behaviour = echoChallenge;
    v = await client.post(`/v1/webhooks/${ep.id}/verify`);
    expect(v.body).toMatchObject({ verified: true, status_code: 200, endpoint: { status: 'verified' } });
    const challenges = rcv.received.map((r) => r.json);
    expect(challenges.every((e) => e.type === 'webhook.verification' && /^evt_[0-9a-f]+$/.test(e.id))).toBe(true);
    expect(new Set(challenges.map((e) => e.data.challenge)).size).toBe(3);
    const last = rcv.received[2];
    expect(last.headers['x-service-event']).toBe('webhook.verification');
    expect(stripeVerifies(last, ep.secret, s.clock.now().getTime())).toBe(true);

    const log = await client.get(`/v1/webhooks/${ep.id}/deliveries?event_type=webhook.verification`);
    expect(log.body.total_count).toBe(3);
    expect(log.body.data.map((d: any) => d.status).sort()).toEqual(['failed', 'failed', 'succeeded']);
    expect(log.body.data.flatMap((d: any) => d.attempts.map((a: any) => a.status_code))).toEqual(
      [200, 200, 500].map(() => expect.any(Number)),
    );
    expect(log.body.data.some((d: any) => d.attempts[0].status_code === 500 && d.attempts[0].outcome === 'failed')).toBe(true);
  });

  it('an unverified endpoint receives nothing; send test needs a verified endpoint', async () => {
    const { client } = await s.workspace();
    const rcv = await receiver();
    const ep = (await client.post('/v1/webhooks', { url: rcv.url, event_types: ['*'] })).body;
    await client.post('/v1/contacts', { first_name: 'Ada', last_name: 'Lovelace' });
    await s.drain();
    expect(rcv.received).toHaveLength(0);
    expectError(await client.post(`/v1/webhooks/${ep.id}/test`), 400, 'invalid_request_error');
    expect((await client.get(`/v1/webhooks/${ep.id}/deliveries`)).body.total_count).toBe(0);
    // The event is still in the outbox, visible through GET /v1/events.
    expect((await client.get('/v1/events?type=contact.created')).body.total_count).toBe(1);
  });

  it('delivers signed events with the documented headers; one event id across endpoints', async () => {
    const a = await verifiedEndpoint(['*']);
    const b = await verifiedEndpoint(['contact.created', 'contact.updated'], a.client);
    const created = (await a.client.post('/v1/contacts', { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.com' })).body;
    await s.drain();
    const [da] = a.rcv.deliveries('contact.created');
    const [db] = b.rcv.deliveries('contact.created');
    expect(da && db).toBeTruthy();
    expect(Object.keys(da.json).sort()).toEqual(['created_at', 'data', 'id', 'type']);
    expect(da.json.id).toMatch(/^evt_[0-9a-f]+$/);
    expect(da.json.id).toBe(db.json.id);
    expect(da.headers['x-service-event']).toBe('contact.created');
    expect(da.headers['x-service-event-id']).toBe(da.json.id);
    expect(da.headers['x-service-delivery-id']).not.toBe(db.headers['x-service-delivery-id']);
    expect(da.headers['content-type']).toBe('application/json');
    const read = (await a.client.get(`/v1/contacts/${created.id}`)).body;
    expect(da.json.data).toEqual(read);
    // In the key order of GET, not jsonb's (shortest keys first), nested objects included.
    expect(Object.keys(da.json.data)).toEqual(Object.keys(read));
    expect(Object.keys(da.json.data.emails[0] ?? {})).toEqual(Object.keys(read.emails[0] ?? {}));
    expect(stripeVerifies(da, a.secret, s.clock.now().getTime())).toBe(true);
    expect(stripeVerifies(db, b.secret, s.clock.now().getTime())).toBe(true);
    expect(stripeVerifies(da, b.secret, s.clock.now().getTime())).toBe(false);
    // Outside the 5-minute tolerance, a receiver rejects it.
    expect(stripeVerifies(da, a.secret, s.clock.now().getTime() + 301_000)).toBe(false);

    // contact.updated only on a stage change, with the changed fields; deletion carries only the id.
    const stages = (await a.client.get('/v1/contact-stages')).body.data;
    await a.client.patch(`/v1/contacts/${created.id}`, { job_title: 'Rear Admiral' });
    s.clock.advance(1000);
    await a.client.patch(`/v1/contacts/${created.id}`, { stage_id: stages[1].id });
    s.clock.advance(1000);
    await a.client.post(`/v1/contacts/${created.id}/notes`, { body: 'Called about COBOL' });
    s.clock.advance(1000);
    await a.client.del(`/v1/contacts/${created.id}`);
    await s.drain();
    const updated = a.rcv.deliveries('contact.updated');
    expect(updated).toHaveLength(1);
    expect(updated[0].json.data.stage.id).toBe(stages[1].id);
    expect(updated[0].json.changed_fields).toContain('stage_id');
    expect(a.rcv.deliveries('note.created')).toHaveLength(1);
    expect(a.rcv.deliveries('contact.deleted')[0].json.data).toEqual({ id: created.id });
    // b subscribed to two types only.
    expect(b.rcv.deliveries().map((r) => r.json.type)).toEqual(['contact.created', 'contact.updated']);

    // Four events plus the verification challenge.
    const log = await a.client.get(`/v1/webhooks/${a.id}/deliveries?status=succeeded`);
    expect(log.body.total_count).toBe(5);
    const one = log.body.data.find((d: any) => d.event_type === 'contact.created');
    expect(one.id).toBe(da.headers['x-service-delivery-id']);
    expect(one.attempts).toHaveLength(1);
    expect(one.attempts[0]).toMatchObject({ attempt_number: 1, outcome: 'succeeded', status_code: 200, response_excerpt: 'received' });
    expect(typeof one.attempts[0].latency_ms).toBe('number');

    // GET /v1/events filters by type and time.
    const ev = await a.client.get('/v1/events?type=contact.*');
    expect(ev.body.data.map((e: any) => e.type)).toEqual(['contact.deleted', 'contact.updated', 'contact.created']);
    expect((await a.client.get('/v1/events?type=note.created,contact.deleted')).body.total_count).toBe(2);
    const later = new Date(s.clock.now().getTime() + 1000).toISOString();
    expect((await a.client.get(`/v1/events?created_after=${later}`)).body.total_count).toBe(0);
    expect((await a.client.get(`/v1/events/${da.json.id}`)).body).toMatchObject({ id: da.json.id, type: 'contact.created' });
  });

  it("one fan-out of several workspaces' events gives each endpoint only its own workspace's", async () => {
    // Three workspaces: two endpoints in the first, one in the second, none in the third; their
    // creations interleave, so one fan-out batch holds all of them.
    const a = await verifiedEndpoint(['contact.created']);
    const a2 = await verifiedEndpoint(['*'], a.client);
    const b = await verifiedEndpoint(['contact.created']);
    const quiet = (await s.workspace()).client;
    await s.drain();
    const made: Record<string, string[]> = { a: [], b: [] };
    for (let i = 0; i < 3; i++) {
      made.a.push((await a.client.post('/v1/contacts', { first_name: `A${i}`, last_name: 'Tenant' })).body.id);
      made.b.push((await b.client.post('/v1/contacts', { first_name: `B${i}`, last_name: 'Tenant' })).body.id);
      expect((await quiet.post('/v1/contacts', { first_name: `Q${i}`, last_name: 'Tenant' })).status).toBe(201);
    }
    await s.drain();
    const ids = (r: Receiver) =>
      r
        .deliveries('contact.created')
        .map((d) => d.json.data.id)
        .sort();
    expect(ids(a.rcv)).toEqual([...made.a].sort());
    expect(ids(a2.rcv)).toEqual([...made.a].sort());
    expect(ids(b.rcv)).toEqual([...made.b].sort());
  });

  it('retries a 500 on the documented schedule, signing each attempt afresh, same delivery id', async () => {
    const { client, rcv, id, secret } = await verifiedEndpoint(['contact.created']);
    let calls = 0;
    rcv.behaviour = (r) => (r.json.type === 'contact.created' && ++calls <= 2 ? { status: 500, body: 'database down' } : echoChallenge(r));
    await client.post('/v1/contacts', { first_name: 'Retry', last_name: 'Me' });
    await s.drain();
    expect(rcv.deliveries()).toHaveLength(1);
    s.clock.advance(RETRY_DELAYS_MS[0] - 1000);
    await s.drain();
    expect(rcv.deliveries()).toHaveLength(1);
    s.clock.advance(1000);
    await s.drain();
    expect(rcv.deliveries()).toHaveLength(2);
    s.clock.advance(RETRY_DELAYS_MS[1]);
    await s.drain();
    const got = rcv.deliveries();
    expect(got.map((r) => r.answer)).toEqual([500, 500, 200]);
    expect(new Set(got.map((r) => r.headers['x-service-delivery-id'])).size).toBe(1);
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    expect(tOf(got[1]) - tOf(got[0])).toBe(RETRY_DELAYS_MS[0] / 1000);
    expect(new Set(got.map((r) => r.headers['x-service-signature'])).size).toBe(3);
    expect(stripeVerifies(got[2], secret, s.clock.now().getTime())).toBe(true);

    const [d] = (await client.get(`/v1/webhooks/${id}/deliveries?event_type=contact.created`)).body.data;
    expect(d).toMatchObject({ status: 'succeeded', attempt_count: 3, last_status_code: 200 });
    expect(d.attempts.map((a: any) => [a.status_code, a.outcome])).toEqual([
      [500, 'failed'],
      [500, 'failed'],
      [200, 'succeeded'],
    ]);
    expect(d.attempts[0].response_excerpt).toBe('database down');
    // A success resets the consecutive failures.
    expect((await client.get(`/v1/webhooks/${id}`)).body.consecutive_failures).toBe(0);
  });

  it('a receiver that times out or closes the connection fails the attempt; 5 retries then failed; replay', async () => {
    const { client, rcv, id } = await verifiedEndpoint(['contact.created']);
    let n = 0;
    rcv.behaviour = (r) =>
      r.json.type !== 'contact.created'
        ? echoChallenge(r)
        : ++n % 3 === 1
          ? 'hang'
          : n % 3 === 2
            ? 'close'
            : { status: 302, body: 'elsewhere' };
    await client.post('/v1/contacts', { first_name: 'Never', last_name: 'Acked' });
    await s.drain();
    for (const wait of RETRY_DELAYS_MS) {
      s.clock.advance(wait);
      await s.drain();
    }
    s.clock.advance(RETRY_DELAYS_MS[4] * 2);
    await s.drain();
    expect(rcv.deliveries()).toHaveLength(6);
    const [d] = (await client.get(`/v1/webhooks/${id}/deliveries?event_type=contact.created`)).body.data;
    expect(d.status).toBe('failed');
    expect(d.next_attempt_at).toBeNull();
    expect(d.attempts).toHaveLength(6);
    expect(d.attempts[0].error).toMatch(/No acknowledgement within 1500 ms/);
    expect(d.attempts[0].status_code).toBeNull();
    expect(d.attempts[1].status_code).toBeNull();
    expect(d.attempts[1].error).toBeTruthy();
    expect(d.attempts[2]).toMatchObject({ status_code: 302, response_excerpt: 'elsewhere' });
    expect((await client.get(`/v1/webhooks/${id}`)).body.consecutive_failures).toBe(6);

    // Replay one delivery: same delivery id, fresh budget.
    rcv.behaviour = echoChallenge;
    const rp = await client.post(`/v1/webhooks/${id}/deliveries/${d.id}/replay`);
    expect(rp.body.status).toBe('pending');
    await s.drain();
    const all = rcv.deliveries();
    expect(all).toHaveLength(7);
    expect(all[6].headers['x-service-delivery-id']).toBe(d.id);
    expect((await client.get(`/v1/webhooks/${id}/deliveries/${d.id}`)).body).toMatchObject({ status: 'succeeded', attempt_count: 7 });
  });

  it('disables after 20 consecutive failed attempts, sends nothing while disabled, re-enables and replays what was missed', async () => {
    const { client, rcv, id } = await verifiedEndpoint(['contact.created']);
    rcv.behaviour = (r) => (r.json.type === 'contact.created' ? { status: 503, body: 'maintenance' } : echoChallenge(r));
    const since = s.clock.now().toISOString();
    for (let i = 0; i < 12; i++) await client.post('/v1/contacts', { first_name: `F${i}`, last_name: 'Fail' });
    await s.drain(); // 12 failed first attempts
    s.clock.advance(RETRY_DELAYS_MS[0]);
    await s.drain(); // 8 more reach 20: disabled mid-round
    const ep = (await client.get(`/v1/webhooks/${id}`)).body;
    expect(ep.status).toBe('disabled');
    expect(ep.disabled_reason).toMatch(/20 consecutive/);
    const sent = rcv.deliveries().length;
    expect(sent).toBeGreaterThanOrEqual(20);
    expect(sent).toBeLessThanOrEqual(24);

    await client.post('/v1/contacts', { first_name: 'While', last_name: 'Disabled' });
    s.clock.advance(RETRY_DELAYS_MS[1] * 4);
    await s.drain();
    expect(rcv.deliveries()).toHaveLength(sent);
    expectError(await client.post(`/v1/webhooks/${id}/test`), 400, 'invalid_request_error');
    const failed = (await client.get(`/v1/webhooks/${id}/deliveries?status=failed`)).body;
    expect(failed.total_count).toBe(12);

    rcv.behaviour = echoChallenge;
    const en = await client.post(`/v1/webhooks/${id}/enable`);
    expect(en.body).toMatchObject({ status: 'verified', consecutive_failures: 0, disabled_at: null });
    const rp = await client.post(`/v1/webhooks/${id}/replay`, { since, include_missed: true });
    expect(rp.body).toEqual({ replayed: 12, queued_missed: 1 });
    await s.drain();
    const ok = rcv.deliveries().filter((r) => r.answer === 200);
    expect(new Set(ok.map((r) => r.json.id)).size).toBe(13);
    expect((await client.get(`/v1/webhooks/${id}/deliveries?status=succeeded&event_type=contact.created`)).body.total_count).toBe(13);
  });

  it('replays by since (inclusive) and until (exclusive) exactly, at precisions finer than the stored microsecond', async () => {
    const { client, rcv, id } = await verifiedEndpoint(['contact.created']);
    rcv.behaviour = (r) => (r.json.type === 'contact.created' ? { status: 503, body: 'down' } : echoChallenge(r));
    const c = (await client.post('/v1/contacts', { first_name: 'Edge', last_name: 'Bound' })).body;
    await s.drain();
    for (const wait of RETRY_DELAYS_MS) {
      s.clock.advance(wait);
      await s.drain();
    }
    const at = c.created_at as string; // the event's instant, a whole millisecond
    const base = at.replace('Z', '');
    const before = new Date(Date.parse(at) - 1).toISOString().replace('Z', '');
    const replay = (body: Record<string, string>) => client.post(`/v1/webhooks/${id}/replay`, body);
    // 0.4 µs after the event: PostgreSQL rounded since down to it and replayed it.
    expect((await replay({ since: `${base}0004Z` })).body).toEqual({ replayed: 0, queued_missed: 0 });
    // until is exclusive: 0.4 µs after the event still takes it (rounded down, it was left out).
    expect((await replay({ since: `${before}9996Z`, until: `${base}0004Z` })).body).toEqual({ replayed: 1, queued_missed: 0 });
  });

  it('refuses an unknown delivery status and timestamps the store cannot hold, naming the field', async () => {
    const { client } = await s.workspace();
    const rcv = await receiver();
    const id = (await client.post('/v1/webhooks', { url: rcv.url, event_types: ['*'] })).body.id as string;
    for (const status of ['bogus', 'failed,bogus', 'failed,']) {
      const r = await client.get(`/v1/webhooks/${id}/deliveries?status=${status}`);
      expectError(r, 400, 'invalid_request_error', 'status');
      expect(r.body.error.message).toBe('Invalid status: must be one of pending, sending, succeeded, failed (comma-separated for several)');
    }
    expect((await client.get(`/v1/webhooks/${id}/deliveries?status=failed,%20pending`)).status).toBe(200);
    for (const v of ['0000-01-01T00:00:00Z', '2026-01-01T00:00:00+23:59']) {
      expectError(
        await client.get(`/v1/webhooks/${id}/deliveries?created_after=${encodeURIComponent(v)}`),
        400,
        'invalid_request_error',
        'created_after',
      );
      expectError(await client.post(`/v1/webhooks/${id}/replay`, { since: v }), 400, 'invalid_request_error', 'since');
      expectError(
        await client.post(`/v1/webhooks/${id}/replay`, { since: '2026-01-01T00:00:00Z', until: v }),
        400,
        'invalid_request_error',
        'until',
      );
    }
    expect((await client.post(`/v1/webhooks/${id}/replay`, { since: '0001-01-01T00:00:00Z', until: '9999-12-31T23:59:59Z' })).body).toEqual(
      { replayed: 0, queued_missed: 0 },
    );
  });

  it('send test delivers a signed ping through the queue', async () => {
    const { client, rcv, id, secret } = await verifiedEndpoint(['contact.created']);
    const t = await client.post(`/v1/webhooks/${id}/test`);
    expect(t.status).toBe(202);
    await s.drain();
    const [p] = rcv.deliveries('webhook.ping');
    expect(p.headers['x-service-delivery-id']).toBe(t.body.delivery_id);
    expect(p.json.id).toBe(t.body.event_id);
    expect(stripeVerifies(p, secret, s.clock.now().getTime())).toBe(true);
  });

  it('secret rotation: later attempts sign with the new secret only', async () => {
    const { client, rcv, id, secret } = await verifiedEndpoint(['contact.created']);
    await client.post('/v1/contacts', { first_name: 'Before', last_name: 'Rotation' });
    await s.drain();
    const rot = await client.post(`/v1/webhooks/${id}/rotate-secret`);
    expect(rot.body.secret).toMatch(/^whsec_/);
    expect(rot.body.secret).not.toBe(secret);
    await client.post('/v1/contacts', { first_name: 'After', last_name: 'Rotation' });
    await s.drain();
    const [before, after] = rcv.deliveries();
    const now = s.clock.now().getTime();
    expect(stripeVerifies(before, secret, now)).toBe(true);
    expect(stripeVerifies(after, rot.body.secret, now)).toBe(true);
    expect(stripeVerifies(after, secret, now)).toBe(false);
  });

  it('an admin-created endpoint with a code word signs with the hex SHA-256 of the code word', async () => {
    const w = await s.workspace();
    const rcv = await receiver();
    const r = await s.admin.post(`/admin/workspaces/${w.id}/webhooks`, {
      url: rcv.url,
      event_types: ['*'],
      code_word: 'open sesame',
      verified: true,
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ secret: null, signing_key_type: 'code_word', status: 'verified' });
    await w.client.post('/v1/contacts', { first_name: 'Code', last_name: 'Word' });
    await s.drain();
    const [d] = rcv.deliveries();
    const key = createHash('sha256').update('open sesame').digest('hex');
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(stripeVerifies(d, key, s.clock.now().getTime())).toBe(true);
    expect(stripeVerifies(d, 'open sesame', s.clock.now().getTime())).toBe(false);
  });

  it('changing the address clears verification and fails what was queued for the old one', async () => {
    const { client, rcv, id } = await verifiedEndpoint(['contact.created']);
    rcv.behaviour = (r) => (r.json.type === 'contact.created' ? { status: 500 } : echoChallenge(r));
    await client.post('/v1/contacts', { first_name: 'Moving', last_name: 'House' });
    await s.drain();
    const other = await receiver();
    const up = await client.patch(`/v1/webhooks/${id}`, { url: other.url });
    expect(up.body).toMatchObject({ status: 'unverified', verified_at: null, url: other.url });
    // Same address again is not a change.
    expect((await client.patch(`/v1/webhooks/${id}`, { url: other.url, description: 'x' })).body.status).toBe('unverified');
    s.clock.advance(RETRY_DELAYS_MS[0]);
    await client.post('/v1/contacts', { first_name: 'Unverified', last_name: 'Again' });
    await s.drain();
    expect(other.received).toHaveLength(0);
    expect(rcv.deliveries()).toHaveLength(1);
    const [d] = (await client.get(`/v1/webhooks/${id}/deliveries?status=failed`)).body.data;
    expect(d.last_error).toMatch(/address changed/);
    expect((await client.post(`/v1/webhooks/${id}/verify`)).body.verified).toBe(true);
  });

  it('receivers deduplicate on X-Service-Delivery-Id when an acknowledgement is lost', async () => {
    const { client, rcv } = await verifiedEndpoint(['contact.created']);
    const processed = new Map<string, number>();
    let first = true;
    rcv.behaviour = (r) => {
      if (r.json.type !== 'contact.created') return echoChallenge(r);
      const id = String(r.headers['x-service-delivery-id']);
      if (!processed.has(id)) processed.set(id, 0);
      processed.set(id, processed.get(id)! + 1);
      // The first answer is lost (as if the response never reached the server).
      if (first) {
        first = false;
        return 'close';
      }
      return { status: 200 };
    };
    await client.post('/v1/contacts', { first_name: 'Once', last_name: 'Only' });
    await client.post('/v1/contacts', { first_name: 'Twice', last_name: 'Maybe' });
    await s.drain();
    s.clock.advance(RETRY_DELAYS_MS[0]);
    await s.drain();
    expect(rcv.deliveries()).toHaveLength(3);
    expect(processed.size).toBe(2);
    expect([...processed.values()].sort()).toEqual([1, 2]);
  });

  it('a receiver whose answer holds a NUL byte is logged once, not sent again: the excerpt keeps the rest', async () => {
    const ok = await verifiedEndpoint(['contact.created']);
    const failing = await verifiedEndpoint(['contact.created'], ok.client);
    ok.rcv.behaviour = () => ({ status: 200, body: 'got\u0000it' });
    failing.rcv.behaviour = () => ({ status: 500, body: 'down\u0000hard' });
    await ok.client.post('/v1/contacts', { first_name: 'Nul', last_name: 'Byte' });
    await s.drain();
    // PostgreSQL's text holds no NUL: an outcome that could not be written would leave its lease
    // to run out, and the delivery would be sent again and again.
    s.clock.advance(120_000);
    await s.drain();
    expect(ok.rcv.deliveries('contact.created')).toHaveLength(1);
    const [d] = (await ok.client.get(`/v1/webhooks/${ok.id}/deliveries?event_type=contact.created`)).body.data;
    expect(d).toMatchObject({ status: 'succeeded', attempt_count: 1 });
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({ outcome: 'succeeded', response_excerpt: 'got\ufffdit' });
    const [f] = (await ok.client.get(`/v1/webhooks/${failing.id}/deliveries?event_type=contact.created`)).body.data;
    expect(f.attempts[0]).toMatchObject({ outcome: 'failed', status_code: 500, response_excerpt: 'down\ufffdhard' });
  });

  it('deleting an endpoint stops its deliveries', async () => {
    const { client, rcv, id } = await verifiedEndpoint(['*']);
    expect((await client.del(`/v1/webhooks/${id}`)).body).toEqual({ id, deleted: true });
    await client.post('/v1/contacts', { first_name: 'Gone', last_name: 'Endpoint' });
    await s.drain();
    expect(rcv.deliveries()).toHaveLength(0);
    expectError(await client.get(`/v1/webhooks/${id}`), 404, 'invalid_request_error');
  });

  it('one slow receiver cannot take every slot: each endpoint has at most its share in flight, counted in the database', async () => {
    const slow = await verifiedEndpoint(['contact.created']);
    const fast = await verifiedEndpoint(['contact.created'], slow.client);
    for (let i = 0; i < 10; i++)
      expect((await slow.client.post('/v1/contacts', { first_name: `F${i}`, last_name: 'Fair' })).status).toBe(201);
    const db = s.store.db;
    const now = s.clock.now();
    await fanOut(db, now);
    const ours = (c: ClaimedDelivery[], ep: string) => c.filter((d) => d.endpoint_id === ep).length;
    // Both endpoints get their share of the first claim, whatever the order of the queue.
    const first = await claimDue(db, now, 100, 60_000, 3);
    expect([ours(first, slow.id), ours(first, fast.id)]).toEqual([3, 3]);
    // Still in flight: a second claim (this server or another) takes none of either.
    const second = await claimDue(db, now, 100, 60_000, 3);
    expect([ours(second, slow.id), ours(second, fast.id)]).toEqual([0, 0]);
    // The fast receiver answered; the slow one did not: only the fast endpoint gets more.
    await db.query(
      `UPDATE webhook_deliveries SET status = 'succeeded', lease_until = NULL, next_attempt_at = NULL WHERE endpoint_id = $1 AND status = 'sending'`,
      [fast.id],
    );
    const third = await claimDue(db, now, 100, 60_000, 3);
    expect([ours(third, slow.id), ours(third, fast.id)]).toEqual([0, 3]);
    await db.query(
      `UPDATE webhook_deliveries SET status = 'succeeded', lease_until = NULL, next_attempt_at = NULL WHERE endpoint_id IN ($1, $2) AND status IN ('sending', 'pending')`,
      [slow.id, fast.id],
    );
  });

  it('recording acknowledged attempts claims into the slots they free, in the same statement', async () => {
    const { client, id } = await verifiedEndpoint(['contact.created']);
    for (const n of ['One', 'Two', 'Three'])
      expect((await client.post('/v1/contacts', { first_name: n, last_name: 'Slot' })).status).toBe(201);
    const db = s.store.db;
    const now = s.clock.now();
    await fanOut(db, now);
    const mine = (c: ClaimedDelivery[]) => c.filter((d) => d.endpoint_id === id);
    // One slot for this endpoint: the first claim takes one attempt, a second takes none.
    const [first] = mine(await claimDue(db, now, 100, 60_000, 1));
    expect(first).toBeDefined();
    expect(mine(await claimDue(db, now, 100, 60_000, 1))).toEqual([]);
    // Recording it frees its slot, which the same statement's claim takes (its snapshot still
    // counts the settled attempt as sending).
    const ok = { statusCode: 200, error: null, body: 'ok', latencyMs: 1 };
    const next = mine(
      await recordSuccesses(db, [{ d: first, startedAt: now, result: ok }], now, { limit: 100, leaseMs: 60_000, perEndpoint: 1 }),
    );
    expect(next).toHaveLength(1);
    expect(next[0].id).not.toBe(first.id);
    const { rows } = await db.query<{ status: string; n: number }>(
      "SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND event_type = 'contact.created' GROUP BY status ORDER BY status",
      [id],
    );
    expect(rows).toEqual([
      { status: 'pending', n: 1 },
      { status: 'sending', n: 1 },
      { status: 'succeeded', n: 1 },
    ]);
    await db.query(
      `UPDATE webhook_deliveries SET status = 'succeeded', lease_until = NULL, next_attempt_at = NULL WHERE endpoint_id = $1 AND status IN ('sending', 'pending')`,
      [id],
    );
  });

  it('a recording gives back the slots it frees, not more: an endpoint past its share stays there', async () => {
    const { client, id } = await verifiedEndpoint(['contact.created']);
    for (const n of ['One', 'Two', 'Three', 'Four'])
      expect((await client.post('/v1/contacts', { first_name: n, last_name: 'Over' })).status).toBe(201);
    const db = s.store.db;
    const now = s.clock.now();
    await fanOut(db, now);
    const mine = (c: ClaimedDelivery[]) => c.filter((d) => d.endpoint_id === id);
    // Two in flight (a share of 2, say before the share was lowered, or two servers racing), two due.
    const [first, second] = mine(await claimDue(db, now, 100, 60_000, 2));
    expect(second).toBeDefined();
    // With a share of 1, recording one of the two leaves one in flight: the share is full, so the
    // same statement claims nothing for this endpoint (counting the in flight no further than the
    // share, then giving the recorded one back, made one slot and claimed into it).
    const ok = { statusCode: 200, error: null, body: 'ok', latencyMs: 1 };
    expect(
      mine(await recordSuccesses(db, [{ d: first, startedAt: now, result: ok }], now, { limit: 100, leaseMs: 60_000, perEndpoint: 1 })),
    ).toEqual([]);
    // Recording the other frees the share's one slot, which the statement takes.
    expect(
      mine(await recordSuccesses(db, [{ d: second, startedAt: now, result: ok }], now, { limit: 100, leaseMs: 60_000, perEndpoint: 1 })),
    ).toHaveLength(1);
    await db.query(
      `UPDATE webhook_deliveries SET status = 'succeeded', lease_until = NULL, next_attempt_at = NULL WHERE endpoint_id = $1 AND status IN ('sending', 'pending')`,
      [id],
    );
  });

  it("a claim reads each endpoint's head of the queue, not the whole queue: a backlog does not slow it", async () => {
    const { id } = await verifiedEndpoint(['contact.created']);
    const db = s.store.db;
    const ws = (await db.query<{ workspace_id: string }>('SELECT workspace_id FROM webhook_endpoints WHERE id = $1', [id])).rows[0]
      .workspace_id;
    const now = s.clock.now();
    // Rows read from webhook_deliveries by the claim's plan, over a queue of 3,000 due for one endpoint.
    const read = await db
      .transaction(async (tx) => {
        await tx.query(
          `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, payload, status, next_attempt_at, event_created_at, created_at, updated_at)
           SELECT 'dlv_backlog' || g, $1, $2, 'evt_backlog' || g, 'contact.created', '{}', 'pending', $3::timestamptz, $3::timestamptz, $3::timestamptz, $3::timestamptz
             FROM generate_series(1, 3000) g`,
          [ws, id, now.toISOString()],
        );
        await tx.query('ANALYZE webhook_deliveries');
        let captured: [string, unknown[]] | undefined;
        const spy = {
          ...tx,
          query: (sql: string, params?: unknown[]) => ((captured ??= [sql, params ?? []]), tx.query(sql, params)),
        } as unknown as typeof db;
        expect((await claimDue(spy, now, 64, 60_000)).filter((d) => d.endpoint_id === id)).toHaveLength(DEFAULT_PER_ENDPOINT);
        const { rows } = await tx.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${captured![0]}`, captured![1]);
        const plan = typeof rows[0]['QUERY PLAN'] === 'string' ? JSON.parse(rows[0]['QUERY PLAN']) : rows[0]['QUERY PLAN'];
        let total = 0;
        const walk = (n: any) => {
          if (n['Relation Name'] === 'webhook_deliveries') total += n['Actual Rows'] * n['Actual Loops'];
          for (const c of n.Plans ?? []) walk(c);
        };
        walk(plan[0].Plan);
        throw Object.assign(new Error('rolled back'), { total });
      })
      .catch((e) => e.total as number);
    // One probe per endpoint with something queued, and the few each may take: a few dozen, not
    // the 3,000 (a claim that read the whole queue slowed as the worker fell behind).
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThan(300);
  });

  it("a claim counts each endpoint's attempts in flight once, and no further than its share", async () => {
    const { client, id } = await verifiedEndpoint(['contact.created']);
    for (let i = 0; i < 30; i++) expect((await client.post('/v1/contacts', { first_name: `F${i}`, last_name: 'Count' })).status).toBe(201);
    const db = s.store.db;
    const now = s.clock.now();
    await fanOut(db, now);
    const mine = (c: ClaimedDelivery[]) => c.filter((d) => d.endpoint_id === id);
    // 20 in flight for this endpoint (a share of 20), 10 still due.
    expect(mine(await claimDue(db, now, 100, 60_000, 20))).toHaveLength(20);
    const queued = (
      await db.query<{ n: number }>("SELECT count(DISTINCT endpoint_id)::int AS n FROM webhook_deliveries WHERE status = 'pending'")
    ).rows[0].n;
    // The plan of a claim with a share of 8: how often it counts attempts in flight, and the rows each count reads.
    const counts = await db
      .transaction(async (tx) => {
        let captured: [string, unknown[]] | undefined;
        const spy = {
          ...tx,
          query: (sql: string, params?: unknown[]) => ((captured ??= [sql, params ?? []]), tx.query(sql, params)),
        } as unknown as typeof db;
        expect(mine(await claimDue(spy, now, 100, 60_000, 8))).toEqual([]);
        const { rows } = await tx.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${captured![0]}`, captured![1]);
        const plan = typeof rows[0]['QUERY PLAN'] === 'string' ? JSON.parse(rows[0]['QUERY PLAN']) : rows[0]['QUERY PLAN'];
        const scans: { loops: number; rows: number }[] = [];
        const walk = (n: any) => {
          const reads =
            `${n['Index Cond'] ?? ''} ${n['Filter'] ?? ''} ${n['Recheck Cond'] ?? ''}`.includes("'sending'") ||
            n['Index Name'] === 'webhook_deliveries_ep_sending';
          if (reads && n['Node Type'] !== 'Bitmap Index Scan' && n['Actual Loops'] > 0)
            scans.push({ loops: n['Actual Loops'], rows: n['Actual Rows'] });
          for (const c of n.Plans ?? []) walk(c);
        };
        walk(plan[0].Plan);
        throw Object.assign(new Error('rolled back'), { scans });
      })
      .catch((e) => e.scans as { loops: number; rows: number }[]);
    // Counted once for each endpoint with something queued (a join that rescanned the counts
    // counted each endpoint once per queued endpoint, and again for its LIMIT), reading at most the
    // share of 8 rows, not the 20 in flight.
    expect(counts.length).toBe(1);
    expect(counts[0].loops).toBeLessThanOrEqual(queued);
    expect(Math.max(...counts.map((c) => c.rows))).toBeLessThanOrEqual(8);
    await db.query(
      `UPDATE webhook_deliveries SET status = 'succeeded', lease_until = NULL, next_attempt_at = NULL WHERE endpoint_id = $1 AND status IN ('sending', 'pending')`,
      [id],
    );
  });

  it('an event whose transaction began earlier but committed later is still delivered, once', async () => {
    if (kind === 'pglite') return; // one embedded connection: no transaction can stay open beside another
    const { client, rcv } = await verifiedEndpoint(['contact.created']);
    const ws = (await client.get('/v1/me')).body.workspace.id as string;
    // Events written before the slow writer below takes its transaction id are older than it, and
    // pass it: fan them out now (an earlier test's, still pending on a loaded machine, made the
    // first fan-out below deliver one).
    await fanOut(s.store.db, s.clock.now());
    const other = await openTestStore(kind, schema);
    let commit!: () => void;
    const gate = new Promise<void>((resolve) => (commit = resolve));
    let began!: () => void;
    const open = new Promise<void>((resolve) => (began = resolve));
    // A writer takes its transaction id first and inserts its event last, as a slow request would.
    let pid = 0;
    const slow = other.db.transaction(async (tx) => {
      await tx.query('SELECT pg_current_xact_id()');
      pid = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      began();
      await gate;
      await tx.query(
        `INSERT INTO events (id, workspace_id, type, data, created_at) VALUES ('evt_slowwriter', $1, 'contact.created', '{"id":"con_slowwriter"}'::jsonb, now())`,
        [ws],
      );
    });
    try {
      await open;
      expect((await client.post('/v1/contacts', { first_name: 'Later', last_name: 'Id' })).status).toBe(201);
      // The creation has committed, but an older transaction is still running: nothing passes it.
      const now = s.clock.now();
      expect(await fanOut(s.store.db, now)).toEqual({ done: 0, held: true, endpoints: new Set() });
      // The worker says so once, naming the transaction they wait for, and once more when they flow.
      const warning = await s.checkHeld();
      expect(warning).toMatch(
        new RegExp(
          `^webhook events are held back by an older write transaction \\(process ${pid} on database \\w+, user postgres, idle in transaction, open \\d+ s\\): .* set idle_in_transaction_session_timeout on the PostgreSQL server`,
        ),
      );
      expect(await s.checkHeld()).toBeUndefined();
      commit();
      await slow;
      await s.drain();
      expect(await s.checkHeld()).toBe('webhook events flow again: the transaction that held them has ended.');
      expect(await s.checkHeld()).toBeUndefined();
      const got = rcv.deliveries().map((d) => d.json.data);
      expect(got.map((o: any) => o.first_name ?? o.id).sort()).toEqual(['Later', 'con_slowwriter']);
      // The cursor is past both: another fan-out delivers neither again.
      expect(await fanOut(s.store.db, now)).toEqual({ done: 0, held: false, endpoints: new Set() });
      await s.drain();
      expect(rcv.deliveries()).toHaveLength(2);
    } finally {
      commit();
      await slow.catch(() => undefined);
      await other.close();
    }
  });

  it('of two fan-outs that read the same events, the one that moves the cursor first writes them; the other writes nothing', async () => {
    const { client, rcv, id } = await verifiedEndpoint(['contact.created']);
    const db = s.store.db;
    await fanOut(db, s.clock.now()); // earlier tests' events, out of the way
    for (const n of ['Race', 'Twice']) expect((await client.post('/v1/contacts', { first_name: n, last_name: 'Cursor' })).status).toBe(201);
    // Another process fans out between this one's read and its write.
    let other: { done: number; held: boolean } | undefined;
    const racing = {
      ...db,
      query: async (sql: string, params?: unknown[]) => {
        if (!other && sql.includes('WITH moved AS')) other = await fanOut(db, s.clock.now());
        return db.query(sql, params);
      },
    } as typeof db;
    const late = await fanOut(racing, s.clock.now());
    expect(other?.done).toBeGreaterThanOrEqual(2);
    expect(late).toEqual({ done: 0, held: true, endpoints: new Set() });
    const { rows } = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND event_type = 'contact.created'",
      [id],
    );
    expect(rows[0].n).toBe(2);
    await s.drain();
    expect(
      rcv
        .deliveries('contact.created')
        .map((r) => r.json.data.first_name)
        .sort(),
    ).toEqual(['Race', 'Twice']);
  });

  it('the running worker claims again as soon as an outcome is recorded, not at its next poll', async () => {
    // A server whose loop runs, polling once a minute, with one attempt in flight per endpoint:
    // each delivery's slot frees in the database when its outcome is written, and only then may
    // the next go. Four deliveries in well under a poll means the loop claimed at each recording.
    const secondStore = kind === 'pglite' ? s.store : await openTestStore(kind, schema);
    const two = await startHookServer(kind, { store: secondStore, clock: s.clock, webhooks: { pollMs: 60_000, perEndpoint: 1 } });
    try {
      const { client } = await two.workspace();
      const { rcv } = await verifiedEndpoint(['contact.created'], client);
      for (let i = 0; i < 4; i++) expect((await client.post('/v1/contacts', { first_name: `Q${i}`, last_name: 'Queue' })).status).toBe(201);
      const deadline = Date.now() + 10_000;
      while (rcv.deliveries('contact.created').length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(
        rcv
          .deliveries('contact.created')
          .map((r) => r.json.data.first_name)
          .sort(),
      ).toEqual(['Q0', 'Q1', 'Q2', 'Q3']);
    } finally {
      await two.close();
      if (kind !== 'pglite') await secondStore.close();
    }
  });

  it('after a fan-out, the loop claims only when this server does not already fill the share of every endpoint written to', async () => {
    const { client, id, rcv } = await verifiedEndpoint(['contact.created']);
    // The receiver holds every contact.created until the end: this worker's two slots stay full.
    rcv.behaviour = (x) => (x.json.type === 'contact.created' ? 'hang' : echoChallenge(x));
    const db = s.store.db;
    let claims = 0;
    const counted = seeing(db, (sql) => {
      if (sql.startsWith('WITH RECURSIVE eps')) claims++;
    });
    const worker = new WebhookWorker(counted, s.clock, { allowInsecure: true, pollMs: 60_000, perEndpoint: 2, timeoutMs: 1500 });
    worker.start();
    const queued = async () =>
      (
        await db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND event_type = 'contact.created'",
          [id],
        )
      ).rows[0].n;
    try {
      for (let i = 0; i < 10; i++) {
        expect((await client.post('/v1/contacts', { first_name: `H${i}`, last_name: 'Held' })).status).toBe(201);
        worker.nudge();
        const deadline = Date.now() + 5_000;
        while ((await queued()) < i + 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        expect(await queued()).toBe(i + 1);
      }
      await new Promise((r) => setTimeout(r, 100));
      // Two claims fill the share; the eight fan-outs after them claim nothing (a claim after
      // each fan-out made ten).
      expect(rcv.deliveries('contact.created')).toHaveLength(2);
      expect(claims).toBeLessThanOrEqual(3);
    } finally {
      await worker.stop();
    }
    // Nothing was lost by not claiming: the held attempts time out and are retried, and every
    // contact arrives once the receiver answers.
    rcv.behaviour = (x) => (x.json.type === 'contact.created' ? { status: 200 } : echoChallenge(x));
    s.clock.advance(RETRY_DELAYS_MS[0]);
    await s.drain();
    await s.drain();
    const answered = rcv
      .deliveries('contact.created')
      .filter((r) => r.answer === 200)
      .map((r) => r.json.data.first_name);
    expect(answered.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `H${i}`).sort());
  });

  it('a stream of writes to workspaces without an endpoint costs the loop a statement per fan-out, gathered, and no claim', async () => {
    await s.drain(); // earlier tests' events and attempts, out of the way
    const { client, id: ws } = await s.workspace();
    const db = s.store.db;
    const seen = { reads: 0, moves: 0, claims: 0 };
    const counted = seeing(db, (sql) => {
      if (sql.startsWith('WITH evs AS')) seen.reads++;
      if (sql.startsWith('WITH moved AS')) seen.moves++;
      if (sql.startsWith('WITH RECURSIVE eps')) seen.claims++;
    });
    const worker = new WebhookWorker(counted, s.clock, { allowInsecure: true, pollMs: 60_000 });
    worker.start();
    const N = 40;
    try {
      // Every write's response nudges the worker, as the server's own hook does.
      await Promise.all(
        Array.from({ length: N }, async (_, i) => {
          expect((await client.post('/v1/contacts', { first_name: `S${i}`, last_name: 'Stream' })).status).toBe(201);
          worker.nudge();
        }),
      );
      const {
        rows: [last],
      } = await db.query<{ txid: string; id: string }>(
        'SELECT txid::text AS txid, id FROM events WHERE workspace_id = $1 ORDER BY txid DESC, id DESC LIMIT 1',
        [ws],
      );
      const passed = async () =>
        (
          await db.query<{ passed: boolean }>(
            "SELECT (c.txid, c.event_id) >= ($1::xid8, $2::text) AS passed FROM outbox_cursor c WHERE c.name = 'webhooks'",
            [last.txid, last.id],
          )
        ).rows[0].passed;
      const deadline = Date.now() + 5_000;
      while (!(await passed()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(await passed()).toBe(true);
    } finally {
      await worker.stop();
    }
    // The reads moved the cursor themselves (no second statement), fewer than the writes, and the
    // loop claimed once, when it started: nothing was queued, so no claim could find anything.
    expect(seen.moves).toBe(0);
    expect(seen.reads).toBeGreaterThan(0);
    expect(seen.reads).toBeLessThan(N);
    expect(seen.claims).toBe(1);
  });

  it('of two fan-outs that read the same events of workspaces without an endpoint, one moves the cursor past them; the other is held', async () => {
    if (kind === 'pglite') return; // one embedded connection: no fan-out can wait on another's lock
    await s.drain();
    const { client } = await s.workspace();
    for (let i = 0; i < 3; i++) expect((await client.post('/v1/contacts', { first_name: `R${i}`, last_name: 'Race' })).status).toBe(201);
    const other = await openTestStore(kind, schema);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    try {
      // Process B passes the events inside a transaction it keeps open: the cursor's row stays locked.
      let first: Awaited<ReturnType<typeof fanOut>> | undefined;
      const b = other.db.transaction(async (tx) => {
        first = await fanOut({ ...other.db, query: (sql: string, params?: unknown[]) => tx.query(sql, params) } as Db, s.clock.now());
        await gate;
      });
      while (!first) await new Promise((r) => setTimeout(r, 5));
      expect(first.done).toBeGreaterThanOrEqual(3);
      // Process A read the same events (B's move is not committed) and waits on the row's lock.
      const a = fanOut(s.store.db, s.clock.now());
      const deadline = Date.now() + 5_000;
      const waiting = async () =>
        (
          await other.db.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'WITH evs AS%'",
          )
        ).rows[0].n;
      while ((await waiting()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      expect(await waiting()).toBe(1);
      release();
      await b;
      // B's move committed first: A finds the cursor moved from where it read it, moves nothing.
      expect(await a).toEqual({ done: 0, held: true, endpoints: new Set() });
      expect(await fanOut(s.store.db, s.clock.now())).toEqual({ done: 0, held: false, endpoints: new Set() });
    } finally {
      release();
      await other.close();
    }
  });

  it.skipIf(opts.throughPooler)(
    `reads the outbox by its index even when its plan was made while the statistics said it was empty${opts.throughPooler ? ' (skipped: needs a session of its own, which a pooler in transaction mode does not keep)' : ''}`,
    async () => {
      // pg_stat_xact_user_tables counts one session's scans inside its transaction; the same
      // migration and read run on PGlite.
      if (kind === 'pglite') return;
      const fresh = uniqueSchema('whplan');
      await (await openTestStore(kind, fresh)).close();
      const conn = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${fresh},public` });
      await conn.connect();
      try {
        // As the store does: each statement text prepared once on the connection, its plan kept.
        const names = new Map<string, string>();
        const db = {
          kind: 'postgres',
          query: (text: string, values?: unknown[]) => {
            if (!names.has(text)) names.set(text, `s${names.size}`);
            return conn.query({ name: names.get(text), text, values });
          },
        } as unknown as Db;
        await conn.query('ANALYZE events'); // empty: the statistics say no rows
        expect(await fanOut(db, new Date())).toEqual({ done: 0, held: false, endpoints: new Set() });
        await conn.query(`INSERT INTO workspaces (id, name, slug, created_at) VALUES ('wsp_plan', 'Plan', 'plan', now())`);
        await conn.query(
          `INSERT INTO events (id, workspace_id, type, data, created_at) SELECT 'evt_plan' || lpad(g::text, 5, '0'), 'wsp_plan', 'contact.created', '{}'::jsonb, now() FROM generate_series(1, 3000) g`,
        );
        await conn.query('BEGIN');
        const first = await fanOut(db, new Date());
        const {
          rows: [scans],
        } = await conn.query<{ seq_tup_read: string; idx_scan: string }>(
          "SELECT seq_tup_read, idx_scan FROM pg_stat_xact_user_tables WHERE relname = 'events' AND schemaname = current_schema()",
        );
        await conn.query('COMMIT');
        expect(first.done).toBe(500);
        // The 500 past the cursor, from events_outbox: not the 3,000 rows of a sequential scan.
        expect(Number(scans.seq_tup_read)).toBe(0);
        expect(Number(scans.idx_scan)).toBeGreaterThanOrEqual(1);
      } finally {
        await conn.end();
        const drop = await openTestStore(kind, fresh);
        await drop.db.query(`DROP SCHEMA "${fresh}" CASCADE`);
        await drop.close();
      }
    },
  );

  it('send test and replay reach a running worker at once, not at its next poll', async () => {
    const secondStore = kind === 'pglite' ? s.store : await openTestStore(kind, schema);
    const two = await startHookServer(kind, { store: secondStore, clock: s.clock, webhooks: { pollMs: 60_000 } });
    try {
      await s.drain();
      const { client } = await two.workspace();
      const { rcv, id } = await verifiedEndpoint(['contact.created'], client);
      const arrived = async (n: number) => {
        const deadline = Date.now() + 10_000;
        while (rcv.deliveries('webhook.ping').length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        return rcv.deliveries('webhook.ping').length;
      };
      // Give the loop's first claim, at its start, time to pass: what follows is not in it.
      await new Promise((r) => setTimeout(r, 200));
      const t = await client.post(`/v1/webhooks/${id}/test`);
      expect(t.status).toBe(202);
      expect(await arrived(1)).toBe(1);
      // A replay of a delivery still being sent (acknowledged, its outcome not yet recorded) is
      // nothing to do: the replay is sent once the first attempt is recorded.
      const recorded = async () => (await client.get(`/v1/webhooks/${id}/deliveries/${t.body.delivery_id}`)).body.status === 'succeeded';
      for (const deadline = Date.now() + 10_000; !(await recorded()) && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 20));
      const r = await client.post(`/v1/webhooks/${id}/deliveries/${t.body.delivery_id}/replay`);
      expect(r.status).toBe(200);
      expect(await arrived(2)).toBe(2);
      expect(rcv.deliveries('webhook.ping').map((x) => x.headers['x-service-delivery-id'])).toEqual([
        t.body.delivery_id,
        t.body.delivery_id,
      ]);
    } finally {
      await two.close();
      if (kind !== 'pglite') await secondStore.close();
    }
  });

  it('two servers on one database never send the same attempt twice', async () => {
    // On PostgreSQL the second server has its own pool; PGlite is one embedded database, shared.
    const secondStore = kind === 'pglite' ? s.store : await openTestStore(kind, schema);
    const two = await startHookServer(kind, { store: secondStore, clock: s.clock, webhooks: { timeoutMs: 5000 } });
    try {
      const a = await verifiedEndpoint(['contact.created']);
      const b = await verifiedEndpoint(['contact.created'], a.client);
      const firstT = Math.floor(s.clock.now().getTime() / 1000);
      // A third of the first attempts fail (fewer than the 20 that would disable the endpoint).
      const failFirst = (x: Received) =>
        String(x.headers['x-service-signature']).includes(`t=${firstT},`) && Number(x.json.data.first_name.slice(1)) % 3 === 0;
      for (const r of [a.rcv, b.rcv])
        r.behaviour = (x) => (x.json.type !== 'contact.created' ? echoChallenge(x) : failFirst(x) ? { status: 500 } : { status: 200 });
      const N = 45;
      await Promise.all(Array.from({ length: N }, (_, i) => a.client.post('/v1/contacts', { first_name: `P${i}`, last_name: 'Parallel' })));
      await Promise.all([s.drain(), two.drain(), s.drain(), two.drain()]);
      s.clock.advance(RETRY_DELAYS_MS[0]);
      await Promise.all([s.drain(), two.drain(), s.drain(), two.drain()]);
      for (const r of [a.rcv, b.rcv]) {
        const per = new Map<string, string[]>();
        for (const x of r.deliveries())
          per.set(String(x.headers['x-service-delivery-id']), [
            ...(per.get(String(x.headers['x-service-delivery-id'])) ?? []),
            String(x.answer),
          ]);
        expect(per.size).toBe(N);
        for (const [id, answers] of per) {
          const first = r.deliveries().find((x) => x.headers['x-service-delivery-id'] === id)!;
          expect(answers).toEqual(Number(first.json.data.first_name.slice(1)) % 3 === 0 ? ['500', '200'] : ['200']);
        }
      }
    } finally {
      await two.close();
      if (secondStore !== s.store) await secondStore.close();
    }
  });

  it('publishes the webhook and event endpoints in OpenAPI', async () => {
    const doc = (await new Client(s.base).get('/v1/openapi.json')).body;
    for (const p of [
      '/v1/webhooks',
      '/v1/webhooks/{webhook_id}',
      '/v1/webhooks/{webhook_id}/verify',
      '/v1/webhooks/{webhook_id}/deliveries',
      '/v1/events',
    ]) {
      expect(doc.paths[p]).toBeTruthy();
    }
  });

  // Last in the suite: it moves the shared clock 31 days on.
  it('retention: prunes events and finished deliveries older than 30 days, never what a delivery still needs', async () => {
    const { client, rcv, id } = await verifiedEndpoint(['contact.created']);
    await client.post('/v1/contacts', { first_name: 'Old', last_name: 'Delivered' });
    await s.drain();
    rcv.behaviour = (r) => (r.json.type !== 'contact.created' ? echoChallenge(r) : { status: 500, body: 'down' });
    await client.post('/v1/contacts', { first_name: 'Old', last_name: 'Pending' });
    await s.drain(); // first attempt fails; a retry is due in a minute
    const before = (await client.get(`/v1/webhooks/${id}/deliveries?event_type=contact.created`)).body.data as {
      id: string;
      status: string;
      event_id: string;
    }[];
    const delivered = before.find((d) => d.status === 'succeeded')!;
    const pending = before.find((d) => d.status === 'pending')!;
    expect([delivered, pending].every(Boolean)).toBe(true);

    s.clock.advance(31 * 86_400_000);
    rcv.behaviour = echoChallenge;
    await client.post('/v1/contacts', { first_name: 'New', last_name: 'Contact' });
    const pruned = await s.prune();
    expect(pruned.deliveries).toBeGreaterThanOrEqual(1);
    expect(pruned.events).toBeGreaterThanOrEqual(1);
    expect((await client.get(`/v1/webhooks/${id}/deliveries/${delivered.id}`)).status).toBe(404);
    expect((await client.get(`/v1/events/${delivered.event_id}`)).status).toBe(404);
    // The pending delivery and its event stay, and are still delivered.
    expect((await client.get(`/v1/events/${pending.event_id}`)).status).toBe(200);
    await s.drain();
    expect((await client.get(`/v1/webhooks/${id}/deliveries/${pending.id}`)).body.status).toBe('succeeded');
    const recent = (await client.get('/v1/events?type=contact.created')).body.data as { data: { first_name: string } }[];
    expect(recent.map((e) => e.data.first_name).sort()).toEqual(['New', 'Old']);
    // Delivered now, its old event is needed no more; the delivery's own log stays until it is old.
    expect(await s.prune()).toEqual({ deliveries: 0, events: 1 });
    expect((await client.get(`/v1/webhooks/${id}/deliveries/${pending.id}`)).status).toBe(200);
    expect(await s.prune()).toEqual({ deliveries: 0, events: 0 });
  });
}
