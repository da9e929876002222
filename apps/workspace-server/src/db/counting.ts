import type { Db, Queryable } from './db.js';

/** A Db that counts its round trips to the database; the counts are what docs/store.md records. */
export interface CountingDb extends Db {
  /** Statements sent since the last reset: each query, plus BEGIN and COMMIT (or ROLLBACK) of each transaction. */
  readonly roundTrips: number;
  resetRoundTrips(): void;
}

/**
 * Wraps a store's Db so every round trip is counted (tests and `npm run bench` use it; the
 * server never does). A transaction costs its BEGIN and its COMMIT as well as its statements.
 */
export function countRoundTrips(db: Db): CountingDb {
  let n = 0;
  const counted = (q: Queryable): Queryable => ({
    query(sql, params, opts) {
      n++;
      return q.query(sql, params, opts);
    },
  });
  const base = counted(db);
  return {
    kind: db.kind,
    get roundTrips() {
      return n;
    },
    resetRoundTrips() {
      n = 0;
    },
    query: base.query.bind(base),
    // A batch (db/batch.ts) is one round trip however many requests it carries.
    pool: db.pool && {
      size: db.pool.size,
      saturated: () => db.pool!.saturated(),
      withConnection: (fn) => db.pool!.withConnection((c) => fn(counted(c))),
      usage: () => db.pool!.usage(),
      open: () => db.pool!.open(),
    },
    transaction(fn) {
      n += 2;
      return db.transaction((tx) => fn(counted(tx)));
    },
    exec: (sql) => {
      n++;
      return db.exec(sql);
    },
    close: () => db.close(),
  };
}
