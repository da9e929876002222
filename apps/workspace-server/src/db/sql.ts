import { iso, type Queryable } from './db.js';
import { badRequest } from '../shared/errors.js';
import { microsecondBound } from '../shared/timestamps.js';

/** Collects positional parameters while a query is built: `where.push(\`x = ${q.p(v)}\`)`. */
export class Params {
  readonly values: unknown[] = [];
  p(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
  /** A JSON array parameter usable as `IN (SELECT jsonb_array_elements_text($n::jsonb))`. */
  list(v: readonly string[]): string {
    return `(SELECT jsonb_array_elements_text(${this.p(JSON.stringify(v))}::jsonb))`;
  }
}

/** A list's timestamp filters, RFC 3339 (the route's schema checks them with tsIn: timeFilterQuery). */
export interface TimeFilters {
  created_after?: string;
  created_before?: string;
  updated_after?: string;
}

/**
 * The one statement of the timestamp filters' rule (docs/api.md, Paging), for every list of rows
 * with created_at and updated_at that takes them: each bound is inclusive. `updated_after` is what
 * an incremental sync reads, so whatever changes how a row reads moves its updated_at.
 */
export function timeConditions(q: Params, alias: string, f: TimeFilters): string[] {
  const where: string[] = [];
  // Exact at any precision: the bounds are taken to the store's microsecond (microsecondBound).
  if (f.created_after) where.push(`${alias}.created_at >= ${q.p(microsecondBound(f.created_after, 'up'))}::timestamptz`);
  if (f.created_before) where.push(`${alias}.created_at <= ${q.p(microsecondBound(f.created_before, 'down'))}::timestamptz`);
  if (f.updated_after) where.push(`${alias}.updated_at >= ${q.p(microsecondBound(f.updated_after, 'up'))}::timestamptz`);
  return where;
}

/**
 * Opaque cursor over (created_at, id), bound to the list it came from: stable while rows are
 * inserted concurrently, and a cursor of another list (or a garbled one) is a 400 naming
 * `cursor`, never a query error.
 */
export function encodeCursor(createdAt: string, id: string, list: string): string {
  return Buffer.from(JSON.stringify([list, createdAt, id])).toString('base64url');
}

export function decodeCursor(cursor: string, list: string): { createdAt: string; id: string } {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    v = undefined;
  }
  if (Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === 'string')) {
    const [from, createdAt, id] = v;
    const time = Date.parse(createdAt);
    // Years 0001-9999 only: what PostgreSQL's timestamptz reads back from an ISO string.
    if (from === list && !Number.isNaN(time) && /^\d{4}-/.test(new Date(time).toISOString()) && !id.includes('\u0000'))
      return { createdAt, id };
    if (from !== list) throw badRequest('Invalid cursor: it belongs to another list; pass the next_cursor this list returned', 'cursor');
  }
  throw badRequest('Invalid cursor: pass a next_cursor exactly as a list returned it', 'cursor');
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
  total_count: number;
}

/**
 * `LIMIT n` for a list whose only conditions are its workspace and the keyset cursor, with n
 * written into the statement instead of passed as a parameter. Such a page's statement is prepared,
 * and with `LIMIT $n` PostgreSQL's generic plan must assume an unknown limit (a tenth of the rows):
 * it costs far more than a plan for the actual limit, so PostgreSQL planned every execution again,
 * about half of its time serving a list page (docs/store.md, "One plan per statement"). With the
 * number in the text each statement keeps one generic plan, right for any workspace (the
 * (workspace_id, created_at, id) index, read until the limit). A list filtered by values keeps
 * `LIMIT $n`, so it is planned for its values each time (a rare stage and a common one want
 * different plans). The route's schema bounds the limit, so the variants are few.
 */
export function limitClause(n: number): string {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`a page limit must be a positive integer, not ${n}`);
  return `LIMIT ${n}`;
}

/**
 * Builds the keyset condition and finishes a page: rows were fetched with limit + 1 so has_more
 * needs no second query.
 */
export function keysetCondition(q: Params, cursor: string | undefined, alias: string, list: string, idColumn = 'id'): string | null {
  if (!cursor) return null;
  const c = decodeCursor(cursor, list);
  return `(${alias}.created_at, ${alias}.${idColumn}) < (${q.p(c.createdAt)}::timestamptz, ${q.p(c.id)})`;
}

/** A row a keyset page is made of: its id is half of the cursor (created_at, id). */
export type KeysetRow = { id: string };

export function finishPage<R extends KeysetRow, T>(
  rows: R[],
  limit: number,
  total: number,
  map: (r: R) => T,
  createdAtIso: (r: R) => string,
  list: string,
): Page<T> {
  const has_more = rows.length > limit;
  const pageRows = has_more ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(map),
    has_more,
    next_cursor: has_more && last ? encodeCursor(createdAtIso(last), last.id, list) : null,
    total_count: total,
  };
}

/**
 * A newest-first keyset page: counts what `where` selects (the total, whatever the cursor), then
 * fetches limit + 1 rows after the cursor, ordered by (created_at, id) of `alias`. `from` is
 * "table alias"; `select` (default every column of `from`) may join. Conditions use the alias and
 * the parameters of `q`.
 */
export async function keysetPage<R extends KeysetRow & { created_at: unknown }, T>(
  db: Queryable,
  spec: { from: string; alias: string; select?: string; q: Params; where: string[]; limit: number; cursor?: string; list?: string },
  map: (r: R) => T,
): Promise<Page<T>> {
  const { q, alias } = spec;
  const countParams = [...q.values];
  const countSql = `SELECT count(*)::text AS n FROM ${spec.from} WHERE ${spec.where.join(' AND ')}`;
  // The list a cursor is bound to: the table, unless the caller names a narrower one.
  const list = spec.list ?? spec.from.split(' ')[0];
  const k = keysetCondition(q, spec.cursor, alias, list);
  const where = k ? [...spec.where, k] : spec.where;
  const [page, count] = await Promise.all([
    db.query<R>(
      `${spec.select ?? `SELECT * FROM ${spec.from}`} WHERE ${where.join(' AND ')} ORDER BY ${alias}.created_at DESC, ${alias}.id DESC LIMIT ${q.p(spec.limit + 1)}`,
      q.values,
    ),
    db.query<{ n: string }>(countSql, countParams),
  ]);
  return finishPage(page.rows, spec.limit, Number(count.rows[0].n), map, (r) => iso(r.created_at), list);
}

/**
 * One page of a workspace's rows of `table`, newest first, with the cursor and total_count the
 * list endpoints share. `filters` adds column = value conditions (column names are the caller's
 * constants, never input).
 */
export function listByCreation<R extends KeysetRow & { created_at: unknown }, T>(
  db: Queryable,
  table: string,
  ws: string,
  opts: { limit: number; cursor?: string; filters?: Record<string, unknown> },
  map: (r: R) => T,
): Promise<Page<T>> {
  const q = new Params();
  const where = [
    `t.workspace_id = ${q.p(ws)}`,
    ...Object.entries(opts.filters ?? {}).map(([column, value]) => `t.${column} = ${q.p(value)}`),
  ];
  const list = [table, ...Object.values(opts.filters ?? {}).map(String)].join(':');
  return keysetPage(db, { from: `${table} t`, alias: 't', q, where, limit: opts.limit, cursor: opts.cursor, list }, map);
}

/** Escapes LIKE metacharacters so user text matches literally. */
export const likeEscape = (s: string) => s.replace(/[\\%_]/g, (m) => `\\${m}`);
