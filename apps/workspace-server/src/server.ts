import { timingSafeEqual } from 'node:crypto';
import { base64Length, count, escapeToken, jsonSyntaxError, parseJsonText, pointerParam, unstorableBody, unstorableText, WORKSPACE_LIMITS } from '@setup-pack/core';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions, type RouteOptions } from 'fastify';
import { systemClock, type Clock } from './clock.js';
import type { Store } from './db/open.js';
import { ApiError, badRequest, envelope, invalidField } from './errors.js';
import fastifyCors from '@fastify/cors';
import fastifyStatic from '@fastify/static';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminRoutes } from './routes/admin.js';
import { catalogRoutes } from './routes/catalog.js';
import { contactRoutes } from './routes/contacts.js';
import type { RouteDeps, RoutePolicy } from './routes/context.js';
import { dealRoutes } from './routes/deals.js';
import { lookupRoutes } from './routes/lookups.js';
import { meRoutes } from './routes/me.js';
import { buildOpenApi } from './routes/openapi.js';
import { sharedSchemas } from './routes/schemas.js';
import { transactionRoutes } from './routes/transactions.js';
import { grantingScopes, hasScope } from './scopes.js';
import { batches } from './db/batch.js';
import { pruneRateLimitWindows } from './store/ratelimit.js';
import { admitted, authenticate, authParams, usableKeys } from './store/workspaces.js';
import { validationError, validatorCompiler } from './validation.js';
import { registerDatabaseFaults } from './app/db-faults.js';
import { registerHealth } from './app/health.js';
import { registerMetrics } from './app/metrics.js';
import { databaseFault } from './db/faults.js';
import { registerWebhooks, type WebhookOptions } from './webhooks/index.js';

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
  if (value === '*') throw new Error(`--cors-origin *: list the editor's origins (scheme://host:port); any origin would let every web page call the API with a key it holds`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`--cors-origin ${value}: not an origin (scheme://host[:port])`);
  }
  if (!/^https?:$/.test(url.protocol) || url.origin !== value.replace(/\/$/, '')) throw new Error(`--cors-origin ${value}: not an origin (scheme://host[:port], no path), e.g. ${url.origin}`);
  return url.origin;
}

/** Plan features a workspace's plan may exclude; a route names its feature in config. */
const planExcludes: Record<string, string[]> = { standard: [], lite: ['transactions'] };
const DEFAULT_LIMIT = 120;
/** Keys remembered for authentication inside a route's statement (the oldest forgotten first). */
const MAX_KNOWN_KEYS = 100_000;
/**
 * Above this limit a workspace's concurrent writes are counted in a statement of their own. At 10
 * requests a second or fewer, a workspace's creations (about 1 ms of holding its window's row each)
 * leave the row free 99 % of the time: its overlapping requests wait for the pool, not on the row.
 */
const COUNT_APART_ABOVE_PER_MINUTE = 600;

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function bearer(header: string | undefined): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m ? m[1] : null;
}

/** Query parameters sent twice are ambiguous; the spec answers 400 instead of guessing. */
function duplicateQueryParam(url: string): string | null {
  const i = url.indexOf('?');
  if (i < 0) return null;
  const seen = new Set<string>();
  for (const key of new URLSearchParams(url.slice(i + 1)).keys()) {
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return null;
}

/**
 * A foreign-key violation names an object that does not exist: 404 when the path named it (the
 * workspace of an admin route), 400 naming the body field otherwise.
 */
function foreignKeyError(e: { code?: string; detail?: string }, params: unknown): ApiError | null {
  if (e.code !== '23503') return null;
  // 'Key (created_by_member_id)=(mem_x) is not present in table "members"'; of a composite key the last column is the field.
  const m = /Key \(([^)]*)\)=\((.*)\) is not present in table "([a-z_]+)"/.exec(e.detail ?? '');
  const column = m ? m[1].split(', ').pop()! : 'id';
  const what = (m?.[3] ?? 'object').replace(/s$/, '').replace(/_/g, ' ');
  const inPath = params && typeof params === 'object' && column in params;
  return new ApiError(inPath ? 404 : 400, 'invalid_request_error', m ? `No such ${what}: ${column} ${JSON.stringify(m[2].split(', ').pop())}` : 'A referenced object does not exist', column);
}

/**
 * Errors Node's HTTP parser raises before a request exists (headers over 16 KB, a malformed
 * request line): written straight to the socket, but still in the envelope.
 */
function rawClientError(err: NodeJS.ErrnoException, socket: import('node:net').Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, text, message] =
    err.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large', 'The request line and headers are larger than 16 KB (a URL that long carries too much: send it in a body)']
    : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Request Timeout', 'The request was not received in time']
    : [400, 'Bad Request', 'The request is not valid HTTP'];
  const body = JSON.stringify(envelope('invalid_request_error', message));
  if (socket.writable) socket.write(`HTTP/1.1 ${status} ${text}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`);
  socket.destroy(err);
}

/**
 * The editor's build this package ships (`npm pack` writes it to <package>/editor via
 * scripts/bundle-editor.mjs), or undefined in a checkout where it was never built.
 */
export function bundledEditorDir(): string | undefined {
  // The installed package ships the build beside dist/; in a checkout, the editor's own build
  // (npm run build -w apps/editor) is served when it has been made.
  for (const rel of ['../editor/', '../../editor/dist/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  return undefined;
}

/** The folder of the editor's build, or an error saying what is missing. */
export function editorRoot(dir: string): string {
  const root = resolve(dir);
  if (!existsSync(join(root, 'index.html'))) throw new Error(`--editor ${dir}: no index.html there (build the editor with npm run build -w apps/editor)`);
  return root;
}

/**
 * The editor's static build under /editor/ (serve --editor DIR). Its routes need no key and stay
 * out of the OpenAPI document; /editor redirects to /editor/ so the build's relative paths resolve.
 */
async function registerEditor(app: FastifyInstance, dir: string): Promise<void> {
  const root = editorRoot(dir);
  app.get('/editor', { config: { auth: 'none' }, schema: { hide: true } as never }, async (_req, reply) => reply.redirect('/editor/'));
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), auth: 'none' } as never;
      route.schema = { ...route.schema, hide: true } as never;
    });
    await scope.register(fastifyStatic, { root, prefix: '/editor/' });
  });
}

/**
 * JSON keys are data: a pack may name a key "__proto__" or nest {"constructor": {"prototype": …}}
 * in a block config or a resource's data, and what validates must install. JSON.parse makes them
 * own properties; this server never merges a body into another object through the prototype (no
 * Object.assign or deep merge of request bodies), so keeping them is safe. Stated once for Fastify's
 * options and the JSON body parser that also takes an empty body.
 */
const JSON_KEYS = { onProtoPoisoning: 'ignore', onConstructorPoisoning: 'ignore' } as const;

/**
 * A JSON number that does not read as written follows a colon, a bracket or a comma, and is one
 * too large for a float, with an exponent of three digits or more (1e400; 309 digits before its
 * point are 16 and more), or an integer of 2^53 or more in size that a float does not hold
 * (9007199254740993): at least 16 significant digits, so 16 digits before its point, or 16 digits
 * and a point before a positive exponent (9.007199254740993e15; with fewer, a float holds every
 * decimal). A body without one holds none and is not read a second time (nor is a media upload's
 * base64, however its letters fall); one that has one is read again by core, which says whether
 * it is such a number (parseJsonText: json/number-range, json/number-precision).
 */
const MAY_NOT_READ_AS_WRITTEN = /[:[,]\s*-?(?:\d+(?:\.\d+)?[eE][+-]?\d{3}|\d{16}|[\d.]{17,}[eE]\+?\d)/;

/** The findings of a number a body does not hold as written, which a body may not carry: it would be stored as another. */
const NUMBER_NOT_AS_WRITTEN = new Set(['json/number-range', 'json/number-precision']);

/** The charset parameter of a Content-Type, as sent (without quotes), if it has one. */
function charsetOf(contentType: string | undefined): string | undefined {
  const m = contentType ? /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType) : null;
  return m ? (m[1] ?? m[2]) : undefined;
}

/** The labels clients send for UTF-8 (any case): answered without building a decoder. */
const USUAL_UTF8 = /^utf-?8$/i;

/**
 * Whether a charset names UTF-8 by one of its labels (WHATWG Encoding: utf-8, utf8,
 * unicode-1-1-utf-8…). The usual labels are known at once; only another one (a rare label, or a
 * charset that is refused) builds a TextDecoder to ask, which trims and folds it as the standard says.
 */
function isUtf8(label: string): boolean {
  if (USUAL_UTF8.test(label)) return true;
  try {
    return new TextDecoder(label).encoding === 'utf-8';
  } catch {
    return false;
  }
}

const isEmptyObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;

/**
 * The 400 of a JSON body sent to an operation that takes none (docs/api.md, "Conventions"): a GET's
 * parameters are in its query; elsewhere a field is named as an unknown one is, since the
 * operation has no field at all.
 */
function bodyNotTaken(method: string, url: string, body: unknown): ApiError {
  if (method === 'GET' || method === 'HEAD') return badRequest(`A ${method} request takes no body: send its parameters in the query string`);
  const operation = `${method} ${url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
  const first = body && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body)[0] : undefined;
  if (first === undefined) return badRequest(`${operation} takes no body: send none (or {})`);
  const param = pointerParam(`/${escapeToken(first)}`);
  return badRequest(`Received unknown parameter: ${param} (${operation} takes no body)`, param);
}

/** The 415 of a body that is not JSON, naming the media type it was sent as. */
function notJson(contentType: string | undefined): ApiError {
  const sent = contentType === undefined ? 'has no Content-Type' : `is ${contentType.split(';')[0].trim().toLowerCase().slice(0, 100) || 'an empty Content-Type'}`;
  return new ApiError(415, 'invalid_request_error', `Request bodies must be sent with Content-Type: application/json; this one ${sent}`);
}

/** The scopes any one of which a route's policy needs (grantingScopes of its scope), worked out once per route. */
const granting = new WeakMap<object, string[]>();
function routeGranting(policy: { scope?: string | readonly string[] }): string[] {
  let scopes = granting.get(policy);
  if (!scopes) granting.set(policy, (scopes = ([] as string[]).concat(policy.scope ?? []).flatMap(grantingScopes)));
  return scopes;
}

/** The rate-limit headers of a request that never reached a workspace: the default limit, nothing used. */
function defaultRateLimitHeaders(reply: FastifyReply, clock: Clock): void {
  const now = clock.now().getTime();
  reply.header('X-RateLimit-Limit', String(DEFAULT_LIMIT));
  reply.header('X-RateLimit-Remaining', String(DEFAULT_LIMIT));
  reply.header('X-RateLimit-Reset', String(Math.floor(now / 60000) * 60 + 60));
}

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
  const { leave } = await authenticateRequests(app, opts, clock);
  refuseUntakenInput(app);
  // Requests that never reached a workspace still carry the headers: the default limit, uncounted.
  app.addHook('onSend', async (req, reply, payload) => {
    // A route that authenticates in its own statement answers only after it did.
    if (req.deferredAuth && !req.deferredAuth.settled) throw new Error(`${req.method} ${req.routeOptions.url} answered before authenticating`);
    if (!reply.hasHeader('X-RateLimit-Limit')) defaultRateLimitHeaders(reply, clock);
    return payload;
  });
  answerErrors(app, bodyLimit, leave);
  answerUnknownRoutes(app, routes);

  const deps: RouteDeps = { db, clock };
  await app.register(meRoutes, deps);
  await app.register(contactRoutes, deps);
  await app.register(dealRoutes, deps);
  await app.register(transactionRoutes, deps);
  await app.register(lookupRoutes, deps);
  await app.register(adminRoutes, deps);
  await app.register(catalogRoutes, deps);
  await registerWebhooks(app, deps, opts.webhooks);

  registerHealth(app, { warming: opts.warming });
  if (opts.metrics !== false) registerMetrics(app, { db, clock, tokens: [opts.adminToken ?? '', opts.metricsToken ?? ''], processMetrics: opts.processMetrics, clusterMetrics: opts.clusterMetrics });
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
      r.code(tooLong ? 414 : 400)
        .send(envelope('invalid_request_error', tooLong ? 'A path segment is longer than 2048 characters' : 'Malformed URL: a percent escape in the path is not valid UTF-8'));
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

/** How request bodies are read: JSON in UTF-8 only, said precisely when it is not. */
function acceptJsonBodies(app: FastifyInstance): void {
  // Only JSON bodies are accepted: any other content type is a 415. A GET's or HEAD's body too:
  // Fastify reads none for them by default, so a form body on a GET was answered as if there were
  // none; read, it is a 415 like any other, and a JSON one a 400 (preValidation, below).
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });
  app.addHttpMethod('HEAD', { hasBody: true, overrideExisting: true });
  app.removeContentTypeParser(['text/plain']);
  // Every other type, or none, with a body: a 415 naming it. With no body it is no body, whatever
  // the header says (a client may send one on every call), as with the JSON type.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (req, body, done) => {
    if ((body as Buffer).length === 0) return done(null, undefined);
    done(notJson(req.headers['content-type']), undefined);
  });
  // Many clients send Content-Type: application/json on every call: with no body it is no body, so
  // an endpoint without a payload answers as without the header, and one that needs a body says so.
  const parseJson = app.getDefaultJsonParser(JSON_KEYS.onProtoPoisoning, JSON_KEYS.onConstructorPoisoning);
  app.removeContentTypeParser('application/json');
  // A malformed body says what breaks where, as `setup-pack validate` says it of a pack file
  // (core's jsonSyntaxError): Fastify's own message named neither. White space alone is no body.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    // A compressed body is read as sent, never inflated: say so, rather than that its bytes are not JSON.
    const coding = req.headers['content-encoding'];
    if (coding && coding.trim().toLowerCase() !== 'identity') {
      return done(new ApiError(415, 'invalid_request_error', `Request bodies are read as sent: Content-Encoding ${coding} is not supported; send the JSON uncompressed`), undefined);
    }
    if (body === '') return done(null, undefined);
    // JSON is exchanged in UTF-8 (RFC 8259): a body said to be in another charset would be misread
    // letter by letter (José stored as Jos\uFFFD), so it is refused, naming the charset.
    const charset = charsetOf(req.headers['content-type']);
    if (charset !== undefined && !isUtf8(charset)) {
      return done(new ApiError(415, 'invalid_request_error', `Request bodies are JSON in UTF-8: charset=${charset.slice(0, 100)} is not taken; send the body in UTF-8 (charset=utf-8, or no charset)`), undefined);
    }
    parseJson(req, body as string, (err, value) => {
      if (!err) {
        // A number that would be stored as another is refused with core's finding, as a pack's is
        // reported: one JSON cannot hold (1e400 parses as Infinity and would be stored as null), an
        // integer beyond 2^53 (9007199254740993 reads as 9007199254740992). Only a text that may hold one is read again.
        if (MAY_NOT_READ_AS_WRITTEN.test(body as string)) {
          const f = parseJsonText(body as string).diagnostics.find((d) => NUMBER_NOT_AS_WRITTEN.has(d.code));
          if (f) return done(badRequest(f.hint ? `${f.message} ${f.hint}` : f.message, pointerParam(f.pointer) || undefined), undefined);
        }
        return done(null, value);
      }
      const broken = jsonSyntaxError(body as string, err.message);
      if (broken.empty) return done(null, undefined);
      done(badRequest(`The request body is not valid JSON: ${broken.what} at line ${broken.line}, column ${broken.column}`), undefined);
    });
  });
}

/** Every route as it is added: the OpenAPI document and the 405s are built from them. */
function collectRoutes(app: FastifyInstance): RouteOptions[] {
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    // A statement that authenticates its request checks the key, its limit and its scopes, not
    // the workspace's plan: such a route must need no plan feature, and some scope.
    const policy = route.config as RoutePolicy | undefined;
    if (policy?.authInStatement && (policy.feature || policy.scope === undefined)) {
      throw new Error(`${route.method} ${route.url}: authInStatement needs a scope and no plan feature`);
    }
    routes.push(route);
  });
  return routes;
}

/** Keys this process has admitted, by secret hash, with their workspace and its limit. */
type KnownKeys = Map<string, { workspaceId: string; ratePerMinute: number }>;

/**
 * The admin token and API keys, each request's rate limit and scopes (onRequest), with what this
 * process knows of keys to authenticate in a route's own statement; `leave` ends a request counted
 * as under way.
 */
async function authenticateRequests(app: FastifyInstance, opts: ServerOptions, clock: Clock): Promise<{ leave: (workspaceId: string) => void }> {
  const db = opts.store.db;
  /**
   * Keys this process has admitted, by secret hash, with their workspace: for those, a route that
   * authenticates inside its own statement sends one statement instead of two. Nothing is trusted
   * from here: the statement checks the key, its revocation, expiry and rate limit as
   * authenticate() does; a refused key is forgotten.
   */
  const keyWorkspaces: KnownKeys = new Map();
  // Known from the start (the oldest first, so the oldest are forgotten first): after a restart under
  // load, each key's first request would otherwise cost two statements, a burst the queue carries
  // for seconds (docs/store.md, "A restart under load").
  for (const k of (await usableKeys(db, clock.now(), MAX_KNOWN_KEYS)).reverse()) keyWorkspaces.set(k.hash, { workspaceId: k.workspaceId, ratePerMinute: k.ratePerMinute });
  /**
   * Requests of each workspace (keys known here, routes that authenticate in their statement) from
   * their arrival until the statement that counted them returned: a workspace with one under way
   * is sending several at once. Only chooses how a write is counted; nothing relies on it for
   * correctness (every path counts exactly).
   */
  const underWay = new Map<string, number>();
  // PGlite runs one statement at a time on its one connection: no request ever waits on a row lock.
  const countsApart = db.kind === 'postgres';
  const enter = (ws: string) => underWay.set(ws, (underWay.get(ws) ?? 0) + 1);
  const leave = (ws: string) => {
    const n = (underWay.get(ws) ?? 1) - 1;
    if (n > 0) underWay.set(ws, n);
    else underWay.delete(ws);
  };
  app.addHook('onRequest', async (req, reply) => {
    const policy = req.routeOptions.config ?? {};
    const auth = policy.auth ?? (req.routeOptions.url ? 'key' : 'none');
    if (auth === 'none') return;
    const token = bearer(req.headers.authorization);
    if (auth === 'admin') {
      if (!opts.adminToken || !token || !sameSecret(token, opts.adminToken)) {
        throw new ApiError(401, 'authentication_error', 'Invalid admin token');
      }
      return;
    }
    if (!token) throw new ApiError(401, 'authentication_error', 'Missing API key: send Authorization: Bearer <API_KEY>');
    const now = clock.now();
    const params = authParams(token, now);
    const known = policy.authInStatement ? keyWorkspaces.get(params.hash) : undefined;
    if (known === undefined) return admit(keyWorkspaces, req, reply, policy, params.hash, await authenticate(db, params));
    // A key this process admitted before, on a route that authenticates inside its own statement.
    const { workspaceId } = known;
    const busy = countsApart && req.method !== 'GET' && known.ratePerMinute > COUNT_APART_ABOVE_PER_MINUTE && underWay.has(workspaceId);
    if (busy && !(policy.batched && batches(db))) {
      // A write of a workspace with requests under way here that its limit lets be many: counted in
      // a short statement of its own, so the window's row is not held locked until the write
      // commits, which would queue the workspace's other requests behind it (docs/store.md, "One
      // busy workspace"). A tenant at the default limit keeps the one statement. A batched route's
      // write keeps it too, and waits in its workspace's lane: its statements go at most two at a
      // time, each carrying what gathered behind them ("A busy workspace's creations in one statement").
      enter(workspaceId);
      try {
        return admit(keyWorkspaces, req, reply, policy, params.hash, await authenticate(db, params));
      } finally {
        leave(workspaceId);
      }
    }
    enter(workspaceId);
    const deferred = {
      workspaceId,
      params,
      // The scopes any one of which the route needs, which its statement checks before writing.
      scopes: routeGranting(policy),
      busy,
      settled: false,
      admit: (row: Record<string, unknown> | undefined) => {
        if (!deferred.settled) leave(workspaceId);
        deferred.settled = true;
        let a;
        try {
          a = admitted(row, params);
        } catch (e) {
          keyWorkspaces.delete(params.hash);
          throw e;
        }
        if (a.caller.workspace.id !== workspaceId) {
          keyWorkspaces.delete(params.hash);
          throw new Error('an API key answered for another workspace than the one it was admitted for');
        }
        admit(keyWorkspaces, req, reply, policy, params.hash, a);
      },
      settle: async () => {
        if (!deferred.settled) leave(workspaceId);
        deferred.settled = true;
        admit(keyWorkspaces, req, reply, policy, params.hash, await authenticate(db, params));
      },
    };
    req.deferredAuth = deferred;
  });
  return { leave };
}

/** The checks after authentication, in order: headers, rate limit (429), scope and plan (403). */
function admit(keyWorkspaces: KnownKeys, req: FastifyRequest, reply: FastifyReply, policy: RoutePolicy, hash: string, a: Awaited<ReturnType<typeof authenticate>>): void {
  const { caller, rateLimit: rl } = a;
  req.caller = caller;
  const known = keyWorkspaces.get(hash);
  if (!known) {
    if (keyWorkspaces.size >= MAX_KNOWN_KEYS) keyWorkspaces.delete(keyWorkspaces.keys().next().value as string);
    keyWorkspaces.set(hash, { workspaceId: caller.workspace.id, ratePerMinute: caller.workspace.rate_limit_per_minute });
  } else known.ratePerMinute = caller.workspace.rate_limit_per_minute;
  reply.header('X-RateLimit-Limit', String(rl.limit));
  reply.header('X-RateLimit-Remaining', String(rl.remaining));
  reply.header('X-RateLimit-Reset', String(rl.reset));
  if (!rl.allowed) {
    throw new ApiError(429, 'rate_limit_error', `Rate limit of ${rl.limit} requests per minute exceeded`, undefined, {
      'Retry-After': String(rl.retryAfter),
    });
  }
  const needed = policy.scope === undefined ? [] : ([] as string[]).concat(policy.scope);
  if (needed.length && !needed.some((s) => hasScope(caller.key.scopes, s))) {
    throw new ApiError(403, 'permission_error', `This API key lacks the ${needed.join(' or ')} scope`);
  }
  if (policy.feature && (planExcludes[caller.workspace.plan] ?? []).includes(policy.feature)) {
    throw new ApiError(403, 'permission_error', `The ${caller.workspace.plan} plan does not include ${policy.feature}`);
  }
}

/** Input no route takes: a body on an operation without one, a repeated query parameter, text PostgreSQL cannot store. */
function refuseUntakenInput(app: FastifyInstance): void {
  // A query parameter sent twice, and text PostgreSQL cannot store (NUL, lone surrogates), are
  // refused before any route sees them.
  app.addHook('preValidation', async (req) => {
    // A duplicate is checked after authentication, like every other 400: a keyless request is a 401, and a keyed one
    // counts against its workspace's limit (docs/api.md, "Rate limit"); it was refused in onRequest,
    // before the key was read, and so went uncounted. A route that authenticates in its statement
    // is authenticated by the error handler.
    // An operation without a body schema takes no body: a JSON body on one (a GET's filters, a
    // DELETE's "force", a field for POST …/test) is refused rather than ignored, as an unknown body
    // field is. White space alone is no body, and so is {}, which carries nothing to ignore.
    if (req.body !== undefined && req.routeOptions.url !== undefined && !req.routeOptions.schema?.body && !isEmptyObject(req.body)) {
      throw bodyNotTaken(req.method, req.routeOptions.url, req.body);
    }
    const dup = duplicateQueryParam(req.url);
    if (dup) throw new ApiError(400, 'invalid_request_error', `Query parameter ${dup} was sent more than once`, dup);
    // A body's fields each nest as deep as a pack may (unstorableBody).
    const bad = unstorableText(req.params) ?? unstorableText(req.query) ?? unstorableBody(req.body);
    if (bad) throw invalidField(bad.param, bad.what);
  });
}

/** Every error in the API's envelope; a database fault as a 503, a client's fault never as a 500. */
function answerErrors(app: FastifyInstance, bodyLimit: number, leave: (workspaceId: string) => void): void {
  app.setErrorHandler(async (err: unknown, req, reply) => {
    // A request that failed before its route's statement authenticated it (a 400 of its query, a
    // store error): authenticated now, so a bad key is still a 401 and the request still counts.
    // Not when the store itself failed: asking it again would wait as long again for a 503.
    const deferred = req.deferredAuth;
    if (deferred && !deferred.settled && databaseFault(err)) {
      deferred.settled = true;
      leave(deferred.workspaceId);
    } else if (deferred && !deferred.settled) {
      try {
        await deferred.settle();
      } catch (e) {
        err = e;
      }
    }
    const fault = app.database.answer(err);
    if (fault) err = fault;
    if (err instanceof ApiError) {
      return reply.code(err.statusCode).headers(err.headers).send(envelope(err.type, err.message, err.param, err.fields));
    }
    const e = err as { statusCode?: number; code?: string; message?: string; detail?: string };
    const fk = foreignKeyError(e, req.params);
    if (fk) return reply.code(fk.statusCode).headers(fk.headers).send(envelope(fk.type, fk.message, fk.param));
    const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
    if (status === 415 || e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      // A Content-Type Fastify cannot read (no subtype, a stray character): refused before any parser.
      const refusal = notJson(req.headers['content-type']);
      return reply.code(415).send(envelope(refusal.type, refusal.message));
    }
    if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      // Fastify's "Request body is too large" said neither how large a body may be nor why.
      return reply.code(413).send(envelope('invalid_request_error', `The request body is larger than ${count(bodyLimit)} bytes, the most the API takes (a media upload of a ${WORKSPACE_LIMITS.mediaFileBytes / 1048576} MiB file as base64)`));
    }
    if (status >= 400 && status < 500) {
      // Fastify's own client errors (malformed JSON, empty body, too large): keep status, use our envelope.
      return reply.code(status).send(envelope('invalid_request_error', e.message ?? 'Invalid request'));
    }
    req.log.error({ err: e }, 'request failed');
    return reply.code(500).send(envelope('api_error', 'An internal error occurred; it is safe to retry with backoff'));
  });
}

/** A path the API has with a method it does not take is a 405 naming those it takes; any other, a 404. */
function answerUnknownRoutes(app: FastifyInstance, routes: readonly RouteOptions[]): void {
  /** The methods each route path takes, as patterns over a request's path; built at the first unmatched request. */
  let pathMethods: { pattern: RegExp; path: string; methods: Set<string> }[] | undefined;
  const methodsOf = (path: string) => {
    if (!pathMethods) {
      const byPath = new Map<string, Set<string>>();
      for (const r of routes) {
        if (!byPath.has(r.url)) byPath.set(r.url, new Set());
        for (const m of ([] as string[]).concat(r.method)) byPath.get(r.url)!.add(m);
      }
      pathMethods = [...byPath].map(([url, methods]) => ({
        path: url.replace(/:([A-Za-z0-9_]+)/g, '{$1}'),
        methods,
        pattern: new RegExp(`^${url.split(/(:[A-Za-z0-9_]+|\*)/).map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('')}$`),
      }));
    }
    return pathMethods.find((p) => p.pattern.test(path));
  };

  // A path the API has, with a method it does not take (PUT for PATCH), is 405 naming the methods it
  // does take (and Allow); a path it does not have is 404.
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    const known = methodsOf(path);
    // A route that takes the method and found nothing (a file missing under /editor/) is a 404.
    if (known && !known.methods.has(req.method)) {
      const allowed = [...known.methods].sort();
      reply.header('Allow', allowed.join(', '));
      return reply.code(405).send(envelope('invalid_request_error', `${req.method} is not a method of ${known.path}; it takes ${allowed.join(', ')}`));
    }
    reply.code(404).send(envelope('invalid_request_error', `Unrecognized request URL (${req.method} ${path})`));
  });
}
