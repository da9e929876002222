// Two hosts behind a real HAProxy, as docs/operations.md deploys them: two `serve --workers 2`
// processes on one PostgreSQL (on ports of one machine), Debian's haproxy in front with the
// documented configuration (keys hashed to hosts, /readyz health checks). What must hold across
// hosts holds: one rate limit, one transaction per idempotency key, each webhook sent once; and a
// host SIGKILLed under load loses no acknowledged write, is taken out by the balancer, and its
// in-flight webhook deliveries are sent by the other. One loss here; hosts.fuzz.test.ts repeats it
// under `npm run fuzz`, and starts the lost host again under load each time.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from './harness.js';
import { createContacts, deliveryId, expectEachAcknowledgedOnce, loseAHost, sleep, until, useCluster } from './hosts-cluster.js';
import { haproxyUnavailable } from './hosts.js';

const skip = !TEST_DATABASE_URL ? 'needs TEST_DATABASE_URL' : haproxyUnavailable();

describe.skipIf(skip)(`two hosts behind HAProxy on one PostgreSQL${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const suite = useCluster();

  it('counts one rate limit across both hosts: of 30 concurrent requests, exactly the limit of 20 pass', async () => {
    const { c } = suite;
    const ws = await c.workspace(20);
    // One minute's window: not within a few seconds of its end, or the requests would span two.
    if (Date.now() % 60_000 > 55_000) await sleep(60_000 - (Date.now() % 60_000) + 100);
    const clients = Object.values(ws.clients);
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => clients[i % 2].get('/v1/me')));
    const passed = replies.filter((r) => r.status === 200);
    expect(replies.filter((r) => r.status !== 200).map((r) => r.status)).toEqual(Array(10).fill(429));
    expect(passed.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
    expect(new Set(replies.map((r) => r.headers.get('x-served-by'))), 'both hosts answered').toEqual(new Set(['host1', 'host2']));
  });

  it('holds an idempotency key across both hosts: 16 concurrent creations, one transaction', async () => {
    const { c } = suite;
    const ws = await c.workspace();
    const clients = Object.values(ws.clients);
    const replies = await Promise.all(
      Array.from({ length: 16 }, (_, i) => clients[i % 2].post('/v1/transactions', { name: 'Once', idempotency_key: 'same-key' })),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(16).fill(200));
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    expect(new Set(replies.map((r) => r.headers.get('x-served-by'))), 'both hosts answered').toEqual(new Set(['host1', 'host2']));
    const db = new pg.Client({ connectionString: c.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query(
        `SELECT (SELECT count(*) FROM transactions WHERE workspace_id = $1)::int AS transactions,
        (SELECT count(*) FROM events WHERE workspace_id = $1 AND type = 'transaction.created')::int AS events`,
        [ws.id],
      );
      expect(rows[0]).toEqual({ transactions: 1, events: 1 });
    } finally {
      await db.end();
    }
  });

  it('sends each webhook once: 20 contacts written through both hosts, 20 deliveries acknowledged once each', async () => {
    const { hook } = suite;
    const seen = hook.receiver.deliveries('contact.created').length;
    const received = () => hook.receiver.deliveries('contact.created').slice(seen);
    await createContacts(hook, 20, 'Once');
    await until('20 deliveries received', () => new Set(received().map(deliveryId)).size >= 20);
    const ids = [...new Set(received().map(deliveryId))];
    await expectEachAcknowledgedOnce(hook, ids);
    expect(ids).toHaveLength(20);
    expect(received(), 'nothing sent twice').toHaveLength(20);
    const by = (name: string) => received().filter((r) => hook.senders.get(r) === name).length;
    console.log(`webhooks once: host1 sent ${by('host1')}, host2 ${by('host2')}`);
  });

  it('loses a host under load: HAProxy takes it out, no acknowledged write is lost, its in-flight deliveries are sent by the other', async () => {
    const { c, hook } = suite;
    const load = await c.workspace();
    const lost = await loseAHost(c, hook, load);
    expect(lost.resent, 'the lost host had deliveries in flight').toBeGreaterThan(0);
    console.log(
      `lost ${lost.victim.name}: DOWN in HAProxy after ${lost.downAfterMs} ms; ${lost.requests} requests, ${lost.unknown} unanswered (in flight on it); ${lost.resent} of its in-flight deliveries sent by ${lost.survivor.name}`,
    );
  }, 90_000);
});
