import pg from 'pg';
import type { Db, Queryable } from './db.js';

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
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.max ?? 10,
    // Only when asked: otherwise an `options` in the connection string stays in force.
    ...(opts.schema ? { options: `-c search_path="${opts.schema.replace(/"/g, '')}",public` } : {}),
  });
  // An idle client's error must not crash the process; the pool replaces the client.
  pool.on('error', () => {});
  return {
    kind: 'postgres',
    async query<T>(sql: string, params?: unknown[]) {
      const r = await pool.query(sql, params as unknown[]);
      return { rows: r.rows as T[] };
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const tx: Queryable = {
          async query<R>(sql: string, params?: unknown[]) {
            const r = await client.query(sql, params as unknown[]);
            return { rows: r.rows as R[] };
          },
        };
        const result = await fn(tx);
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
