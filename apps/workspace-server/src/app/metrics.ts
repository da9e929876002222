import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from '../shared/clock.js';
import type { Db } from '../db/db.js';
import { batchStats } from '../db/batch.js';
import { ApiError } from '../shared/errors.js';
import { contactPageCache, contactTextCache } from '../modules/contacts/cache.js';
import { outboxBacklog, type OutboxBacklog } from '../modules/webhooks/store.js';
import { CHECK_TIMEOUT_MS } from './db-faults.js';

export interface MetricsOptions {
  db: Db;
  clock: Clock;
  /** Secrets that may read /metrics (the admin token, METRICS_TOKEN); none: every read is refused. */
  tokens: string[];
  /** The process's own CPU, memory, event loop and GC metrics (prom-client's defaults): once per process. */
  processMetrics?: boolean;
  /** With `serve --workers`, the whole cluster's metrics, aggregated by the primary (bin.ts); else this process's. */
  clusterMetrics?: () => Promise<string>;
}

/** Latency buckets (seconds): the API's p99 target is tens of milliseconds, a restart's seconds. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

declare module 'fastify' {
  interface FastifyInstance {
    /** This process's metrics (app/metrics.ts); `serve --workers` hands it to prom-client's cluster aggregation. */
    metrics: Registry;
  }
}

/**
 * GET /metrics in the Prometheus text format (docs/operations.md, "What to monitor"), through
 * prom-client: requests by route and status, their latency, the pool, the webhook outbox and
 * attempts, the caches. Guarded by a bearer token (the admin token or METRICS_TOKEN); not in the
 * OpenAPI document, which describes the JSON API.
 */
export function registerMetrics(app: FastifyInstance, opts: MetricsOptions): Registry {
  const registry = new Registry();
  if (opts.processMetrics) collectDefaultMetrics({ register: registry });
  countRequests(app, registry);
  poolMetrics(registry, opts.db, app);
  webhookMetrics(registry, opts.db, opts.clock, app);
  cacheMetrics(registry, opts.db);
  app.decorate('metrics', registry);
  const allowed = opts.tokens.filter(Boolean).map(digest);
  app.get(
    '/metrics',
    { config: { auth: 'none', database: false }, schema: { hide: true } as never },
    async (req: FastifyRequest, reply: FastifyReply) => {
      const token = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
      const given = token === undefined ? undefined : digest(token);
      if (!given || !allowed.some((a) => timingSafeEqual(a, given))) {
        throw new ApiError(401, 'authentication_error', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN or ADMIN_TOKEN>');
      }
      const text = opts.clusterMetrics ? await opts.clusterMetrics() : await registry.metrics();
      return reply.type(registry.contentType).send(text);
    },
  );
  return registry;
}

/** Compared as digests: equal lengths whatever was sent, so the comparison takes the same time. */
const digest = (secret: string) => createHash('sha256').update(secret).digest();

/**
 * Every answered request, by method, route (the pattern, `/v1/contacts/:contact_id`; `unmatched`
 * for a 404 of no route) and status, and its latency. Each request adds to plain counts of its
 * route, found through maps keyed by the method and the route's own string; the counter takes
 * them at a scrape (monotonic). Only the latency goes through prom-client per request, once: its
 * label checks and hashing cost a few microseconds a call, and the counter's as many again.
 */
function countRequests(app: FastifyInstance, registry: Registry): void {
  const latency = new Histogram({
    name: 'workspace_http_request_duration_seconds',
    help: 'Time from receiving a request to sending its answer, by method and route',
    labelNames: ['method', 'route'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  type Route = { method: string; route: string; latency: Histogram.Internal<string>; byStatus: Map<number, number> };
  const routes = new Map<string, Map<string, Route>>();
  const routeOf = (method: string, route: string): Route => {
    let byRoute = routes.get(method);
    if (!byRoute) routes.set(method, (byRoute = new Map<string, Route>()));
    let r = byRoute.get(route);
    if (!r) byRoute.set(route, (r = { method, route, latency: latency.labels(method, route), byStatus: new Map() }));
    return r;
  };
  monotonic(
    registry,
    'workspace_http_requests_total',
    'HTTP requests answered, by method, route and status',
    ['method', 'route', 'status'],
    () =>
      [...routes.values()].flatMap((byRoute) =>
        [...byRoute.values()].flatMap((r) =>
          [...r.byStatus].map(([status, n]): [string[], number] => [[r.method, r.route, String(status)], n]),
        ),
      ),
  );
  app.addHook('onResponse', (req, reply, done) => {
    const r = routeOf(req.method, req.routeOptions.url ?? 'unmatched');
    r.byStatus.set(reply.statusCode, (r.byStatus.get(reply.statusCode) ?? 0) + 1);
    r.latency.observe(reply.elapsedTime / 1000);
    done();
  });
}

/** The store's connections and what waits for them, and whether the store answers; read at each scrape. */
function poolMetrics(registry: Registry, db: Db, app: FastifyInstance): void {
  const gauge = (name: string, help: string, read: () => number, aggregator: 'sum' | 'min' = 'sum') =>
    new Gauge({
      name,
      help,
      registers: [registry],
      aggregator,
      collect() {
        this.set(read());
      },
    });
  gauge('workspace_db_pool_max_connections', 'Connections the pool may open (PGlite: its one connection)', () => db.pool?.size ?? 0);
  gauge('workspace_db_pool_connections', 'Connections open', () => db.pool?.usage().open ?? 0);
  gauge('workspace_db_pool_idle_connections', 'Connections open and idle', () => db.pool?.usage().idle ?? 0);
  gauge('workspace_db_pool_waiting', 'Statements waiting for a connection', () => db.pool?.usage().waiting ?? 0);
  gauge('workspace_db_batch_waiting', 'Requests waiting to be sent in a batched statement', () => batchStats(db).waiting);
  gauge(
    'workspace_database_up',
    '1 while the database answers, 0 from a database fault until it answers again (with --workers, 0 if any process finds it down)',
    () => (app.database.available ? 1 : 0),
    'min',
  );
  monotonic(registry, 'workspace_db_batches_total', 'Statements that carried several requests', [], () => [[[], batchStats(db).batches]]);
  monotonic(registry, 'workspace_db_batched_requests_total', 'Requests carried by those statements', [], () => [
    [[], batchStats(db).batched],
  ]);
}

/**
 * The outbox's backlog, read from the database at a scrape (bounded by CHECK_TIMEOUT_MS; the last
 * reading stays when the database does not answer), and this process's delivery attempts.
 */
function webhookMetrics(registry: Registry, db: Db, clock: Clock, app: FastifyInstance): void {
  let last: OutboxBacklog | undefined;
  /** The reading under way: a scrape collects every gauge at once, and they share one statement. */
  let reading: Promise<OutboxBacklog | undefined> | undefined;
  const read = async () => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), CHECK_TIMEOUT_MS)));
    last = (await Promise.race([outboxBacklog(db, clock.now()).catch(() => undefined), late]).finally(() => clearTimeout(timer))) ?? last;
    return last;
  };
  // The backlog is the database's, the same from every process: with --workers, the largest reading, not their sum.
  const backlog = (name: string, help: string, value: (b: OutboxBacklog) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      aggregator: 'max',
      async collect() {
        const b = await (reading ??= read().finally(() => (reading = undefined)));
        if (b) this.set(value(b));
      },
    });
  backlog(
    'workspace_webhook_outbox_events',
    'Events written and not yet fanned out to deliveries (counted up to 100,000)',
    (b) => b.events,
  );
  backlog(
    'workspace_webhook_outbox_oldest_event_seconds',
    'Age of the oldest event not yet fanned out (0 when none)',
    (b) => b.oldestEventSeconds,
  );
  backlog('workspace_webhook_deliveries_pending', 'Deliveries waiting for an attempt, due or retrying later', (b) => b.pending);
  backlog('workspace_webhook_deliveries_sending', 'Deliveries being sent now, by any process', (b) => b.sending);
  backlog(
    'workspace_webhook_deliveries_oldest_due_seconds',
    'How long the oldest due delivery has waited past its time (0 when none)',
    (b) => b.oldestDueSeconds,
  );
  monotonic(
    registry,
    'workspace_webhook_attempts_total',
    'Delivery attempts sent, by outcome: succeeded (2xx) or failed',
    ['outcome'],
    () => [
      [['succeeded'], app.webhooks.attempts.succeeded],
      [['failed'], app.webhooks.attempts.failed],
    ],
  );
  monotonic(registry, 'workspace_webhook_fan_outs_total', 'Reads of the outbox that fanned events out', [], () => [
    [[], app.webhooks.fanOuts],
  ]);
}

/** The contact text cache and the list page cache (GET /admin/stats): hits, misses, size. */
function cacheMetrics(registry: Registry, db: Db): void {
  const caches = () =>
    [
      ['contact_texts', contactTextCache(db)],
      ['list_pages', contactPageCache(db)],
    ] as const;
  monotonic(registry, 'workspace_cache_hits_total', 'Reads answered from the cache', ['cache'], () =>
    caches().map(([name, c]) => [[name], c.hits]),
  );
  monotonic(registry, 'workspace_cache_misses_total', 'Reads the cache could not answer', ['cache'], () =>
    caches().map(([name, c]) => [[name], c.misses]),
  );
  for (const [name, help, read] of [
    ['workspace_cache_entries', 'Entries held', (c: ReturnType<typeof contactTextCache>) => c.count],
    ['workspace_cache_characters', 'Characters of text held', (c: ReturnType<typeof contactTextCache>) => c.used],
    ['workspace_cache_capacity_characters', 'Characters the cache may hold', (c: ReturnType<typeof contactTextCache>) => c.capacity],
  ] as const) {
    new Gauge({
      name,
      help,
      labelNames: ['cache'],
      registers: [registry],
      collect() {
        for (const [cache, c] of caches()) this.labels(cache).set(read(c));
      },
    });
  }
}

/**
 * A counter over a count the process keeps itself (a cache's hits): at a scrape it grows by what
 * the count grew since the last. A count that went back (a cache replaced) restarts from there.
 */
function monotonic(registry: Registry, name: string, help: string, labelNames: string[], read: () => [string[], number][]): void {
  const seen = new Map<string, number>();
  new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      for (const [labels, value] of read()) {
        const key = labels.join('\0');
        const before = seen.get(key);
        seen.set(key, value);
        // Shown from the first scrape, at 0 if nothing happened yet.
        const grown = Math.max(0, before === undefined ? value : value - before);
        if (labels.length) this.labels(...labels).inc(grown);
        else this.inc(grown);
      }
    },
  });
}
