import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import pg from 'pg';
import { MAX_PREPARED, type ConnectionPool, type Db, type Queryable, type QueryOptions } from './db.js';
import { databaseFault } from './faults.js';

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
function named(text: string, values: unknown[] | undefined, opts: QueryOptions | undefined, prepared: boolean): pg.QueryConfig {
  if (!prepared || opts?.prepare === false) return { text, values };
  let name = names.get(text);
  if (name === undefined && names.size < MAX_PREPARED) {
    name = `s_${createHash('sha1').update(text).digest('base64url')}`;
    names.set(text, name);
  }
  return name === undefined ? { text, values } : { name, text, values };
}

export interface PostgresOptions {
  /** A postgres:// URL; its parameter `prepared_statements=false` is the store's own (below), not sent to the server. */
  connectionString: string;
  /** Schema to use as search_path: lets test files share one database without seeing each other. */
  schema?: string;
  max?: number;
  /**
   * false: every statement unnamed, parsed and planned at each run (`serve --no-prepared-statements`).
   * Behind a pooler in transaction mode (PgBouncer before 1.21, or without max_prepared_statements)
   * a connection's named statements are not there on the next transaction's server connection.
   */
  preparedStatements?: boolean;
}

/** The connection-string parameter that turns named statements off (docs/operations.md, "PgBouncer"). */
export const PREPARED_STATEMENTS_PARAM = 'prepared_statements';

/**
 * A connection string without the store's own parameter, and what that parameter said (undefined
 * when absent). Anything but a boolean's spelling is refused, naming the parameter.
 */
export function storeParameters(url: string): { connectionString: string; preparedStatements?: boolean } {
  const q = url.indexOf('?');
  if (q < 0) return { connectionString: url };
  const params = new URLSearchParams(url.slice(q + 1));
  const value = params.get(PREPARED_STATEMENTS_PARAM);
  if (value === null) return { connectionString: url };
  params.delete(PREPARED_STATEMENTS_PARAM);
  const rest = params.toString();
  const connectionString = url.slice(0, q) + (rest ? `?${rest}` : '');
  if (/^(true|on|yes|1)$/i.test(value)) return { connectionString, preparedStatements: true };
  if (/^(false|off|no|0)$/i.test(value)) return { connectionString, preparedStatements: false };
  throw new Error(`DATABASE_URL: ${PREPARED_STATEMENTS_PARAM} must be true or false, got "${value}"`);
}

export async function openPostgres(opts: PostgresOptions): Promise<Db> {
  const fromUrl = storeParameters(opts.connectionString);
  const connectionString = fromUrl.connectionString;
  // Off when either says off: the flag is for a pooler the URL does not mention.
  const prepared = opts.preparedStatements !== false && fromUrl.preparedStatements !== false;
  if (opts.schema) {
    const admin = new pg.Client({ connectionString });
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
    connectionString,
    max,
    // A server keeps its connections: node-postgres would close one idle for 10 s, and a burst after
    // a quiet spell would pay new backends that parse and plan every statement again. The pool's
    // size is the budget (docs/store.md, "A production PostgreSQL"); a connection that breaks while
    // idle is replaced (the 'error' handlers below), and TCP keepalives keep an idle one from being
    // dropped silently by something in between.
    idleTimeoutMillis: 0,
    keepAlive: true,
    // A request waits this long for a connection, then is answered 503 (db/faults.ts): a database
    // that does not answer a connection at all (a host gone, a firewall dropping packets) would
    // otherwise hold every request until the client gave up.
    connectionTimeoutMillis: POOL_WAIT_MS,
    // Only when asked: otherwise an `options` in the connection string stays in force.
    ...(opts.schema ? { options: `-c search_path="${opts.schema.replace(/"/g, '')}",public` } : {}),
  });
  // An idle client's error must not crash the process; the pool removes the client and opens another
  // when one is needed.
  pool.on('error', () => {});
  // Nor a checked-out client's: the pool listens only while a client is idle, and a client ended by
  // the database (a restart, pg_terminate_backend) while a transaction or batch holds it emits
  // 'error' too, with nobody listening, which ended the process. Its statement fails on its own.
  pool.on('connect', (client) => client.on('error', () => {}));
  return {
    kind: 'postgres',
    pool: poolOf(pool, max, prepared),
    async query<T>(sql: string, params?: unknown[], opts?: QueryOptions) {
      const r = await pool.query(named(sql, params, opts, prepared));
      return { rows: r.rows as T[] };
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      /** Why the client may not serve another request: its connection broke, or its ROLLBACK failed. */
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await fn(onClient(client, prepared));
        await client.query('COMMIT');
        return result;
      } catch (e) {
        // A connection that broke took its transaction with it: PostgreSQL rolled it back.
        if (databaseFault(e)) broken = e as Error;
        else await client.query('ROLLBACK').catch((r: Error) => (broken = r));
        throw e;
      } finally {
        client.release(broken);
      }
    },
    async exec(sql) {
      await pool.query(sql);
    },
    close: () => pool.end(),
  };
}

/** How long a statement waits for a connection of the pool before it is answered 503. */
export const POOL_WAIT_MS = 10_000;

const onClient = (client: pg.PoolClient, prepared: boolean): Queryable => ({
  async query<R>(sql: string, params?: unknown[], opts?: QueryOptions) {
    const r = await client.query(named(sql, params, opts, prepared));
    return { rows: r.rows as R[] };
  },
});

/**
 * Runs fn on a client of the pool, outside any transaction. A client whose statement failed with a
 * database fault is closed rather than handed to the next request: its connection is gone.
 */
async function withClient<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    const result = await fn(client);
    client.release();
    return result;
  } catch (e) {
    client.release(databaseFault(e) ? (e as Error) : undefined);
    throw e;
  }
}

function poolOf(pool: pg.Pool, max: number, prepared: boolean): ConnectionPool {
  return {
    size: max,
    saturated: () => pool.waitingCount > 0 || (pool.idleCount === 0 && pool.totalCount >= max),
    usage: () => ({ open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    withConnection: <T>(fn: (c: Queryable) => Promise<T>) => withClient(pool, (client) => fn(onClient(client, prepared))),
    async open() {
      // Every connection at once, each asked a statement, so the first requests find them open. One
      // the server refuses (max_connections reached) is left to be opened when a request needs it,
      // as before warming opened any: a database that cannot be reached fails the warming's reads.
      await Promise.allSettled(Array.from({ length: max }, () => withClient(pool, (client) => client.query('SELECT 1'))));
    },
  };
}
