import { PGlite, types } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { utc } from '../timestamps.js';
import type { Db, Queryable } from './db.js';
import { lockDataDir } from './lock.js';

/** PostgreSQL's text of a timestamptz (ISO DateStyle): "0001-01-01 00:00:00.5+00", "2026-03-02 10:00:00-03:30", " BC" for years before 1. */
const TIMESTAMPTZ_TEXT = /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([+-])(\d{2})(?::(\d{2}))?(?::(\d{2}))?)?( BC)?$/;

/**
 * PGlite's own parser reads a timestamptz with `new Date(text)`, which takes years 0–99 for
 * 1900–1999 and 2000–2049 ("0001-01-01 00:00:00+00" became 2001): the API stores years from 0001
 * (timestamps.ts), so timestamps are read here, as node-postgres reads them on PostgreSQL.
 */
export function parseTimestamptz(text: string): Date {
  const m = TIMESTAMPTZ_TEXT.exec(text);
  if (!m) return new Date(text);
  const year = m[12] ? 1 - Number(m[1]) : Number(m[1]);
  const offsetSeconds = (m[8] === '-' ? -1 : 1) * (Number(m[9] ?? 0) * 3600 + Number(m[10] ?? 0) * 60 + Number(m[11] ?? 0));
  const ms = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  return new Date(utc(year, +m[2], +m[3], +m[4], +m[5], +m[6]) + ms - offsetSeconds * 1000);
}

/** Embedded PostgreSQL (WASM). One connection: PGlite serialises queries and transactions itself. */
export async function openPglite(dataDir?: string): Promise<Db> {
  // A data directory belongs to one process (db/lock.ts): a second server on it is refused
  // before PGlite reads anything.
  const unlock = dataDir ? lockDataDir(dataDir) : () => {};
  let pg: PGlite;
  try {
    const options = { extensions: { pg_trgm, btree_gin }, parsers: { [types.TIMESTAMPTZ]: parseTimestamptz } };
    pg = await PGlite.create(dataDir ? { dataDir, ...options } : options);
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
