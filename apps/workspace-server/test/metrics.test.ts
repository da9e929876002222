// GET /metrics (app/metrics.ts) over HTTP on each store: who may read it, and that what it says
// follows what the server did: requests by route and status, latency, the pool, the webhook
// outbox and attempts, the caches.
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, Client, expectError, startServer, TEST_DATABASE_URL, type StoreKind } from './harness.js';
import { Receiver } from './webhooks-harness.js';

const METRICS_TOKEN = 'test-metrics-token';

/** The value of one sample of the text format, by its name and labels exactly as written; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

for (const kind of ['pglite', 'postgres'] as StoreKind[]) {
  const skip = kind === 'postgres' && !TEST_DATABASE_URL ? 'needs TEST_DATABASE_URL' : '';
  describe.skipIf(skip)(`GET /metrics on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    it('is read with the admin token or METRICS_TOKEN, and nothing else', async () => {
      const s = await startServer(kind, { server: { metricsToken: METRICS_TOKEN } });
      try {
        const W = await s.workspace();
        for (const who of [s.anon, new Client(s.base, 'wrong'), W.client])
          expectError(await who.get('/metrics'), 401, 'authentication_error');
        for (const token of [ADMIN_TOKEN, METRICS_TOKEN]) {
          const r = await new Client(s.base, token).get('/metrics');
          expect(r.status).toBe(200);
          expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
          expect(r.body).toMatch(/^# HELP workspace_http_requests_total /m);
        }
      } finally {
        await s.close();
      }
    });

    it('counts requests by route and status with their latency, and shows the pool and the caches', async () => {
      const s = await startServer(kind);
      try {
        const W = await s.workspace();
        for (let i = 0; i < 3; i++)
          expect((await W.client.post('/v1/contacts', { first_name: `M${i}`, last_name: 'Etric' })).status).toBe(201);
        for (let i = 0; i < 2; i++) expect((await W.client.get('/v1/contacts')).status).toBe(200);
        expect((await W.client.get('/v1/contacts/con_missing')).status).toBe(404);
        expect((await W.client.get('/v1/nothing-here')).status).toBe(404);
        const text = (await s.admin.get('/metrics')).body as string;
        expect(sample(text, 'workspace_http_requests_total{method="POST",route="/v1/contacts",status="201"}')).toBe(3);
        expect(sample(text, 'workspace_http_requests_total{method="GET",route="/v1/contacts",status="200"}')).toBe(2);
        expect(sample(text, 'workspace_http_requests_total{method="GET",route="/v1/contacts/:contact_id",status="404"}')).toBe(1);
        expect(sample(text, 'workspace_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
        expect(sample(text, 'workspace_http_request_duration_seconds_count{method="POST",route="/v1/contacts"}')).toBe(3);
        expect(sample(text, 'workspace_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/v1/contacts"}')).toBe(3);
        expect(sample(text, 'workspace_db_pool_max_connections')).toBe(kind === 'postgres' ? 5 : 1);
        expect(sample(text, 'workspace_db_pool_connections')).toBeGreaterThanOrEqual(1);
        expect(sample(text, 'workspace_db_pool_waiting')).toBe(0);
        expect(sample(text, 'workspace_database_up')).toBe(1);
        // The caches as GET /admin/stats shows them; the second list was the page the first served.
        const stats = (await s.admin.get('/admin/stats')).body;
        for (const cache of ['contact_texts', 'list_pages']) {
          expect(sample(text, `workspace_cache_hits_total{cache="${cache}"}`)).toBe(stats[cache].hits);
          expect(sample(text, `workspace_cache_entries{cache="${cache}"}`)).toBe(stats[cache].entries);
          expect(sample(text, `workspace_cache_capacity_characters{cache="${cache}"}`)).toBe(stats[cache].capacity);
        }
        expect(sample(text, 'workspace_cache_hits_total{cache="list_pages"}')).toBe(1);
        expect(sample(text, 'workspace_cache_entries{cache="contact_texts"}')).toBe(3);
        // Counters only grow, by what happened between two scrapes.
        await W.client.get('/v1/contacts');
        const again = (await s.admin.get('/metrics')).body as string;
        expect(sample(again, 'workspace_http_requests_total{method="GET",route="/v1/contacts",status="200"}')).toBe(3);
        expect(sample(again, 'workspace_http_requests_total{method="GET",route="/metrics",status="200"}')).toBe(1);
      } finally {
        await s.close();
      }
    });

    it('is not there with metrics off (serve --no-metrics), while the API answers as ever', async () => {
      const s = await startServer(kind, { server: { metrics: false, metricsToken: METRICS_TOKEN } });
      try {
        const W = await s.workspace();
        expect((await W.client.get('/v1/contacts')).status).toBe(200);
        for (const token of [ADMIN_TOKEN, METRICS_TOKEN])
          expectError(await new Client(s.base, token).get('/metrics'), 404, 'invalid_request_error');
      } finally {
        await s.close();
      }
    });

    it('shows the webhook outbox backlog and the attempts by outcome', async () => {
      const rcv = await new Receiver().start();
      const s = await startServer(kind, { webhooks: { allowInsecure: true, pollMs: 0, timeoutMs: 1500 } });
      try {
        const W = await s.workspace();
        const ep = await W.client.post('/v1/webhooks', { url: rcv.url, event_types: ['contact.created'] });
        expect((await W.client.post(`/v1/webhooks/${ep.body.id}/verify`)).body.verified).toBe(true);
        await s.app.webhooks.drain();
        const scrape = async () => (await s.admin.get('/metrics')).body as string;
        const before = await scrape();
        for (let i = 0; i < 3; i++) await W.client.post('/v1/contacts', { first_name: `H${i}`, last_name: 'Ook' });
        // The worker's loop is off: the events wait in the outbox.
        const waiting = await scrape();
        expect(sample(waiting, 'workspace_webhook_outbox_events')).toBe(3);
        expect(sample(waiting, 'workspace_webhook_outbox_oldest_event_seconds')).toBeGreaterThanOrEqual(0);
        rcv.behaviour = (r) => (r.json?.data?.first_name === 'H0' ? { status: 500 } : { status: 200 });
        await s.app.webhooks.drain();
        const after = await scrape();
        expect(sample(after, 'workspace_webhook_outbox_events')).toBe(0);
        const grown = (outcome: string) =>
          sample(after, `workspace_webhook_attempts_total{outcome="${outcome}"}`)! -
          (sample(before, `workspace_webhook_attempts_total{outcome="${outcome}"}`) ?? 0);
        expect([grown('succeeded'), grown('failed')]).toEqual([2, 1]);
        // The failed one waits for its retry.
        expect(sample(after, 'workspace_webhook_deliveries_pending')).toBe(1);
      } finally {
        await s.close();
        await rcv.close();
      }
    });
  });
}
