import { iso, type Queryable } from '../db/db.js';
import { badRequest } from '../errors.js';

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

export type Row = Record<string, any>;

/** Opaque cursor over (created_at, id): stable while rows are inserted concurrently. */
export function encodeCursor(createdAt: string, id: string): string {
  return Buffer.from(JSON.stringify([createdAt, id])).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: string; id: string } {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string' && !Number.isNaN(Date.parse(v[0]))) {
      return { createdAt: v[0], id: v[1] };
    }
  } catch {
    // fall through to the error below
  }
  throw badRequest('Invalid cursor', 'cursor');
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
  total_count: number;
}

/**
 * Builds the keyset condition and finishes a page: rows were fetched with limit + 1 so has_more
 * needs no second query.
 */
export function keysetCondition(q: Params, cursor: string | undefined, alias: string): string | null {
  if (!cursor) return null;
  const c = decodeCursor(cursor);
  return `(${alias}.created_at, ${alias}.id) < (${q.p(c.createdAt)}::timestamptz, ${q.p(c.id)})`;
}

export function finishPage<T>(rows: Row[], limit: number, total: number, map: (r: Row) => T, createdAtIso: (r: Row) => string): Page<T> {
  const has_more = rows.length > limit;
  const pageRows = has_more ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(map),
    has_more,
    next_cursor: has_more && last ? encodeCursor(createdAtIso(last), last.id) : null,
    total_count: total,
  };
}

/**
 * A newest-first keyset page: counts what `where` selects (the total, whatever the cursor), then
 * fetches limit + 1 rows after the cursor, ordered by (created_at, id) of `alias`. `from` is
 * "table alias"; `select` (default every column of `from`) may join. Conditions use the alias and
 * the parameters of `q`.
 */
export async function keysetPage<T>(
  db: Queryable,
  spec: { from: string; alias: string; select?: string; q: Params; where: string[]; limit: number; cursor?: string },
  map: (r: Row) => T,
): Promise<Page<T>> {
  const { q, alias } = spec;
  const countParams = [...q.values];
  const countSql = `SELECT count(*)::text AS n FROM ${spec.from} WHERE ${spec.where.join(' AND ')}`;
  const k = keysetCondition(q, spec.cursor, alias);
  const where = k ? [...spec.where, k] : spec.where;
  const [page, count] = await Promise.all([
    db.query(`${spec.select ?? `SELECT * FROM ${spec.from}`} WHERE ${where.join(' AND ')} ORDER BY ${alias}.created_at DESC, ${alias}.id DESC LIMIT ${q.p(spec.limit + 1)}`, q.values),
    db.query<{ n: string }>(countSql, countParams),
  ]);
  return finishPage(page.rows, spec.limit, Number(count.rows[0].n), map, (r) => iso(r.created_at));
}

/**
 * One page of a workspace's rows of `table`, newest first, with the cursor and total_count the
 * list endpoints share. `filters` adds column = value conditions (column names are the caller's
 * constants, never input).
 */
export function listByCreation<T>(
  db: Queryable,
  table: string,
  ws: string,
  opts: { limit: number; cursor?: string; filters?: Record<string, unknown> },
  map: (r: Row) => T,
): Promise<Page<T>> {
  const q = new Params();
  const where = [`t.workspace_id = ${q.p(ws)}`, ...Object.entries(opts.filters ?? {}).map(([column, value]) => `t.${column} = ${q.p(value)}`)];
  return keysetPage(db, { from: `${table} t`, alias: 't', q, where, limit: opts.limit, cursor: opts.cursor }, map);
}
