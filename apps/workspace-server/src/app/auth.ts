// Authentication and admission of every request, before its route runs: the key or admin token,
// the workspace's rate limit (429), the route's scope and the plan's features (403).
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../shared/clock.js';
import type { Db } from '../db/db.js';
import { ApiError } from '../shared/errors.js';
import type { RoutePolicy } from '../http/context.js';
import { grantingScopes, hasScope } from '../shared/scopes.js';
import { batches } from '../db/batch.js';
import { admitted, authenticate, authParams, usableKeys, type AuthRow } from '../modules/workspaces/store.js';

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

/** The scopes any one of which a route's policy needs (grantingScopes of its scope), worked out once per route. */
const granting = new WeakMap<object, string[]>();
function routeGranting(policy: { scope?: string | readonly string[] }): string[] {
  let scopes = granting.get(policy);
  if (!scopes) granting.set(policy, (scopes = ([] as string[]).concat(policy.scope ?? []).flatMap(grantingScopes)));
  return scopes;
}

/** The rate-limit headers of a request that never reached a workspace: the default limit, nothing used. */
export function defaultRateLimitHeaders(reply: FastifyReply, clock: Clock): void {
  const now = clock.now().getTime();
  reply.header('X-RateLimit-Limit', String(DEFAULT_LIMIT));
  reply.header('X-RateLimit-Remaining', String(DEFAULT_LIMIT));
  reply.header('X-RateLimit-Reset', String(Math.floor(now / 60000) * 60 + 60));
}

/** Keys this process has admitted, by secret hash, with their workspace and its limit. */
type KnownKeys = Map<string, { workspaceId: string; ratePerMinute: number }>;

/**
 * The admin token and API keys, each request's rate limit and scopes (onRequest), with what this
 * process knows of keys to authenticate in a route's own statement; `leave` ends a request counted
 * as under way.
 */
export async function authenticateRequests(
  app: FastifyInstance,
  opts: { db: Db; adminToken?: string },
  clock: Clock,
): Promise<{ leave: (workspaceId: string) => void }> {
  const db = opts.db;
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
  for (const k of (await usableKeys(db, clock.now(), MAX_KNOWN_KEYS)).reverse())
    keyWorkspaces.set(k.hash, { workspaceId: k.workspaceId, ratePerMinute: k.ratePerMinute });
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
      admit: (row: AuthRow | undefined) => {
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
function admit(
  keyWorkspaces: KnownKeys,
  req: FastifyRequest,
  reply: FastifyReply,
  policy: RoutePolicy,
  hash: string,
  a: Awaited<ReturnType<typeof authenticate>>,
): void {
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
