import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import pg from 'pg';
import { MAX_PREPARED, type Db, type Queryable, type QueryOptions } from './db.js';

/**
 * The default pool per server process: two connections per core, at least 4. A connection is
 * busy for a statement's whole round trip, not only its CPU (the wake-ups on both sides, a
 * creation's commit waiting for the WAL flush), but lists and creations that wait for one are
 * sent in batches (db/batch.ts), so more connections than that only add backends contending for
 * the cores: side by side on two cores, 4 against 8 held the same load of 1,000 tenants at a
 * lower p99 and 0.91× PostgreSQL's CPU per request, and one tenant's requests as fast or faster
 * (docs/store.md, "The pool"). With batching off (--no-batching) requests queue for a connection
 * instead: give it more. `serve --pool-size N` (DATABASE_POOL_SIZE) overrides it; with --workers
 * each process has its own.
 */
export const defaultPoolSize = () => Math.max(4, 2 * availableParallelism());

const names = new Map<string, string>();

/**
 * A named (prepared) query: each connection parses and plans a statement once, then only binds and
 * executes it. Names derive from the text, so every connection of every pool shares them; texts
 * past MAX_PREPARED (a store building unbounded variants) run unnamed, so memory stays bounded.
 */
function named(text: string, values: unknown[] | undefined, opts: QueryOptions | undefined): pg.QueryConfig {
  if (opts?.prepare === false) return { text, values };
  let name = names.get(text);
  if (name === undefined && names.size < MAX_PREPARED) {
    name = `s_${createHash('sha1').update(text).digest('base64url')}`;
    names.set(text, name);
  }
  return name === undefined ? { text, values } : { name, text, values };
}

export interface PostgresOptions {
  connectionString: string;
  /** Schema to use as search_path: lets test files share one database without seeing each other. */
  schema?: string;
  max?: number;
}

export async function openPostgres(opts: PostgresOptions): Promise<Db> {
  if (opts.schema) {
    const admin = new pg.Client({ connectionString: opts.connectionString });
    await admin.connect();
    try {
      // IF NOT EXISTS still races between sessions; the loser's duplicate error means "exists".
      await admin.query(`CREATE SCHEMA IF NOT EXISTS "${opts.schema.replace(/"/g, '')}"`).catch((e: { code?: string }) => {
        if (e.code !== '23505' && e.code !== '42P06') throw e;
      });
    } finally {
      await admin.end();
    }
  }
  const max = opts.max ?? defaultPoolSize();
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max,
    // A server keeps its connections: node-postgres would close one idle for 10 s, and a burst after
    // a quiet spell would pay new backends that parse and plan every statement again. The pool's
    // size is the budget (docs/store.md, "A production PostgreSQL"); a connection that breaks while
    // idle is replaced (the 'error' handler below), and TCP keepalives keep an idle one from being
    // dropped silently by something in between.
    idleTimeoutMillis: 0,
    keepAlive: true,
    // Only when asked: otherwise an `options` in the connection string stays in force.
    ...(opts.schema ? { options: `-c search_path="${opts.schema.replace(/"/g, '')}",public` } : {}),
  });
  // An idle client's error must not crash the process; the pool replaces the client.
  pool.on('error', () => {});
  const onClient = (client: pg.PoolClient): Queryable => ({
    async query<R>(sql: string, params?: unknown[], opts?: QueryOptions) {
      const r = await client.query(named(sql, params, opts));
      return { rows: r.rows as R[] };
    },
  });
  return {
    kind: 'postgres',
    pool: {
      size: max,
      saturated: () => pool.waitingCount > 0 || (pool.idleCount === 0 && pool.totalCount >= max),
      async withConnection<T>(fn: (c: Queryable) => Promise<T>): Promise<T> {
        const client = await pool.connect();
        try {
          return await fn(onClient(client));
        } finally {
          client.release();
        }
      },
    },
    async query<T>(sql: string, params?: unknown[], opts?: QueryOptions) {
      const r = await pool.query(named(sql, params, opts));
      return { rows: r.rows as T[] };
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(onClient(client));
        await client.query('COMMIT');
        return result;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        client.release();
      }
    },
    async exec(sql) {
      await pool.query(sql);
    },
    close: () => pool.end(),
  };
}
