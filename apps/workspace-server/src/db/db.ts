export interface QueryOptions {
  /**
   * false: plan this statement for its values every time instead of preparing it (PostgreSQL may
   * settle a prepared statement on one generic plan, which is wrong when selectivity depends on a
   * value, as a LIKE pattern's does). Default true.
   */
  prepare?: boolean;
}

/**
 * Distinct statement texts a store prepares (db/postgres.ts, db/pglite.ts); beyond these, texts run
 * unprepared, so a builder of unbounded variants cannot grow memory.
 */
export const MAX_PREPARED = 1000;

/** The one SQL surface both stores implement: PostgreSQL dialect, $1 parameters. */
export interface Queryable {
  query<T = unknown>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<{ rows: T[] }>;
}

/**
 * A store's pool of connections, for a batcher (db/batch.ts) that sends the statements of
 * requests waiting for a connection as one statement. PostgreSQL's is node-postgres' pool; PGlite's
 * is its one connection, taken in turn (db/pglite.ts).
 */
export interface ConnectionPool {
  /** The most connections the pool opens. */
  readonly size: number;
  /** True when a statement sent now should wait for a connection (on PGlite, always). */
  saturated(): boolean;
  /**
   * Runs fn on one connection, outside any transaction, after waiting in the pool's queue like any
   * statement. fn sends its statements on that connection only: on PGlite the store's own `query`
   * would wait for the connection fn holds.
   */
  withConnection<T>(fn: (c: Queryable) => Promise<T>): Promise<T>;
  /** Connections open now, those of them idle, and statements waiting for one (GET /metrics). */
  usage(): { open: number; idle: number; waiting: number };
  /** Opens every connection the pool may hold that the database accepts, before the first request needs them (a starting server's warming). */
  open(): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** The store's connections for batching (db/batch.ts): PostgreSQL's pool, PGlite's one connection. */
  readonly pool?: ConnectionPool;
  /** Runs fn in one database transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

/** Timestamps come back as Date from both drivers, but be tolerant of strings. */
export function iso(v: unknown): string {
  if (v instanceof Date) return v.toISOString();
  return new Date(String(v)).toISOString();
}

export function isoOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : iso(v);
}
