// The server composed: the app's cross-cutting plugins (app/), then each module's routes
// (modules/<resource>/routes.ts). Nothing below imports this file (docs/server-layout.md).
import fastifyCors from '@fastify/cors';
import { base64Length, WORKSPACE_LIMITS } from '@setup-pack/core';
import Fastify, { type FastifyInstance, type FastifyServerOptions, type RouteOptions } from 'fastify';
import { authenticateRequests, defaultRateLimitHeaders } from './app/auth.js';
import { acceptJsonBodies, JSON_KEYS } from './app/bodies.js';
import { registerDatabaseFaults } from './app/db-faults.js';
import { registerEditor } from './app/editor.js';
import { answerErrors, answerUnknownRoutes, rawClientError, refuseUntakenInput } from './app/errors.js';
import { registerHealth } from './app/health.js';
import { registerMetrics } from './app/metrics.js';
import { buildOpenApi } from './app/openapi.js';
import { statsRoutes } from './app/stats.js';
import type { RouteDeps } from './http/context.js';
import { errorSchema } from './http/schemas.js';
import { activitySchema } from './modules/activities/schemas.js';
import { contactSchema } from './modules/contacts/schemas.js';
import { dealSchema } from './modules/deals/schemas.js';
import { transactionSchema } from './modules/transactions/schemas.js';
import { catalogRoutes } from './modules/catalog/routes.js';
import { contactRoutes } from './modules/contacts/routes.js';
import { dealRoutes } from './modules/deals/routes.js';
import { lookupRoutes } from './modules/lookups/routes.js';
import { transactionRoutes } from './modules/transactions/routes.js';
import { registerWebhooks, type WebhookOptions } from './modules/webhooks/index.js';
import { meRoutes } from './modules/workspaces/me.js';
import { pruneRateLimitWindows } from './modules/workspaces/ratelimit.js';
import { adminRoutes } from './modules/workspaces/routes.js';
import type { Store } from './open-store.js';
import { systemClock, type Clock } from './shared/clock.js';
import { envelope } from './shared/errors.js';
import { validationError, validatorCompiler } from './shared/validation.js';

export { bundledEditorDir, editorRoot } from './app/editor.js';

export interface ServerOptions {
  store: Store;
  clock?: Clock;
  /** Guards /admin; when absent the admin API refuses every call. */
  adminToken?: string;
  logger?: FastifyServerOptions['logger'];
  /** Delivery worker settings; allowInsecure is --allow-insecure-webhooks. */
  webhooks?: WebhookOptions;
  /** A folder of static files (the editor's `vite build` output) served under /editor/ without a key. */
  editorDir?: string;
  /** false: no GET /metrics and nothing counted for it (`serve --no-metrics`). Default true. */
  metrics?: boolean;
  /** Also reads GET /metrics, beside the admin token (METRICS_TOKEN). */
  metricsToken?: string;
  /** Adds the process's CPU, memory, event loop and GC to /metrics (once per process: `serve` sets it). */
  processMetrics?: boolean;
  /** With `serve --workers`: the cluster's metrics, aggregated (app/metrics.ts). */
  clusterMetrics?: () => Promise<string>;
  /** Settles when the process is warm; /readyz answers 503 until then (app/health.ts). Absent: warm from the start. */
  warming?: Promise<unknown>;
  /** Told once when the database becomes unavailable and once when it is back (app/db-faults.ts); default the logger at warn. */
  onDatabaseState?: (message: string) => void;
  /**
   * Browser origins allowed to call the API across origins (an editor served elsewhere), exactly as
   * `scheme://host[:port]`. Empty: no cross-origin access (the editor under /editor/ needs none).
   */
  corsOrigins?: string[];
}

/** A CORS origin as the browser sends it, or an error naming what is wrong with it. */
export function corsOrigin(value: string): string {
  if (value === '*')
    throw new Error(
      `--cors-origin *: list the editor's origins (scheme://host:port); any origin would let every web page call the API with a key it holds`,
    );
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`--cors-origin ${value}: not an origin (scheme://host[:port])`);
  }
  if (!/^https?:$/.test(url.protocol) || url.origin !== value.replace(/\/$/, ''))
    throw new Error(`--cors-origin ${value}: not an origin (scheme://host[:port], no path), e.g. ${url.origin}`);
  return url.origin;
}

/** The schemas routes name by `$ref` (`Contact#`…), registered once and listed in the OpenAPI document. */
const sharedSchemas = [errorSchema, contactSchema, activitySchema, dealSchema, transactionSchema];

/** Each module's routes and the process's counters, in the order the OpenAPI document lists them. */
const ROUTES = [meRoutes, contactRoutes, dealRoutes, transactionRoutes, lookupRoutes, adminRoutes, statsRoutes, catalogRoutes];

export async function buildServer(opts: ServerOptions): Promise<FastifyInstance> {
  const clock = opts.clock ?? systemClock;
  const db = opts.store.db;
  const { app, bodyLimit } = await createApp(opts, clock);
  registerDatabaseFaults(app, db, { onState: opts.onDatabaseState });
  app.setValidatorCompiler(validatorCompiler);
  app.setSchemaErrorFormatter((errors, context) => validationError(errors as never, context));
  for (const s of sharedSchemas) app.addSchema(s);
  acceptJsonBodies(app);
  const routes = collectRoutes(app);
  const { leave } = await authenticateRequests(app, { db, adminToken: opts.adminToken }, clock);
  refuseUntakenInput(app);
  // Requests that never reached a workspace still carry the headers: the default limit, uncounted.
  app.addHook('onSend', async (req, reply, payload) => {
    // A route that authenticates in its own statement answers only after it did.
    if (req.deferredAuth && !req.deferredAuth.settled)
      throw new Error(`${req.method} ${req.routeOptions.url} answered before authenticating`);
    if (!reply.hasHeader('X-RateLimit-Limit')) defaultRateLimitHeaders(reply, clock);
    return payload;
  });
  answerErrors(app, bodyLimit, leave);
  answerUnknownRoutes(app, routes);

  const deps: RouteDeps = { db, clock };
  for (const routes of ROUTES) await app.register(routes, deps);
  await registerWebhooks(app, deps, opts.webhooks);

  registerHealth(app, { warming: opts.warming });
  if (opts.metrics !== false)
    registerMetrics(app, {
      db,
      clock,
      tokens: [opts.adminToken ?? '', opts.metricsToken ?? ''],
      processMetrics: opts.processMetrics,
      clusterMetrics: opts.clusterMetrics,
    });
  if (opts.editorDir) await registerEditor(app, opts.editorDir);

  let openapi: unknown = null;
  app.get('/v1/openapi.json', { config: { auth: 'none' }, schema: { hide: true } as never }, async () => {
    openapi ??= buildOpenApi(routes, sharedSchemas);
    return openapi;
  });

  // Old rate-limit windows are useless; drop them every few minutes.
  const timer = setInterval(() => void pruneRateLimitWindows(db, clock.now()).catch(() => {}), 5 * 60_000);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
  return app;
}

/** The Fastify instance: its body limit, router refusals in the error envelope, and CORS when origins are given. */
async function createApp(opts: ServerOptions, clock: Clock): Promise<{ app: FastifyInstance; bodyLimit: number }> {
  // The largest body is a media upload: the media library's file limit as base64, plus its fields.
  const bodyLimit = base64Length(WORKSPACE_LIMITS.mediaFileBytes) + 64 * 1024;
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit,
    // A long path id reaches its route (and is a 404 there, with the rate-limit headers); only an
    // absurd one is refused by the router.
    routerOptions: { maxParamLength: 2048 },
    // The router's own refusals, in the error envelope like every other answer.
    frameworkErrors: (err, _req, reply) => {
      const tooLong = (err as { code?: string }).code === 'FST_ERR_MAX_PARAM_LENGTH';
      const r = reply as unknown as { code(n: number): { send(b: unknown): void } };
      // Refused before routing, so neither authenticated nor counted: the headers of a request
      // that never reached a workspace (onSend hooks do not run for these answers).
      defaultRateLimitHeaders(reply, clock);
      r.code(tooLong ? 414 : 400).send(
        envelope(
          'invalid_request_error',
          tooLong ? 'A path segment is longer than 2048 characters' : 'Malformed URL: a percent escape in the path is not valid UTF-8',
        ),
      );
    },
    clientErrorHandler: rawClientError,
    ...JSON_KEYS,
  });
  if (opts.corsOrigins?.length) {
    // Before the key check, so a preflight is answered without one. Keys travel in the
    // Authorization header, never in cookies: no credentials mode, and never "*".
    await app.register(fastifyCors, {
      origin: opts.corsOrigins.map(corsOrigin),
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      // Only the headers the API reads: a transaction's idempotency key is its body field.
      allowedHeaders: ['Authorization', 'Content-Type'],
      exposedHeaders: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After'],
      credentials: false,
      maxAge: 600,
    });
  }
  return { app, bodyLimit };
}

/** Every route as it is added: the OpenAPI document and the 405s are built from them. */
function collectRoutes(app: FastifyInstance): RouteOptions[] {
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    // A statement that authenticates its request checks the key, its limit and its scopes, not
    // the workspace's plan: such a route must need no plan feature, and some scope.
    const policy = route.config;
    if (policy?.authInStatement && (policy.feature || policy.scope === undefined)) {
      throw new Error(`${route.method} ${route.url}: authInStatement needs a scope and no plan feature`);
    }
    routes.push(route);
  });
  return routes;
}
