// GET /healthz and GET /readyz (app/health.ts), and the one log line a database fault gives
// (app/db-faults.ts), on each store: a real server over HTTP, its store closed under it.
import { describe, expect, it } from 'vitest';
import { expectError, startServer, TEST_DATABASE_URL, type StoreKind } from './harness.js';

for (const kind of ['pglite', 'postgres'] as StoreKind[]) {
  const skip = kind === 'postgres' && !TEST_DATABASE_URL ? 'needs TEST_DATABASE_URL' : '';
  describe.skipIf(skip)(`health and readiness on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    it('answers both without a key and outside the rate limit; readyz says ready once the store answers', async () => {
      const s = await startServer(kind);
      try {
        const W = await s.workspace({ rate_limit_per_minute: 1 });
        expect((await W.client.get('/v1/me')).status).toBe(200);
        expectError(await W.client.get('/v1/me'), 429, 'rate_limit_error');
        // With the workspace's window spent, a key or none: both answer, and count nothing.
        for (const client of [s.anon, W.client]) {
          const health = await client.get('/healthz');
          expect(health.status).toBe(200);
          expect(health.body).toEqual({ status: 'ok' });
          const ready = await client.get('/readyz');
          expect(ready.status).toBe(200);
          expect(ready.body).toEqual({ status: 'ready' });
          expect(ready.headers.get('x-ratelimit-remaining')).toBe('120');
        }
      } finally {
        await s.close();
      }
    });

    it('is not ready while warming, and ready once warm', async () => {
      let warmed!: () => void;
      const warming = new Promise<void>((resolve) => (warmed = resolve));
      const s = await startServer(kind, { server: { warming } });
      try {
        const cold = await s.anon.get('/readyz');
        expectError(cold, 503, 'service_unavailable');
        expect(cold.body.error.message).toMatch(/^Not ready: warming up/);
        expect(cold.headers.get('retry-after')).toBe('1');
        expect((await s.anon.get('/healthz')).status).toBe(200);
        warmed();
        await warming;
        expect((await s.anon.get('/readyz')).status).toBe(200);
      } finally {
        await s.close();
      }
    });

    it('with its store gone: healthz 200, readyz and the API 503, and one log line however many requests', async () => {
      const said: string[] = [];
      const s = await startServer(kind, { server: { onDatabaseState: (m) => said.push(m) } });
      const W = await s.workspace();
      await s.store.close();
      try {
        expect((await s.anon.get('/healthz')).status).toBe(200);
        const ready = await s.anon.get('/readyz');
        expectError(ready, 503, 'service_unavailable');
        expect(ready.body.error.message).toMatch(/^Not ready: /);
        for (let i = 0; i < 5; i++) expectError(await W.client.get('/v1/contacts'), 503, 'service_unavailable');
        expect(said).toHaveLength(1);
        expect(said[0]).toMatch(/^database unavailable \(.+\): answering 503 service_unavailable until it answers again$/);
      } finally {
        await s.app.close();
      }
    });
  });
}
