import type { Db, Queryable } from '../../db/db.js';
import { iso, isoOrNull } from '../../db/db.js';
import { badRequest, invalidField, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { keysetPage, Params, timeConditions, type Page, type TimeFilters } from '../../db/sql.js';
import { DISABLE_AFTER_FAILURES, MAX_RETRIES, retryDelayMs } from './backoff.js';
import { orderEventData } from './shape.js';
import { codeWordKey, newSigningSecret } from './signing.js';
import { microsecondBound } from '../../shared/timestamps.js';

export type EndpointStatus = 'unverified' | 'verified' | 'disabled';

export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string | null;
  event_types: string[];
  status: EndpointStatus;
  /** "secret" (a whsec_ secret) or "code_word" (SHA-256 of an older endpoint's code word). */
  signing_key_type: 'secret' | 'code_word';
  verified_at: string | null;
  disabled_at: string | null;
  disabled_reason: string | null;
  consecutive_failures: number;
  created_at: string;
  updated_at: string;
}

/** A row of webhook_endpoints. */
interface EndpointRow {
  id: string;
  workspace_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  key_kind: WebhookEndpoint['signing_key_type'];
  signing_key: string;
  verified_at: Date | string | null;
  disabled_at: Date | string | null;
  disabled_reason: string | null;
  consecutive_failures: number | string;
  created_at: Date | string;
  updated_at: Date | string;
}

const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  url: r.url,
  description: r.description ?? null,
  event_types: r.event_types,
  status: r.disabled_at ? 'disabled' : r.verified_at ? 'verified' : 'unverified',
  signing_key_type: r.key_kind,
  verified_at: isoOrNull(r.verified_at),
  disabled_at: isoOrNull(r.disabled_at),
  disabled_reason: r.disabled_reason ?? null,
  consecutive_failures: Number(r.consecutive_failures),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

export interface EndpointInput {
  url: string;
  event_types: string[];
  description?: string | null;
}

function normaliseTypes(types: string[]): string[] {
  const set = [...new Set(types.map((t) => t.trim()))];
  if (set.some((t) => t === '')) throw invalidField('event_types', 'must not contain an empty or blank event type');
  return set.includes('*') ? ['*'] : set;
}

/** Creates an unverified endpoint. With a code word, the key is its SHA-256 and no secret is returned. */
export async function createEndpoint(
  db: Queryable,
  ws: string,
  input: EndpointInput & { code_word?: string; verified?: boolean },
  now: Date,
): Promise<{ endpoint: WebhookEndpoint; secret: string | null }> {
  const secret = input.code_word === undefined ? newSigningSecret() : null;
  const key = secret ?? codeWordKey(input.code_word!);
  const { rows } = await db.query<EndpointRow>(
    `INSERT INTO webhook_endpoints (id, workspace_id, url, description, event_types, signing_key, key_kind, verified_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8::timestamptz, $9::timestamptz, $9::timestamptz) RETURNING *`,
    [
      newId('we'),
      ws,
      input.url,
      input.description ?? null,
      JSON.stringify(normaliseTypes(input.event_types)),
      key,
      secret ? 'secret' : 'code_word',
      input.verified ? now.toISOString() : null,
      now.toISOString(),
    ],
  );
  return { endpoint: toEndpoint(rows[0]), secret };
}

async function endpointRow(db: Queryable, ws: string, id: string, lock = false): Promise<EndpointRow> {
  const { rows } = await db.query<EndpointRow>(
    `SELECT * FROM webhook_endpoints WHERE id = $1 AND workspace_id = $2${lock ? ' FOR UPDATE' : ''}`,
    [id, ws],
  );
  if (!rows[0]) throw notFound('webhook endpoint', 'webhook_id');
  return rows[0];
}

export async function getEndpoint(db: Queryable, ws: string, id: string): Promise<WebhookEndpoint> {
  return toEndpoint(await endpointRow(db, ws, id));
}

/** The signing material, for the worker and the verify call only; never returned by the API. */
export async function endpointKey(db: Queryable, ws: string, id: string): Promise<{ endpoint: WebhookEndpoint; url: string; key: string }> {
  const r = await endpointRow(db, ws, id);
  return { endpoint: toEndpoint(r), url: r.url, key: r.signing_key };
}

export async function listEndpoints(db: Queryable, ws: string, opts: { limit: number; cursor?: string }): Promise<Page<WebhookEndpoint>> {
  const q = new Params();
  const where = [`w.workspace_id = ${q.p(ws)}`];
  return keysetPage(db, { from: 'webhook_endpoints w', alias: 'w', q, where, limit: opts.limit, cursor: opts.cursor }, toEndpoint);
}

/** Pending deliveries of an endpoint that may no longer be sent end as failed, so replay can bring them back. */
async function failPending(tx: Queryable, endpointId: string, reason: string, now: Date): Promise<void> {
  await tx.query(
    `UPDATE webhook_deliveries SET status = 'failed', last_error = $2, next_attempt_at = NULL, completed_at = $3::timestamptz, updated_at = $3::timestamptz
     WHERE endpoint_id = $1 AND status = 'pending'`,
    [endpointId, reason, now.toISOString()],
  );
}

export async function updateEndpoint(db: Db, ws: string, id: string, patch: Partial<EndpointInput>, now: Date): Promise<WebhookEndpoint> {
  return db.transaction(async (tx) => {
    const before = await endpointRow(tx, ws, id, true);
    const urlChanged = patch.url !== undefined && patch.url !== before.url;
    const { rows } = await tx.query<EndpointRow>(
      `UPDATE webhook_endpoints SET url = $3, description = $4, event_types = $5::jsonb, updated_at = $6::timestamptz,
         verified_at = CASE WHEN $7::boolean THEN NULL ELSE verified_at END
       WHERE id = $1 AND workspace_id = $2 RETURNING *`,
      [
        id,
        ws,
        patch.url ?? before.url,
        patch.description === undefined ? before.description : patch.description,
        JSON.stringify(patch.event_types ? normaliseTypes(patch.event_types) : before.event_types),
        now.toISOString(),
        urlChanged,
      ],
    );
    // A new address is unverified: nothing queued for the old one may go there.
    if (urlChanged) await failPending(tx, id, 'address changed before delivery', now);
    return toEndpoint(rows[0]);
  });
}

export async function deleteEndpoint(db: Queryable, ws: string, id: string): Promise<{ id: string; deleted: true }> {
  const { rows } = await db.query('DELETE FROM webhook_endpoints WHERE id = $1 AND workspace_id = $2 RETURNING id', [id, ws]);
  if (!rows[0]) throw notFound('webhook endpoint', 'webhook_id');
  return { id, deleted: true };
}

export async function rotateSecret(
  db: Queryable,
  ws: string,
  id: string,
  now: Date,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const secret = newSigningSecret();
  const { rows } = await db.query<EndpointRow>(
    `UPDATE webhook_endpoints SET signing_key = $3, key_kind = 'secret', updated_at = $4::timestamptz WHERE id = $1 AND workspace_id = $2 RETURNING *`,
    [id, ws, secret, now.toISOString()],
  );
  if (!rows[0]) throw notFound('webhook endpoint', 'webhook_id');
  return { endpoint: toEndpoint(rows[0]), secret };
}

export async function enableEndpoint(db: Queryable, ws: string, id: string, now: Date): Promise<WebhookEndpoint> {
  const { rows } = await db.query<EndpointRow>(
    `UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL, consecutive_failures = 0, updated_at = $3::timestamptz
     WHERE id = $1 AND workspace_id = $2 RETURNING *`,
    [id, ws, now.toISOString()],
  );
  if (!rows[0]) throw notFound('webhook endpoint', 'webhook_id');
  return toEndpoint(rows[0]);
}

export async function markVerified(db: Queryable, id: string, url: string, now: Date): Promise<void> {
  // Only if the address is still the one that answered the challenge.
  await db.query('UPDATE webhook_endpoints SET verified_at = $3::timestamptz, updated_at = $3::timestamptz WHERE id = $1 AND url = $2', [
    id,
    url,
    now.toISOString(),
  ]);
}

// ---------------------------------------------------------------------------------------------
// Events

export interface EventRecord {
  id: string;
  type: string;
  created_at: string;
  data: unknown;
  changed_fields?: string[];
}

/** A row of events (the outbox). */
interface EventRow {
  id: string;
  workspace_id: string;
  type: string;
  data: unknown;
  changed_fields: string[] | null;
  created_at: Date | string;
}

const toEvent = (r: EventRow): EventRecord => ({
  id: r.id,
  type: r.type,
  created_at: iso(r.created_at),
  data: orderEventData(r.type, r.data),
  ...(r.changed_fields ? { changed_fields: r.changed_fields } : {}),
});

/** Events have no updated_at: their time filters are the creation bounds of timeConditions. */
export interface EventFilters extends Pick<TimeFilters, 'created_after' | 'created_before'> {
  limit: number;
  cursor?: string;
  type?: string;
}

export async function listEvents(db: Queryable, ws: string, f: EventFilters): Promise<Page<EventRecord>> {
  const q = new Params();
  const where = [`e.workspace_id = ${q.p(ws)}`];
  if (f.type) {
    const types = f.type
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const exact = types.filter((t) => !t.endsWith('.*'));
    const prefixes = types.filter((t) => t.endsWith('.*')).map((t) => t.slice(0, -1));
    const ors = [];
    if (exact.length) ors.push(`e.type IN ${q.list(exact)}`);
    for (const p of prefixes) ors.push(`starts_with(e.type, ${q.p(p)})`);
    if (ors.length) where.push(`(${ors.join(' OR ')})`);
  }
  where.push(...timeConditions(q, 'e', f));
  return keysetPage(
    db,
    {
      from: 'events e',
      alias: 'e',
      select: 'SELECT e.id, e.type, e.data, e.changed_fields, e.created_at FROM events e',
      q,
      where,
      limit: f.limit,
      cursor: f.cursor,
    },
    toEvent,
  );
}

export async function getEvent(db: Queryable, ws: string, id: string): Promise<EventRecord> {
  const { rows } = await db.query<EventRow>(
    'SELECT id, type, data, changed_fields, created_at FROM events WHERE id = $1 AND workspace_id = $2',
    [id, ws],
  );
  if (!rows[0]) throw notFound('event', 'event_id');
  return toEvent(rows[0]);
}

/**
 * The delivery body: the same bytes on every attempt; only the signature header changes. The data
 * is in the API's key order already (toEvent puts it there; the server's own verification and ping
 * events have no schema to follow).
 */
export function eventBody(e: EventRecord): string {
  return JSON.stringify({
    id: e.id,
    type: e.type,
    created_at: e.created_at,
    data: e.data,
    ...(e.changed_fields ? { changed_fields: e.changed_fields } : {}),
  });
}

// ---------------------------------------------------------------------------------------------
// Deliveries

export interface Attempt {
  attempt_number: number;
  started_at: string;
  outcome: 'succeeded' | 'failed' | 'interrupted';
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  response_excerpt: string | null;
}

export interface Delivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'sending' | 'succeeded' | 'failed';
  attempt_count: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  event_created_at: string;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  attempts: Attempt[];
}

/** A row of webhook_attempts. */
type AttemptRow = Omit<Attempt, 'started_at'> & { delivery_id: string; started_at: Date | string };

const toAttempt = (r: AttemptRow): Attempt => ({
  attempt_number: Number(r.attempt_number),
  started_at: iso(r.started_at),
  outcome: r.outcome,
  status_code: r.status_code === null ? null : Number(r.status_code),
  latency_ms: r.latency_ms === null ? null : Number(r.latency_ms),
  error: r.error ?? null,
  response_excerpt: r.response_excerpt ?? null,
});

/** A row of webhook_deliveries, with its event's creation time. */
type DeliveryRow = Omit<Delivery, 'attempts' | 'next_attempt_at' | 'event_created_at' | 'created_at' | 'updated_at' | 'completed_at'> & {
  next_attempt_at: Date | string | null;
  event_created_at: Date | string;
  created_at: Date | string;
  updated_at: Date | string;
  completed_at: Date | string | null;
};

const toDelivery = (r: DeliveryRow, attempts: Attempt[]): Delivery => ({
  id: r.id,
  endpoint_id: r.endpoint_id,
  event_id: r.event_id,
  event_type: r.event_type,
  status: r.status,
  attempt_count: Number(r.attempt_count),
  next_attempt_at: isoOrNull(r.next_attempt_at),
  last_status_code: r.last_status_code === null ? null : Number(r.last_status_code),
  last_error: r.last_error ?? null,
  event_created_at: iso(r.event_created_at),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
  completed_at: isoOrNull(r.completed_at),
  attempts,
});

/** Rows by a key, each made into its value, in their order: one pass, where a filter per key would read them all again. */
function groupBy<R, V>(rows: readonly R[], key: (r: R) => string, value: (r: R) => V): Map<string, V[]> {
  const by = new Map<string, V[]>();
  for (const r of rows) {
    const list = by.get(key(r));
    if (list) list.push(value(r));
    else by.set(key(r), [value(r)]);
  }
  return by;
}

async function withAttempts(db: Queryable, rows: DeliveryRow[]): Promise<Delivery[]> {
  if (!rows.length) return [];
  const q = new Params();
  const { rows: at } = await db.query<AttemptRow>(
    `SELECT * FROM webhook_attempts WHERE delivery_id IN ${q.list(rows.map((r) => r.id))} ORDER BY attempt_number`,
    q.values,
  );
  const by = groupBy(at, (a) => a.delivery_id, toAttempt);
  return rows.map((r) => toDelivery(r, by.get(r.id) ?? []));
}

/** A delivery's statuses, in the order it goes through them. */
export const deliveryStatuses = ['pending', 'sending', 'succeeded', 'failed'] as const;

export interface DeliveryFilters extends Pick<TimeFilters, 'created_after'> {
  limit: number;
  cursor?: string;
  status?: string;
  event_type?: string;
  event_id?: string;
}

export async function listDeliveries(db: Queryable, ws: string, endpointId: string, f: DeliveryFilters): Promise<Page<Delivery>> {
  // Several statuses, comma-separated: each must be one, as the single-valued status filters of
  // transactions and deals are.
  const statuses = f.status ? f.status.split(',').map((s) => s.trim()) : [];
  if (statuses.some((s) => !(deliveryStatuses as readonly string[]).includes(s))) {
    throw invalidField('status', `must be one of ${deliveryStatuses.join(', ')} (comma-separated for several)`);
  }
  await endpointRow(db, ws, endpointId);
  const q = new Params();
  const where = [`d.endpoint_id = ${q.p(endpointId)}`];
  if (statuses.length) where.push(`d.status IN ${q.list(statuses)}`);
  if (f.event_type) where.push(`d.event_type = ${q.p(f.event_type)}`);
  if (f.event_id) where.push(`d.event_id = ${q.p(f.event_id)}`);
  where.push(...timeConditions(q, 'd', f));
  const page = await keysetPage(
    db,
    { from: 'webhook_deliveries d', alias: 'd', q, where, limit: f.limit, cursor: f.cursor },
    (r: DeliveryRow) => r,
  );
  return { ...page, data: await withAttempts(db, page.data) };
}

export async function getDelivery(db: Queryable, ws: string, endpointId: string, id: string): Promise<Delivery> {
  const { rows } = await db.query<DeliveryRow>(
    'SELECT * FROM webhook_deliveries WHERE id = $1 AND endpoint_id = $2 AND workspace_id = $3',
    [id, endpointId, ws],
  );
  if (!rows[0]) throw notFound('webhook delivery', 'delivery_id');
  return (await withAttempts(db, rows))[0];
}

/** Queues one event for one endpoint, outside fan-out (ping). */
export async function enqueueDirect(db: Queryable, ws: string, endpointId: string, e: EventRecord, now: Date): Promise<string> {
  const id = newId('dlv');
  await db.query(
    `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, payload, status, next_attempt_at, event_created_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7::timestamptz, $8::timestamptz, $7::timestamptz, $7::timestamptz)`,
    [id, ws, endpointId, e.id, e.type, eventBody(e), now.toISOString(), e.created_at],
  );
  return id;
}

/** A one-shot delivery that is sent at once and never retried (verification); logged like any other. */
export async function recordOneShot(
  db: Db,
  ws: string,
  endpointId: string,
  e: EventRecord,
  startedAt: Date,
  result: { statusCode: number | null; ok: boolean; error: string | null; body: string; latencyMs: number },
  id = newId('dlv'),
): Promise<string> {
  await db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, payload, status, attempt_count, failed_count,
         last_status_code, last_error, event_created_at, created_at, updated_at, completed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 1, $8, $9, $10, $11::timestamptz, $11::timestamptz, $11::timestamptz, $11::timestamptz)`,
      [
        id,
        ws,
        endpointId,
        e.id,
        e.type,
        eventBody(e),
        result.ok ? 'succeeded' : 'failed',
        result.ok ? 0 : 1,
        result.statusCode,
        result.error,
        startedAt.toISOString(),
      ],
    );
    await insertAttempt(tx, id, 1, startedAt, result.ok ? 'succeeded' : 'failed', result);
  });
  return id;
}

/**
 * What an attempt's log keeps of the receiver's answer: its first 1,000 characters, with any NUL
 * made U+FFFD, since PostgreSQL's text cannot hold one (an outcome that could not be written would
 * leave its lease to run out, and the delivery would be sent again and again).
 */
const excerpt = (body: string): string | null => (body ? body.slice(0, 1000).replaceAll('\0', '\uFFFD') : null);

async function insertAttempt(
  tx: Queryable,
  deliveryId: string,
  n: number,
  startedAt: Date,
  outcome: Attempt['outcome'],
  r: { statusCode: number | null; error: string | null; body: string; latencyMs: number | null },
): Promise<void> {
  await tx.query(
    `INSERT INTO webhook_attempts (id, delivery_id, attempt_number, started_at, latency_ms, status_code, outcome, error, response_excerpt)
     VALUES ($1, $2, $3, $4::timestamptz, $5, $6, $7, $8, $9) ON CONFLICT (delivery_id, attempt_number) DO NOTHING`,
    [newId('att'), deliveryId, n, startedAt.toISOString(), r.latencyMs, r.statusCode, outcome, r.error, excerpt(r.body)],
  );
}

const subscribes = (types: string[], type: string) => types.includes('*') || types.includes(type);

/** What keeps committed events from the fan-out (see heldBack). */
export interface HeldBack {
  /** The first event waiting (the next the fan-out would pass). */
  eventId: string;
  /**
   * The oldest write transaction on the PostgreSQL server, which the events wait for: every
   * database counts, since the horizon is the server's. Absent when this role cannot see it in
   * pg_stat_activity (another role's session, without pg_read_all_stats).
   */
  oldest?: { pid: number; database: string | null; user: string | null; state: string | null; openSeconds: number | null };
}

/**
 * Whether committed events wait past the outbox cursor for an older transaction to end (the
 * fan-out passes only events below the horizon), and which transaction that is. Undefined when
 * none wait. PGlite has one connection: no transaction can stay open beside another.
 */
export async function heldBack(db: Db): Promise<HeldBack | undefined> {
  if (db.kind !== 'postgres') return undefined;
  const { rows } = await db.query<{
    id: string;
    pid: number | null;
    datname: string | null;
    usename: string | null;
    state: string | null;
    open: number | null;
  }>(
    `SELECT w.id, a.pid, a.datname, a.usename, a.state, extract(epoch FROM clock_timestamp() - a.xact_start)::float8 AS open
       FROM (SELECT e.id FROM outbox_cursor c, LATERAL (
               SELECT id, txid FROM events e WHERE (e.txid, e.id) > (c.txid, c.event_id) ORDER BY e.txid, e.id LIMIT 1) e
              WHERE c.name = 'webhooks' AND e.txid >= pg_snapshot_xmin(pg_current_snapshot())) w
       LEFT JOIN LATERAL (SELECT pid, datname, usename, state, xact_start FROM pg_stat_activity
                           WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid()
                           ORDER BY age(backend_xid) DESC LIMIT 1) a ON true`,
  );
  const r = rows[0];
  if (!r) return undefined;
  return {
    eventId: r.id,
    ...(r.pid !== null
      ? {
          oldest: {
            pid: Number(r.pid),
            database: r.datname,
            user: r.usename,
            state: r.state,
            openSeconds: r.open === null ? null : Number(r.open),
          },
        }
      : {}),
  };
}

/** The webhook outbox's backlog, across every workspace (GET /metrics). */
export interface OutboxBacklog {
  /** Events written and not yet fanned out (at most BACKLOG_COUNTED), and the age of the oldest in seconds (0 when none). */
  events: number;
  oldestEventSeconds: number;
  /** Deliveries waiting for an attempt (due or retrying later), and those being sent now. */
  pending: number;
  sending: number;
  /** How long the oldest delivery that is due has waited past its time, in seconds (0 when none). */
  oldestDueSeconds: number;
}

/** Events past the cursor are counted up to this many: a look at a huge backlog stays cheap, and says "at least". */
export const BACKLOG_COUNTED = 100_000;

/** The outbox's backlog as its statement reads it: counts, and the oldest times (null when none). */
interface BacklogRow {
  events: number;
  oldest_event: Date | string | null;
  pending: number;
  sending: number;
  oldest_due: Date | string | null;
}

export async function outboxBacklog(db: Queryable, now: Date): Promise<OutboxBacklog> {
  const { rows } = await db.query<BacklogRow>(
    `SELECT (SELECT count(*) FROM (SELECT 1 FROM events e WHERE (e.txid, e.id) > (c.txid, c.event_id) LIMIT ${BACKLOG_COUNTED}) past)::int AS events,
            (SELECT min(e.created_at) FROM events e WHERE (e.txid, e.id) > (c.txid, c.event_id)) AS oldest_event,
            (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')::int AS pending,
            (SELECT count(*) FROM webhook_deliveries WHERE status = 'sending')::int AS sending,
            (SELECT min(next_attempt_at) FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $1::timestamptz) AS oldest_due
       FROM outbox_cursor c WHERE c.name = 'webhooks'`,
    [now.toISOString()],
  );
  const r: Partial<BacklogRow> = rows[0] ?? {};
  const age = (t: Date | string | null | undefined) => (t ? Math.max(0, (now.getTime() - new Date(t).getTime()) / 1000) : 0);
  return {
    events: Number(r.events ?? 0),
    oldestEventSeconds: age(r.oldest_event),
    pending: Number(r.pending ?? 0),
    sending: Number(r.sending ?? 0),
    oldestDueSeconds: age(r.oldest_due),
  };
}

/**
 * Fan-out: creates one delivery per active subscribed endpoint for each event past the outbox
 * cursor, and advances the cursor in the statement that writes them: delivered once, none lost.
 *
 * Events are never updated. Each carries the id of the transaction that wrote it (`txid`, its
 * default), and the fan-out reads them in (txid, id) order, but only below the oldest transaction
 * still running (`pg_snapshot_xmin` of the statement's snapshot): an event's id and txid are
 * taken when it is inserted, so a later one can commit first, while every transaction below the
 * horizon has ended, so no event can still appear behind the cursor.
 *
 * One statement reads the cursor and the events past it (with their workspaces' endpoints) and,
 * when none of those workspaces has an active endpoint (most have none), moves the cursor past
 * them in the same statement. Otherwise a second, with no transaction held between them, moves
 * the cursor only if it is still where the read found it and writes the deliveries in the same
 * statement only if it moved. Either move is a compare and set: of two processes that read the
 * same events, one moves the cursor and writes them. `held` says events are committed past the
 * cursor but above the horizon, or another process moved the cursor first: look again shortly.
 */
export async function fanOut(
  db: Db,
  now: Date,
  batch = 500,
  checkHeld = true,
): Promise<{ done: number; held: boolean; endpoints: Set<string> }> {
  // An event's data is read (parsed, put in the API's key order, written out) only when its
  // workspace has an active endpoint: most have none, and their events are only passed over. Each
  // row carries the cursor it was read past, which the write below must still find. The batch
  // size is written into the text, not sent as a parameter: a plan that knows the LIMIT looks
  // cheaper than the generic plan of one that does not, so PostgreSQL planned the read again at
  // nearly every execution (docs/store.md, "One plan per statement"). The events past the cursor
  // come from outbox_past (migration 506), which walks events_outbox whatever the statistics said
  // when the read was planned (docs/store.md, "An outbox read by its index").
  if (!Number.isInteger(batch) || batch < 1) throw new Error(`fanOut: batch must be a whole number, 1 or more (got ${batch})`);
  // `passed` moves the cursor past a batch that has no endpoint to deliver to; every row says
  // whether it did. (A statement's data-modifying CTE runs whether or not it is read.)
  const { rows: evs } = await db.query<
    EventRow & { from_txid: string; from_id: string; txid: string; endpoints: [string, string[]][] | null; passed: boolean }
  >(
    `WITH evs AS MATERIALIZED (
       SELECT c.txid AS from_txid, c.event_id AS from_id, e.id, e.workspace_id, e.type, e.changed_fields, e.created_at, e.txid,
              w.endpoints, CASE WHEN w.endpoints IS NOT NULL THEN e.data END AS data
         FROM outbox_cursor c
         CROSS JOIN LATERAL outbox_past(c.txid, c.event_id, ${batch}) e
         LEFT JOIN LATERAL (SELECT jsonb_agg(jsonb_build_array(w.id, w.event_types) ORDER BY w.id) AS endpoints FROM webhook_endpoints w
                             WHERE w.workspace_id = e.workspace_id AND w.verified_at IS NOT NULL AND w.disabled_at IS NULL) w ON true
        WHERE c.name = 'webhooks'
     ), passed AS (
       UPDATE outbox_cursor c SET txid = l.txid, event_id = l.id
         FROM (SELECT txid, id, from_txid, from_id FROM evs ORDER BY txid DESC, id DESC LIMIT 1) l
        WHERE c.name = 'webhooks' AND c.txid = l.from_txid AND c.event_id = l.from_id
          AND NOT EXISTS (SELECT 1 FROM evs WHERE endpoints IS NOT NULL)
        RETURNING c.name
     )
     SELECT e.from_txid::text AS from_txid, e.from_id, e.id, e.workspace_id, e.type, e.changed_fields, e.created_at, e.txid::text AS txid,
            e.endpoints, e.data, EXISTS (SELECT 1 FROM passed) AS passed
       FROM evs e
      ORDER BY e.txid, e.id`,
  );
  const end = evs.at(-1);
  let moved = true;
  const endpoints = new Set<string>();
  // A batch the read moved past had nothing to deliver. One it did not has deliveries to write,
  // or its move lost to another process's: then the compare and set below loses too (held).
  if (end && !end.passed) {
    // Each event meets only its own workspace's endpoints: a batch spans up to 500 workspaces.
    // Its body goes once; each delivery names its event by position.
    const queued: Queued = { events: [], deliveries: [] };
    for (const ev of evs) {
      let n = 0;
      for (const [endpoint, types] of ev.endpoints ?? []) {
        if (!subscribes(types, ev.type)) continue;
        if (!n)
          n = queued.events.push({ id: ev.id, ws: ev.workspace_id, type: ev.type, at: iso(ev.created_at), body: eventBody(toEvent(ev)) });
        queued.deliveries.push({ id: newId('dlv'), endpoint, n });
        endpoints.add(endpoint);
      }
    }
    // Compare and set: the cursor moves from where the read found it, and the deliveries are
    // written in the same statement only if it did. Another process that moved it first wins;
    // this batch is dropped and read again from there (held: look again).
    const { rows } = await db.query<{ moved: boolean }>(
      `WITH moved AS (
         UPDATE outbox_cursor SET txid = $1::xid8, event_id = $2 WHERE name = 'webhooks' AND txid = $3::xid8 AND event_id = $4 RETURNING name
       ), ins AS (${insertQueued(5, 'EXISTS (SELECT 1 FROM moved)')})
       SELECT EXISTS (SELECT 1 FROM moved) AS moved`,
      [end.txid, end.id, end.from_txid, end.from_id, ...queuedParams(queued, now)],
    );
    moved = rows[0].moved === true;
  }
  let held = !moved;
  if (checkHeld && moved && evs.length < batch) {
    const { rows } = await db.query<{ held: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM events e, outbox_cursor c
                       WHERE c.name = 'webhooks' AND (e.txid, e.id) > (coalesce($1::xid8, c.txid), coalesce($2::text, c.event_id))) AS held`,
      end ? [end.txid, end.id] : [null, null],
    );
    held = rows[0].held === true;
  }
  return moved ? { done: evs.length, held, endpoints } : { done: 0, held, endpoints: new Set() };
}

/** Deliveries to queue: each event's body once, each delivery naming its event by position (from 1). */
interface Queued {
  events: { id: string; ws: string; type: string; at: string; body: string }[];
  deliveries: { id: string; endpoint: string; n: number }[];
}

/** The nine parameters insertQueued reads, in its order: the events', the deliveries', the time. */
const queuedParams = (q: Queued, now: Date): unknown[] => [
  q.events.map((e) => e.id),
  q.events.map((e) => e.ws),
  q.events.map((e) => e.type),
  q.events.map((e) => e.at),
  q.events.map((e) => e.body),
  q.deliveries.map((d) => d.id),
  q.deliveries.map((d) => d.endpoint),
  q.deliveries.map((d) => d.n),
  now.toISOString(),
];

/**
 * Queues deliveries, pending from now, from queuedParams at $k to $k+8, only `when` it holds; one
 * text whatever the batch (arrays, not VALUES lists), so it is prepared once. A delivery an
 * endpoint already has for the event is kept.
 */
function insertQueued(k: number, when = 'true'): string {
  const $ = (i: number) => `$${k + i}`;
  return `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, payload, status, next_attempt_at, event_created_at, created_at, updated_at)
     SELECT p.id, ev.ws, p.endpoint_id, ev.id, ev.type, ev.body, 'pending', ${$(8)}::timestamptz, ev.at, ${$(8)}::timestamptz, ${$(8)}::timestamptz
       FROM unnest(${$(5)}::text[], ${$(6)}::text[], ${$(7)}::int[]) AS p(id, endpoint_id, n)
       JOIN unnest(${$(0)}::text[], ${$(1)}::text[], ${$(2)}::text[], ${$(3)}::timestamptz[], ${$(4)}::text[]) WITH ORDINALITY AS ev(id, ws, type, at, body, n) ON ev.n = p.n
      WHERE ${when}
     ON CONFLICT (endpoint_id, event_id) DO NOTHING`;
}

export interface ClaimedDelivery {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  attempt: number;
  url: string;
  key: string;
}

/** Attempts one server process has in flight at once, by default (WebhookOptions.concurrency). */
export const DEFAULT_CONCURRENCY = 128;

/**
 * Attempts one endpoint may have in flight at once, across every server process. An attempt holds
 * its slot from its claim until its outcome is recorded (the HTTP exchange, then the wait for the
 * batch that records it), so one endpoint gets at most this many deliveries per such round trip:
 * 8 slots at the 40 ms a round trip took on two busy cores were 200 deliveries a second, and 16 at
 * the 80–90 ms it takes in a fresh server's first seconds about 190, so an endpoint sent 200 a
 * second fell behind (docs/store.md, "The webhook outbox and claim"). A quarter of DEFAULT_CONCURRENCY (32): a
 * hanging receiver holds a quarter of a process's slots.
 */
export const DEFAULT_PER_ENDPOINT = DEFAULT_CONCURRENCY / 4;

/**
 * Claims due deliveries for one attempt each. SKIP LOCKED plus the status change to "sending" in
 * the same statement means two servers never claim the same attempt; the lease lets another
 * server take over the row only if this one dies mid-attempt.
 *
 * Fair to every endpoint: each endpoint with due deliveries offers its oldest few, and an endpoint
 * never has more than `perEndpoint` attempts in flight (counted in the database, so across every
 * server process). A slow receiver's backlog therefore cannot take the slots the others need.
 *
 * The endpoints with something queued are found by skipping through the per-endpoint index (one
 * probe per endpoint, a recursive CTE), not by reading every queued delivery: the claim costs the
 * same whether 20 or 20,000 deliveries wait, so a queue that falls behind does not slow the claim
 * that would catch it up (docs/store.md, "The webhook outbox and claim").
 */
export async function claimDue(
  db: Db,
  now: Date,
  limit: number,
  leaseMs: number,
  perEndpoint = DEFAULT_PER_ENDPOINT,
): Promise<ClaimedDelivery[]> {
  const { rows } = await db.query<ClaimedRow>(`WITH RECURSIVE ${claimCtes('$1', '$2', '$4')} ${CLAIM_UPDATE('$1', '$3')}`, [
    now.toISOString(),
    limit,
    new Date(now.getTime() + leaseMs).toISOString(),
    perEndpoint,
  ]);
  return rows.map(toClaimed);
}

/** What a claim takes from the queue, for the claim alone or after recording outcomes (recordSuccesses). */
export interface ClaimRequest {
  limit: number;
  leaseMs: number;
  perEndpoint?: number;
}

/**
 * The claim's CTEs (`eps`, `open`, `due`), for a `WITH RECURSIVE` list: the endpoints with
 * something queued, each one's free share, each one's oldest due deliveries. `freed`, when the
 * same statement settles attempts first, names a CTE of their endpoint ids: the statement's
 * snapshot still counts them as sending, so their slots are given back here. Each endpoint's
 * attempts in flight are counted once, and no further than its share plus what it gets back
 * (`slots`): past that, nothing is free either way.
 */
function claimCtes(now: string, limit: string, perEndpoint: string, freed?: string): string {
  return `eps(endpoint_id) AS (
       (SELECT d.endpoint_id FROM webhook_deliveries d WHERE d.status = 'pending' ORDER BY d.endpoint_id, d.next_attempt_at, d.id LIMIT 1)
       UNION ALL
       SELECT (SELECT d.endpoint_id FROM webhook_deliveries d WHERE d.status = 'pending' AND d.endpoint_id > eps.endpoint_id
                ORDER BY d.endpoint_id, d.next_attempt_at, d.id LIMIT 1)
       FROM eps WHERE eps.endpoint_id IS NOT NULL
     ), open AS MATERIALIZED (
       SELECT o.endpoint_id, o.slots - (SELECT count(*) FROM (
           SELECT 1 FROM webhook_deliveries s WHERE s.endpoint_id = o.endpoint_id AND s.status = 'sending' LIMIT o.slots) s)::int AS free
       FROM (SELECT eps.endpoint_id, ${perEndpoint}::int ${freed ? `+ (SELECT count(*) FROM ${freed} f WHERE f.endpoint_id = eps.endpoint_id)::int` : ''} AS slots
               FROM eps JOIN webhook_endpoints e ON e.id = eps.endpoint_id
              WHERE e.verified_at IS NOT NULL AND e.disabled_at IS NULL) o
     ), due AS (
       SELECT c.id, c.next_attempt_at FROM open CROSS JOIN LATERAL (
         SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
         WHERE d.endpoint_id = open.endpoint_id AND d.status = 'pending' AND d.next_attempt_at <= ${now}::timestamptz
         ORDER BY d.next_attempt_at, d.id LIMIT greatest(open.free, 0) FOR UPDATE OF d SKIP LOCKED
       ) c
       WHERE open.free > 0
       ORDER BY c.next_attempt_at, c.id LIMIT ${limit}
     )`;
}

/** The claim's statement body after its CTEs: the due deliveries move to sending, leased. */
const CLAIM_UPDATE = (now: string, leaseUntil: string) =>
  `UPDATE webhook_deliveries d SET status = 'sending', attempt_count = d.attempt_count + 1, lease_until = ${leaseUntil}::timestamptz, updated_at = ${now}::timestamptz
     FROM due, webhook_endpoints e WHERE d.id = due.id AND e.id = d.endpoint_id
     RETURNING d.id, d.workspace_id, d.endpoint_id, d.event_id, d.event_type, d.payload, d.attempt_count, e.url, e.signing_key`;

/** A row CLAIM_UPDATE returns: the delivery with its endpoint's address and key. */
type ClaimedRow = Omit<ClaimedDelivery, 'attempt' | 'key'> & { attempt_count: number | string; signing_key: string };

const toClaimed = (r: ClaimedRow): ClaimedDelivery => ({
  id: r.id,
  workspace_id: r.workspace_id,
  endpoint_id: r.endpoint_id,
  event_id: r.event_id,
  event_type: r.event_type,
  payload: r.payload,
  attempt: Number(r.attempt_count),
  url: r.url,
  key: r.signing_key,
});

/**
 * Leases that ran out belong to a server that stopped mid-attempt. The attempt is logged as
 * interrupted (it may or may not have arrived: the delivery id lets the receiver deduplicate) and
 * the delivery is due again at once; an interruption does not use up a retry.
 */
export async function reclaimExpired(db: Db, now: Date): Promise<number> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string; attempt_count: number }>(
      `WITH lost AS (
         SELECT id FROM webhook_deliveries WHERE status = 'sending' AND lease_until <= $1::timestamptz LIMIT 500 FOR UPDATE SKIP LOCKED
       )
       UPDATE webhook_deliveries d SET status = 'pending', next_attempt_at = $1::timestamptz, lease_until = NULL, updated_at = $1::timestamptz
       FROM lost WHERE d.id = lost.id RETURNING d.id, d.attempt_count`,
      [now.toISOString()],
    );
    for (const r of rows) {
      await insertAttempt(tx, r.id, Number(r.attempt_count), now, 'interrupted', {
        statusCode: null,
        error: 'The server stopped before this attempt finished; sent again',
        body: '',
        latencyMs: null,
      });
    }
    return rows.length;
  });
}

/** Records an attempt's outcome and schedules the next one; returns true when it disabled the endpoint. */
export async function recordAttempt(
  db: Db,
  d: ClaimedDelivery,
  startedAt: Date,
  result: { statusCode: number | null; ok: boolean; error: string | null; body: string; latencyMs: number },
  now: Date,
): Promise<{ disabled: boolean }> {
  return db.transaction(async (tx) => {
    // Only the holder of this attempt may settle it (a reclaimed row has moved on).
    const { rows: held } = await tx.query<{ failed_count: number }>(
      `SELECT failed_count FROM webhook_deliveries WHERE id = $1 AND status = 'sending' AND attempt_count = $2 FOR UPDATE`,
      [d.id, d.attempt],
    );
    await insertAttempt(tx, d.id, d.attempt, startedAt, result.ok ? 'succeeded' : 'failed', result);
    if (!held[0]) return { disabled: false };
    const t = now.toISOString();
    if (result.ok) {
      await tx.query(
        `UPDATE webhook_deliveries SET status = 'succeeded', lease_until = NULL, next_attempt_at = NULL, last_status_code = $2, last_error = NULL,
           completed_at = $3::timestamptz, updated_at = $3::timestamptz WHERE id = $1`,
        [d.id, result.statusCode, t],
      );
      await tx.query('UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE id = $1 AND consecutive_failures <> 0', [d.endpoint_id]);
      return { disabled: false };
    }
    const failed = Number(held[0].failed_count) + 1;
    const delay = retryDelayMs(failed);
    const { rows: ep } = await tx.query<{ consecutive_failures: number; disabled_at: Date | string | null }>(
      `UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1 WHERE id = $1 RETURNING consecutive_failures, disabled_at`,
      [d.endpoint_id],
    );
    const disable = !!ep[0] && ep[0].disabled_at === null && Number(ep[0].consecutive_failures) >= DISABLE_AFTER_FAILURES;
    const giveUp = delay === null || disable || (ep[0] && ep[0].disabled_at !== null);
    await tx.query(
      `UPDATE webhook_deliveries SET status = $2, failed_count = $3, lease_until = NULL, next_attempt_at = $4::timestamptz, last_status_code = $5,
         last_error = $6, completed_at = $7::timestamptz, updated_at = $8::timestamptz WHERE id = $1`,
      [
        d.id,
        giveUp ? 'failed' : 'pending',
        failed,
        giveUp ? null : new Date(now.getTime() + delay).toISOString(),
        result.statusCode,
        giveUp && delay !== null ? `${result.error ?? 'failed'} (endpoint disabled)` : result.error,
        giveUp ? t : null,
        t,
      ],
    );
    if (disable) {
      await tx.query(
        `UPDATE webhook_endpoints SET disabled_at = $2::timestamptz, disabled_reason = $3, updated_at = $2::timestamptz WHERE id = $1`,
        [d.endpoint_id, t, `${DISABLE_AFTER_FAILURES} consecutive failed delivery attempts`],
      );
      await failPending(tx, d.endpoint_id, 'endpoint disabled before delivery', now);
    }
    return { disabled: disable };
  });
}

export interface SuccessRecord {
  d: ClaimedDelivery;
  startedAt: Date;
  result: { statusCode: number | null; error: string | null; body: string; latencyMs: number };
}

/**
 * Acknowledged attempts, recorded together in one statement (its own transaction) whatever the
 * batch: the deliveries settled, their attempts logged, their endpoints' failure counters reset.
 * Same guard as recordAttempt: only the attempt's holder settles it. One text for every batch
 * (arrays, not VALUES lists), so it is prepared once.
 *
 * With `claim`, the same statement then claims what is due (claimDue's CTEs), the settled
 * attempts' slots counted free: the worker's next claim rides on the recording that frees its
 * slots, instead of a statement of its own after it.
 *
 * The endpoints are locked in id order: two servers recording batches over the same endpoints
 * otherwise lock them in whatever order each scan meets them, and deadlock (one batch then rolls
 * back and its deliveries are sent again after their leases run out).
 */
export async function recordSuccesses(db: Db, items: SuccessRecord[], now: Date, claim?: ClaimRequest): Promise<ClaimedDelivery[]> {
  if (!items.length) return claim ? claimDue(db, now, claim.limit, claim.leaseMs, claim.perEndpoint) : [];
  const record = `v AS (
       SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::text[], $5::timestamptz[], $6::int[], $7::text[])
         AS v(id, attempt, code, attempt_id, started_at, latency_ms, excerpt)
     ), settled AS (
       UPDATE webhook_deliveries d SET status = 'succeeded', lease_until = NULL, next_attempt_at = NULL, last_status_code = v.code, last_error = NULL,
         completed_at = $8::timestamptz, updated_at = $8::timestamptz
       FROM v WHERE d.id = v.id AND d.status = 'sending' AND d.attempt_count = v.attempt
       RETURNING d.endpoint_id
     ), logged AS (
       INSERT INTO webhook_attempts (id, delivery_id, attempt_number, started_at, latency_ms, status_code, outcome, error, response_excerpt)
       SELECT v.attempt_id, v.id, v.attempt, v.started_at, v.latency_ms, v.code, 'succeeded', NULL, v.excerpt FROM v
       ON CONFLICT (delivery_id, attempt_number) DO NOTHING
     ), failing AS (
       SELECT id FROM webhook_endpoints WHERE id = ANY($9::text[]) AND consecutive_failures <> 0 ORDER BY id FOR UPDATE
     )`;
  const reset = 'UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE id IN (SELECT id FROM failing)';
  const params: unknown[] = [
    items.map((i) => i.d.id),
    items.map((i) => i.d.attempt),
    items.map((i) => i.result.statusCode),
    items.map(() => newId('att')),
    items.map((i) => i.startedAt.toISOString()),
    items.map((i) => i.result.latencyMs),
    items.map((i) => excerpt(i.result.body)),
    now.toISOString(),
    [...new Set(items.map((i) => i.d.endpoint_id))],
  ];
  if (!claim) {
    await db.query(`WITH ${record} ${reset}`, params);
    return [];
  }
  const { rows } = await db.query<ClaimedRow>(
    `WITH RECURSIVE ${record}, reset AS (${reset}), ${claimCtes('$8', '$10', '$12', 'settled')} ${CLAIM_UPDATE('$8', '$11')}`,
    [...params, claim.limit, new Date(now.getTime() + claim.leaseMs).toISOString(), claim.perEndpoint ?? DEFAULT_PER_ENDPOINT],
  );
  return rows.map(toClaimed);
}

export const MAX_ATTEMPTS = MAX_RETRIES + 1;

/** Sends one delivery again, with a fresh retry budget; same delivery id, so receivers can deduplicate. */
export async function replayDelivery(db: Db, ws: string, endpointId: string, id: string, now: Date): Promise<Delivery> {
  const { rows } = await db.query(
    `UPDATE webhook_deliveries SET status = 'pending', failed_count = 0, next_attempt_at = $4::timestamptz, completed_at = NULL, updated_at = $4::timestamptz
     WHERE id = $1 AND endpoint_id = $2 AND workspace_id = $3 AND status IN ('succeeded', 'failed') AND event_type <> 'webhook.verification' RETURNING id`,
    [id, endpointId, ws, now.toISOString()],
  );
  if (!rows[0]) {
    const d = await getDelivery(db, ws, endpointId, id);
    if (d.event_type === 'webhook.verification')
      throw badRequest('Verification deliveries are not replayed: call verify again', 'delivery_id');
    return d; // already pending or being sent
  }
  return getDelivery(db, ws, endpointId, id);
}

/**
 * Replays everything the endpoint did not receive since a time: failed deliveries go back to the
 * queue, and with include_missed, events it never got a delivery for (it was disabled, unverified
 * or not yet subscribed) are queued too.
 */
export async function replaySince(
  db: Db,
  ws: string,
  endpointId: string,
  opts: { since: string; until?: string; include_missed?: boolean },
  now: Date,
): Promise<{ replayed: number; queued_missed: number }> {
  return db.transaction(async (tx) => {
    const ep = await endpointRow(tx, ws, endpointId, true);
    const t = now.toISOString();
    // Exact at any precision, as the lists' time filters (timeConditions): for instants stored in
    // microseconds, at >= since is at >= ceil(since) and at < until is at < ceil(until).
    const since = microsecondBound(opts.since, 'up');
    const until = microsecondBound(opts.until ?? '9999-12-31T00:00:00Z', 'up');
    const { rows } = await tx.query(
      `UPDATE webhook_deliveries SET status = 'pending', failed_count = 0, next_attempt_at = $2::timestamptz, completed_at = NULL, updated_at = $2::timestamptz
       WHERE endpoint_id = $1 AND status = 'failed' AND event_created_at >= $3::timestamptz AND event_created_at < $4::timestamptz
         AND event_type <> 'webhook.verification' RETURNING id`,
      [endpointId, t, since, until],
    );
    let missed = 0;
    if (opts.include_missed) {
      const types: string[] = ep.event_types;
      const q = new Params();
      const typeCond = types.includes('*') ? '' : ` AND e.type IN ${q.list(types)}`;
      const { rows: evs } = await tx.query<EventRow>(
        `SELECT e.id, e.type, e.data, e.changed_fields, e.created_at FROM events e
         WHERE e.workspace_id = ${q.p(ws)} AND e.created_at >= ${q.p(since)}::timestamptz AND e.created_at < ${q.p(until)}::timestamptz${typeCond}
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = ${q.p(endpointId)} AND d.event_id = e.id)
         ORDER BY e.created_at, e.id LIMIT 10000`,
        q.values,
      );
      const queued: Queued = {
        events: evs.map((ev) => ({ id: ev.id, ws, type: ev.type, at: iso(ev.created_at), body: eventBody(toEvent(ev)) })),
        deliveries: evs.map((_, i) => ({ id: newId('dlv'), endpoint: endpointId, n: i + 1 })),
      };
      if (evs.length) await tx.query(insertQueued(1), queuedParams(queued, now));
      missed = evs.length;
    }
    return { replayed: rows.length, queued_missed: missed };
  });
}

/**
 * Retention: deletes deliveries that finished (succeeded, or failed for good) before `cutoff`,
 * with their attempt logs, then events created before `cutoff` that have been fanned out and
 * that no unfinished delivery still needs. Works in batches so no statement holds its locks long.
 */
export async function pruneBefore(db: Db, cutoff: Date, batch = 5_000): Promise<{ deliveries: number; events: number }> {
  const at = cutoff.toISOString();
  let deliveries = 0;
  for (;;) {
    const { rows } = await db.query(
      `DELETE FROM webhook_deliveries WHERE id IN (
         SELECT id FROM webhook_deliveries WHERE status IN ('succeeded', 'failed') AND completed_at < $1::timestamptz LIMIT ${batch}
       ) RETURNING id`,
      [at],
    );
    deliveries += rows.length;
    if (rows.length < batch) break;
  }
  let events = 0;
  for (;;) {
    const { rows } = await db.query(
      `DELETE FROM events WHERE id IN (
         SELECT e.id FROM events e
          WHERE e.created_at < $1::timestamptz
            AND (e.txid IS NULL OR (e.txid, e.id) <= (SELECT c.txid, c.event_id FROM outbox_cursor c WHERE c.name = 'webhooks'))
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status IN ('pending', 'sending'))
          LIMIT ${batch}
       ) RETURNING id`,
      [at],
    );
    events += rows.length;
    if (rows.length < batch) break;
  }
  return { deliveries, events };
}
