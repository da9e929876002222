import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { Db, Queryable } from './db.js';
import { lockDataDir } from './lock.js';

/** Embedded PostgreSQL (WASM). One connection: PGlite serialises queries and transactions itself. */
export async function openPglite(dataDir?: string): Promise<Db> {
  // A data directory belongs to one process (db/lock.ts): a second server on it is refused
  // before PGlite reads anything.
  const unlock = dataDir ? lockDataDir(dataDir) : () => {};
  let pg: PGlite;
  try {
    pg = await PGlite.create(dataDir ? { dataDir, extensions: { pg_trgm, btree_gin } } : { extensions: { pg_trgm, btree_gin } });
  } catch (e) {
    unlock();
    throw e;
  }
  const wrap = (q: { query: PGlite['query'] }): Queryable => ({
    async query<T>(sql: string, params?: unknown[]) {
      const r = await q.query<T>(sql, params as never);
      return { rows: r.rows };
    },
  });
  const base = wrap(pg);
  return {
    kind: 'pglite',
    query: base.query,
    transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    exec: async (sql) => {
      await pg.exec(sql);
    },
    close: async () => {
      try {
        await pg.close();
      } finally {
        unlock();
      }
    },
  };
}
