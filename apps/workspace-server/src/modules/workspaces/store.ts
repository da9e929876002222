import type { StageType } from '@setup-pack/core';
import { createHash, randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../../db/db.js';
import { iso, isoOrNull } from '../../db/db.js';
import { ApiError, badRequest, invalidField, notFound } from '../../shared/errors.js';
import { storedInstant, storedProblem } from '../../shared/timestamps.js';
import { newCollectionId, newId } from '../../shared/ids.js';
import { rateLimitState, type RateLimitState } from './ratelimit.js';
import { Params } from '../../db/sql.js';

export interface Workspace {
  id: string;
  name: string;
  slug: string;
  plan: string;
  rate_limit_per_minute: number;
  created_at: string;
}

export const plans = ['standard', 'lite'] as const;

/** A row of workspaces. */
interface WorkspaceRow {
  id: string;
  name: string;
  slug: string;
  plan: string;
  rate_limit_per_minute: number | string;
  created_at: Date | string;
}

const toWorkspace = (r: WorkspaceRow): Workspace => ({
  id: r.id,
  name: r.name,
  slug: r.slug,
  plan: r.plan,
  rate_limit_per_minute: Number(r.rate_limit_per_minute),
  created_at: iso(r.created_at),
});

/** The defaults a real new workspace has, so a fresh workspace is usable at once. */
export const defaultContactStages = ['Lead', 'Prospect', 'Active Client', 'Under Contract', 'Past Client'];
export const defaultLeadSources = ['Website', 'Referral', 'Open House', 'Zillow', 'Sign Call'];
export const defaultPipelineStages: { name: string; type: StageType }[] = [
  { name: 'New', type: 'OPEN' },
  { name: 'Qualified', type: 'OPEN' },
  { name: 'Showing', type: 'OPEN' },
  { name: 'Offer', type: 'OPEN' },
  { name: 'Won', type: 'CLOSED_WON' },
  { name: 'Lost', type: 'CLOSED_LOST' },
];
export const defaultClosingStages = [
  { name: 'Active', status: 'active' },
  { name: 'Pending', status: 'pending' },
  { name: 'Closed', status: 'closed' },
  { name: 'Fell Through', status: 'fell_through' },
];
export const defaultChecklist = [
  { title: 'Send executed contract to lender', milestone: 'contract_date', offset_days: 1 },
  { title: 'Deliver earnest money', milestone: 'earnest_money_due_date', offset_days: 0 },
  { title: 'Schedule home inspection', milestone: 'inspection_date', offset_days: -3 },
  { title: 'Order appraisal', milestone: 'appraisal_date', offset_days: -7 },
  { title: 'Final walkthrough', milestone: 'walkthrough_date', offset_days: 0 },
  { title: 'Confirm closing appointment', milestone: 'projected_close_date', offset_days: -2 },
];

export async function createWorkspace(
  db: Db,
  input: { name: string; slug: string; plan?: string; rate_limit_per_minute?: number },
  now: Date,
): Promise<Workspace> {
  return db.transaction(async (tx) => {
    const existing = await tx.query('SELECT 1 FROM workspaces WHERE slug = $1', [input.slug]);
    if (existing.rows.length) throw badRequest(`A workspace with slug "${input.slug}" already exists`, 'slug');
    const id = newId('ws');
    const at = now.toISOString();
    let rows: WorkspaceRow[];
    try {
      ({ rows } = await tx.query<WorkspaceRow>(
        `INSERT INTO workspaces (id, name, slug, plan, rate_limit_per_minute, created_at)
         VALUES ($1, $2, $3, $4, $5, $6::timestamptz) RETURNING *`,
        [id, input.name, input.slug, input.plan ?? 'standard', input.rate_limit_per_minute ?? 120, at],
      ));
    } catch (e) {
      if ((e as { code?: string }).code === '23505') throw badRequest(`A workspace with slug "${input.slug}" already exists`, 'slug');
      throw e;
    }
    await insertDefaults(tx, id, now);
    return toWorkspace(rows[0]);
  });
}

async function insertDefaults(tx: Queryable, ws: string, now: Date): Promise<void> {
  // Distinct created_at per row keeps "newest first" lookups in a stable, meaningful order.
  const at = (i: number) => new Date(now.getTime() - 1000 + i).toISOString();
  for (const [i, name] of defaultContactStages.entries()) {
    await tx.query('INSERT INTO contact_stages (id, workspace_id, name, position, created_at) VALUES ($1,$2,$3,$4,$5::timestamptz)', [
      newCollectionId('contact_stages'),
      ws,
      name,
      i,
      at(i),
    ]);
  }
  for (const [i, name] of defaultLeadSources.entries()) {
    await tx.query('INSERT INTO lead_sources (id, workspace_id, name, created_at) VALUES ($1,$2,$3,$4::timestamptz)', [
      // Not COLLECTIONS.lead_sources' prefix ('lsr', what the API's creations take): a new
      // workspace's own lead sources have always been made with this one.
      newId('lsrc'),
      ws,
      name,
      at(i),
    ]);
  }
  const pipelineId = newCollectionId('pipelines');
  await tx.query('INSERT INTO pipelines (id, workspace_id, name, position, created_at) VALUES ($1,$2,$3,0,$4::timestamptz)', [
    pipelineId,
    ws,
    'Sales',
    at(0),
  ]);
  for (const [i, s] of defaultPipelineStages.entries()) {
    await tx.query('INSERT INTO pipeline_stages (id, workspace_id, pipeline_id, name, type, position) VALUES ($1,$2,$3,$4,$5,$6)', [
      newId('stg'),
      ws,
      pipelineId,
      s.name,
      s.type,
      i,
    ]);
  }
  for (const [i, s] of defaultClosingStages.entries()) {
    await tx.query('INSERT INTO closing_stages (id, workspace_id, name, status, position) VALUES ($1,$2,$3,$4,$5)', [
      newId('cls'),
      ws,
      s.name,
      s.status,
      i,
    ]);
  }
  const items = defaultChecklist.map((it) => ({ id: newId('cki', 8), ...it }));
  await tx.query(
    'INSERT INTO checklist_templates (id, workspace_id, name, items, created_at) VALUES ($1,$2,$3,$4::jsonb,$5::timestamptz)',
    [newId('ckt'), ws, 'Standard closing checklist', JSON.stringify(items), at(0)],
  );
}

export async function getWorkspace(db: Queryable, id: string): Promise<Workspace | null> {
  const { rows } = await db.query<WorkspaceRow>('SELECT * FROM workspaces WHERE id = $1', [id]);
  return rows[0] ? toWorkspace(rows[0]) : null;
}

export interface Member {
  id: string;
  name: string;
  email: string;
  created_at: string;
}

/** A row of members. */
type MemberRow = Omit<Member, 'created_at'> & { created_at: Date | string };

export const toMember = (r: MemberRow): Member => ({ id: r.id, name: r.name, email: r.email, created_at: iso(r.created_at) });

export async function createMember(db: Db, workspaceId: string, input: { name: string; email: string }, now: Date): Promise<Member> {
  if (!(await getWorkspace(db, workspaceId))) throw notFound('workspace', 'workspace_id');
  const { rows } = await db.query<MemberRow>(
    'INSERT INTO members (id, workspace_id, name, email, created_at) VALUES ($1,$2,$3,$4,$5::timestamptz) RETURNING *',
    [newCollectionId('members'), workspaceId, input.name, input.email, now.toISOString()],
  );
  return toMember(rows[0]);
}

export async function createMailbox(
  db: Queryable,
  workspaceId: string,
  ownerMemberId: string,
  address: string,
  isPrivate: boolean,
): Promise<string> {
  const id = newId('mbx');
  await db.query('INSERT INTO mailboxes (id, workspace_id, owner_member_id, address, is_private) VALUES ($1,$2,$3,$4,$5)', [
    id,
    workspaceId,
    ownerMemberId,
    address,
    isPrivate,
  ]);
  return id;
}

export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

export interface CreatedKey {
  id: string;
  key_prefix: string;
  scopes: string[];
  secret: string;
}

export async function createApiKey(
  db: Db,
  workspaceId: string,
  input: { scopes: string[]; name?: string | null; expires_at?: string | null; member_id?: string | null },
  now: Date,
): Promise<CreatedKey> {
  if (!(await getWorkspace(db, workspaceId))) throw notFound('workspace', 'workspace_id');
  if (input.member_id) {
    const m = await db.query('SELECT 1 FROM members WHERE id = $1 AND workspace_id = $2', [input.member_id, workspaceId]);
    if (!m.rows.length) throw badRequest('No such member in this workspace', 'member_id');
  }
  // Read as shared/timestamps.ts reads it: Date.parse takes no leap second ("…T23:59:60Z" was a 500).
  const expires = input.expires_at ? storedInstant(input.expires_at) : null;
  if (input.expires_at && !expires) throw invalidField('expires_at', storedProblem('date-time', input.expires_at)!);
  if (expires && Date.parse(expires) <= now.getTime()) {
    throw invalidField('expires_at', 'must be in the future');
  }
  const scopes = [...new Set(input.scopes.map((s) => s.toLowerCase()))];
  const secret = `sk_live_${randomBytes(24).toString('hex')}`;
  const key_prefix = secret.slice(0, 16);
  const id = newId('key');
  await db.query(
    `INSERT INTO api_keys (id, workspace_id, name, key_prefix, secret_hash, scopes, created_by_member_id, expires_at, created_at)
     VALUES ($1,$2,$3,$4,$5,$6::jsonb,$7,$8::timestamptz,$9::timestamptz)`,
    [
      id,
      workspaceId,
      input.name ?? null,
      key_prefix,
      hashSecret(secret),
      JSON.stringify(scopes),
      input.member_id ?? null,
      expires,
      now.toISOString(),
    ],
  );
  return { id, key_prefix, scopes, secret };
}

export async function revokeApiKey(db: Db, keyId: string, now: Date): Promise<{ id: string; revoked: boolean }> {
  const { rows } = await db.query('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2::timestamptz) WHERE id = $1 RETURNING id', [
    keyId,
    now.toISOString(),
  ]);
  if (!rows.length) throw notFound('api key', 'key_id');
  return { id: keyId, revoked: true };
}

export interface Caller {
  workspace: Workspace;
  key: { id: string; key_prefix: string; scopes: string[]; created_by_member_id: string | null };
}

/** A request's authentication: the key's secret hash, the rate-limit window and the time. */
export interface AuthParams {
  hash: string;
  windowStart: number;
  now: Date;
}

export const authParams = (secret: string, now: Date): AuthParams => ({
  hash: hashSecret(secret),
  windowStart: Math.floor(now.getTime() / 60000) * 60,
  now,
});

/** The key and its workspace, as `k` (FROM api_keys k JOIN workspaces w) exposes them. */
const KEY_COLUMNS = `k.id AS key_id, k.key_prefix, k.scopes, k.created_by_member_id, k.expires_at, k.revoked_at,
              w.id, w.name, w.slug, w.plan, w.rate_limit_per_minute, w.created_at`;
/** A key of `k` that may be used at `now` (a timestamptz expression): counted, and admitted within its limit. */
const usable = (now: string) => `k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > ${now})`;
/** Counts requests in the rate-limit windows of the rows `select` gives (workspace_id, window_start, requests). */
const countRequests = (select: string, returning: string) => `INSERT INTO rate_limit_windows (workspace_id, window_start, count)
       ${select}
       ON CONFLICT (workspace_id, window_start) DO UPDATE SET count = rate_limit_windows.count + excluded.count
       RETURNING ${returning}`;
/** Admitted: key `k` is workspace `ws`'s, usable at `now`, within its limit after `count`, and holds one of `granting`. */
const admits = (ws: string, now: string, count: string, granting: string) =>
  `k.id = ${ws} AND ${usable(now)} AND ${count} <= k.rate_limit_per_minute AND k.scopes ?| ${granting}::text[]`;

/**
 * The authentication as two CTEs of a statement, `k` (the key and its workspace) and `hit` (the
 * request counted in the workspace's rate-limit window, for a usable key), with the parameters
 * of the hash, the window and the time as given.
 */
function authenticationCtes(hash: string, windowStart: string, now: string): string {
  return `k AS (
       SELECT ${KEY_COLUMNS}
         FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id WHERE k.secret_hash = ${hash}
     ), hit AS (
       ${countRequests(`SELECT k.id, ${windowStart}, 1 FROM k WHERE ${usable(`${now}::timestamptz`)}`, 'count')}
     )`;
}

/** The authentication columns (AUTH_COLUMNS) with the request's count in its window from `count`. */
const authColumns = (count: string) => `k.key_id AS auth_key_id, k.key_prefix AS auth_key_prefix, k.scopes AS auth_scopes,
  k.created_by_member_id AS auth_member_id, k.expires_at AS auth_expires_at, k.revoked_at AS auth_revoked_at,
  k.id AS auth_ws_id, k.name AS auth_ws_name, k.slug AS auth_ws_slug, k.plan AS auth_ws_plan,
  k.rate_limit_per_minute AS auth_ws_limit, k.created_at AS auth_ws_created_at, ${count} AS auth_rl_count`;

/**
 * The authentication columns of a statement with those CTEs, which admitted() reads: each named
 * `auth_…`, so a statement may return them beside rows of its own (a contact's `id`, `name`,
 * `created_at`) without either hiding the other.
 */
export const AUTH_COLUMNS = authColumns('(SELECT count FROM hit)');

/** The caller and rate-limit state from an authentication row (AUTH_COLUMNS); every failure is the same 401 type. */
/**
 * The authentication columns (AUTH_COLUMNS) of a row: the key's, null when no key has the secret
 * (the statements' LEFT JOIN), and its workspace's.
 */
export interface AuthRow {
  auth_key_id: string | null;
  auth_key_prefix: string;
  auth_scopes: string[];
  auth_member_id: string | null;
  auth_expires_at: Date | string | null;
  auth_revoked_at: Date | string | null;
  auth_ws_id: string;
  auth_ws_name: string;
  auth_ws_slug: string;
  auth_ws_plan: string;
  auth_ws_limit: number | string;
  auth_ws_created_at: Date | string;
  auth_rl_count: number | string | null;
}

export function admitted(r: AuthRow | undefined, a: AuthParams): { caller: Caller; rateLimit: RateLimitState } {
  if (!r || r.auth_key_id == null) throw new ApiError(401, 'authentication_error', 'Invalid API key');
  if (r.auth_revoked_at) throw new ApiError(401, 'authentication_error', 'This API key has been revoked');
  const expires = isoOrNull(r.auth_expires_at);
  if (expires && Date.parse(expires) <= a.now.getTime()) throw new ApiError(401, 'authentication_error', 'This API key has expired');
  const caller: Caller = {
    workspace: toWorkspace({
      id: r.auth_ws_id,
      name: r.auth_ws_name,
      slug: r.auth_ws_slug,
      plan: r.auth_ws_plan,
      rate_limit_per_minute: r.auth_ws_limit,
      created_at: r.auth_ws_created_at,
    }),
    key: { id: r.auth_key_id, key_prefix: r.auth_key_prefix, scopes: r.auth_scopes, created_by_member_id: r.auth_member_id },
  };
  return { caller, rateLimit: rateLimitState(caller.workspace.rate_limit_per_minute, Number(r.auth_rl_count), a.windowStart, a.now) };
}

/**
 * Resolves a bearer secret to its workspace and key and, for a usable key, counts the request in
 * the workspace's rate-limit window: one statement, so every request costs one round trip here.
 * Every failure is the same 401 type.
 */
export async function authenticate(db: Db, a: AuthParams): Promise<{ caller: Caller; rateLimit: RateLimitState }> {
  const { rows } = await db.query<AuthRow>(`WITH ${authenticationCtes('$1', '$2', '$3')} SELECT ${AUTH_COLUMNS} FROM k`, [
    a.hash,
    a.windowStart,
    a.now.toISOString(),
  ]);
  return admitted(rows[0], a);
}

/**
 * The usable keys (not revoked, not expired at `now`), newest first, at most `limit`: secret hash,
 * workspace and the workspace's rate limit. A server starts with them known (see buildServer), so that a key's first request
 * after a restart costs one statement, not two; nothing is trusted from the list, since the
 * route's statement checks the key again.
 */
export async function usableKeys(
  db: Db,
  now: Date,
  limit: number,
): Promise<{ hash: string; workspaceId: string; ratePerMinute: number }[]> {
  const { rows } = await db.query<{ secret_hash: string; workspace_id: string; rate_limit_per_minute: number }>(
    `SELECT k.secret_hash, k.workspace_id, w.rate_limit_per_minute FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
      WHERE ${usable('$1::timestamptz')}
      ORDER BY k.created_at DESC, k.id DESC LIMIT $2`,
    [now.toISOString(), limit],
  );
  return rows.map((r) => ({ hash: r.secret_hash, workspaceId: r.workspace_id, ratePerMinute: Number(r.rate_limit_per_minute) }));
}

/**
 * The workspaces a starting server should warm its caches for, at most `limit`: those with
 * requests in the last ten minutes' rate-limit windows, busiest first (a restart's traffic),
 * then the others holding a usable key, by their newest key.
 */
export async function workspacesToWarm(db: Queryable, now: Date, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT k.workspace_id AS id FROM api_keys k
       LEFT JOIN (SELECT workspace_id, sum(count) AS n FROM rate_limit_windows WHERE window_start >= $1 GROUP BY workspace_id) r ON r.workspace_id = k.workspace_id
      WHERE ${usable('$2::timestamptz')}
      GROUP BY k.workspace_id ORDER BY max(r.n) DESC NULLS LAST, max(k.created_at) DESC, k.workspace_id LIMIT $3`,
    [Math.floor(now.getTime() / 1000) - 600, now.toISOString(), limit],
  );
  return rows.map((r) => r.id);
}

/**
 * A request to be authenticated by the route's own statement (withAuthentication, or a write's
 * authenticationGate): `admit` takes that statement's row and throws to refuse (401, 429, 403);
 * `settle` authenticates in a statement of its own, for a route that finds it cannot carry the
 * authentication after all. `scopes` are those any one of which the route needs.
 */
export interface StatementAuth {
  readonly workspaceId: string;
  readonly params: AuthParams;
  readonly scopes: readonly string[];
  /**
   * A write of a busy workspace (app/auth.ts: a limit above 600 a minute, another request under way)
   * that was not counted apart: a creation waits in its workspace's lane (docs/store.md, "A busy
   * workspace's creations in one statement").
   */
  readonly busy?: boolean;
  /** `row`: a row of the route's statement, which selected AUTH_COLUMNS beside its own (admitted() reads them). */
  admit(row: object | undefined): void;
  settle(): Promise<void>;
}

/**
 * The CTEs of a statement that authenticates its own request (docs/store.md, "Authentication
 * inside the route's statement"): `k` and `hit` as authenticate() runs them, and `ok`, a row only
 * when the key is workspace `wsP`'s, not revoked or expired, within the rate limit and holding one
 * of `scopes`. A write's first data-modifying CTE must require `EXISTS (SELECT 1 FROM ok)`, and the
 * statement must select AUTH_COLUMNS (from `k`) for admitted() to read; parameters go through `q`.
 */
export function authenticationGate(q: Params, wsP: string, a: AuthParams, scopes: readonly string[]): string {
  const [hash, windowStart, now, granting] = [a.hash, a.windowStart, a.now.toISOString(), [...scopes]].map((v) => q.p(v));
  return `${authenticationCtes(hash, windowStart, now)}, ok AS (
       SELECT 1 FROM k WHERE ${admits(wsP, `${now}::timestamptz`, '(SELECT count FROM hit)', granting)}
     )`;
}

/**
 * A read whose statement carries the request's authentication, so the request costs one round
 * trip instead of two. `sql` must read workspace `$1` and return at least one row when admitted;
 * each result row holds the authentication columns and, only when `ok` has its row, a row of the
 * statement (not even computed otherwise: the condition is a one-time filter; refused, the result
 * is one row of the authentication columns). A statement of several rows names the column to
 * order them by (`orderBy`): the order of a subquery's rows is not kept by the query around it.
 */
export function withAuthentication(
  sql: string,
  params: unknown[],
  auth: Pick<StatementAuth, 'params' | 'scopes'>,
  orderBy?: string,
): { sql: string; params: unknown[] } {
  const q = new Params();
  q.values.push(...params); // the statement's own parameters keep their numbers
  const gate = authenticationGate(q, '$1', auth.params, auth.scopes);
  return {
    sql: `WITH ${gate}
    SELECT ${AUTH_COLUMNS}, l.* FROM k LEFT JOIN LATERAL (SELECT * FROM (${sql}) l WHERE EXISTS (SELECT 1 FROM ok) OFFSET 0) l ON true${orderBy ? ` ORDER BY l.${orderBy}` : ''}`,
    params: q.values,
  };
}

/**
 * The CTEs of a statement that authenticates several requests (db/batch.ts): `t` (each request's
 * key hash, workspace, window and time, numbered `ord` in their order: the parameters $1–$4 of
 * batchAuthParams), `k` (each key found, by `ord`), `u` (each usable key's request with its place
 * among its workspace's requests in that window, in their order, and how many they are) and `hit`
 * (each workspace's window counting all of them at once). A request's count is the window's count
 * before the statement plus its place (BATCH_COUNT), as if each had been counted alone in that
 * order, so several requests of one workspace may share a statement. The windows are counted in
 * the order of the workspaces' ids, so two batches (of two processes) lock them in one order and
 * never deadlock.
 *
 * Each array reaches unnest through a sub-select, so no plan knows how many requests a batch holds
 * (the planner takes 10 whatever the batch). A plan that knew would look cheaper for a small batch
 * than the prepared statement's generic plan, and PostgreSQL would then plan the statement again
 * at each execution rather than reuse it: 2–7 ms of planning a batch (docs/store.md, "Batches and the
 * fan-out").
 */
export const BATCH_AUTH_CTES = `t AS (
       SELECT * FROM unnest((SELECT $1::text[]), (SELECT $2::text[]), (SELECT $3::bigint[]), (SELECT $4::timestamptz[])) WITH ORDINALITY AS t(hash, ws, window_start, now, ord)
     ), k AS (
       SELECT t.ord, ${KEY_COLUMNS}
         FROM t JOIN api_keys k ON k.secret_hash = t.hash JOIN workspaces w ON w.id = k.workspace_id
     ), u AS (
       SELECT k.ord, k.id AS ws, t.window_start,
              row_number() OVER (PARTITION BY k.id, t.window_start ORDER BY k.ord) AS place,
              count(*) OVER (PARTITION BY k.id, t.window_start) AS n
         FROM k JOIN t ON t.ord = k.ord WHERE ${usable('t.now')}
     ), hit AS (
       ${countRequests('SELECT ws, window_start, max(n) FROM u GROUP BY ws, window_start ORDER BY ws, window_start', 'workspace_id, window_start, count')}
     )`;
/** Each request of BATCH_AUTH_CTES with its key, place and window: `t LEFT JOIN k … LEFT JOIN u … LEFT JOIN hit h …`. */
export const BATCH_AUTH_FROM =
  't LEFT JOIN k ON k.ord = t.ord LEFT JOIN u ON u.ord = t.ord LEFT JOIN hit h ON h.workspace_id = u.ws AND h.window_start = u.window_start';
/** A request's count in its window, of a row of BATCH_AUTH_FROM: the window's count before the statement plus the request's place. */
const BATCH_COUNT = '(h.count - u.n + u.place)';
/** The authentication columns admitted() reads, of a row of BATCH_AUTH_FROM. */
export const BATCH_AUTH_COLUMNS = authColumns(BATCH_COUNT);
/** True for a request of BATCH_AUTH_FROM that is admitted: its key is usable, its workspace's, within the limit, and holds one of the scopes ($5). */
export const BATCH_ADMITS = admits('t.ws', 't.now', BATCH_COUNT, '$5');

/** The parameters $1–$5 of a statement with BATCH_AUTH_CTES: the requests' authentication and the scopes any one of which they need. */
export function batchAuthParams(auths: readonly Pick<StatementAuth, 'workspaceId' | 'params'>[], scopes: readonly string[]): unknown[] {
  return [
    auths.map((a) => a.params.hash),
    auths.map((a) => a.workspaceId),
    auths.map((a) => a.params.windowStart),
    auths.map((a) => a.params.now.toISOString()),
    [...scopes],
  ];
}

/**
 * withAuthentication for several requests in one statement (db/batch.ts): one row per request, in
 * their order, each with the authentication columns of its own key and, only when that key is
 * admitted, the row of `sql` for its workspace. `sql` names its workspace `k.id` and returns one row;
 * every request needs one of `scopes`. Requests may share a workspace (each is counted in its
 * place: BATCH_AUTH_CTES). `perRequest` are arrays of one value per request, parameters $6, $7…
 * of the statement, which `sql` reads as `($6::type[])[t.ord]` (its request's); it reads no other.
 */
export function withAuthenticationBatch(
  sql: string,
  auths: readonly Pick<StatementAuth, 'workspaceId' | 'params'>[],
  scopes: readonly string[],
  perRequest: readonly unknown[][] = [],
): { sql: string; params: unknown[] } {
  return {
    sql: `WITH ${BATCH_AUTH_CTES}
    SELECT t.ord, ${BATCH_AUTH_COLUMNS}, l.*
      FROM ${BATCH_AUTH_FROM}
      LEFT JOIN LATERAL (SELECT * FROM (${sql}) l WHERE ${BATCH_ADMITS} OFFSET 0) l ON true
     ORDER BY t.ord`,
    params: [...batchAuthParams(auths, scopes), ...perRequest],
  };
}

/** The number of withAuthenticationBatch's first per-request parameter: the five of batchAuthParams come first. */
export const BATCH_PER_REQUEST = 6;
