import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Mutex, parse, PGlite, protocol, types } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { utc } from '../shared/timestamps.js';
import { MAX_PREPARED, type Db, type Queryable, type QueryOptions } from './db.js';
import { StoreUnavailableError } from './faults.js';
import { LOCK_FILE, lockDataDir } from './lock.js';

/** PostgreSQL's text of a timestamptz (ISO DateStyle): "0001-01-01 00:00:00.5+00", "2026-03-02 10:00:00-03:30", " BC" for years before 1. */
const TIMESTAMPTZ_TEXT = /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([+-])(\d{2})(?::(\d{2}))?(?::(\d{2}))?)?( BC)?$/;

/**
 * PGlite's own parser reads a timestamptz with `new Date(text)`, which takes years 0–99 for
 * 1900–1999 and 2000–2049 ("0001-01-01 00:00:00+00" became 2001): the API stores years from 0001
 * (shared/timestamps.ts), so timestamps are read here, as node-postgres reads them on PostgreSQL.
 */
export function parseTimestamptz(text: string): Date {
  const m = TIMESTAMPTZ_TEXT.exec(text);
  if (!m) return new Date(text);
  const year = m[12] ? 1 - Number(m[1]) : Number(m[1]);
  const offsetSeconds = (m[8] === '-' ? -1 : 1) * (Number(m[9] ?? 0) * 3600 + Number(m[10] ?? 0) * 60 + Number(m[11] ?? 0));
  const ms = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  return new Date(utc(year, +m[2], +m[3], +m[4], +m[5], +m[6]) + ms - offsetSeconds * 1000);
}

const PGLITE_OPTIONS = { extensions: { pg_trgm, btree_gin }, parsers: { [types.TIMESTAMPTZ]: parseTimestamptz } };

/** Whether a data directory holds no database yet: nothing in it but the process lock. */
const holdsNothing = (dataDir: string) => readdirSync(dataDir).every((f) => f === LOCK_FILE);

/**
 * PGlite on memory or on a data directory: an existing database resumed; else the image loaded,
 * where there is one; else initdb. An image that fails to load leaves nothing behind it.
 */
async function createPglite(dataDir: string | undefined, { image, onBadImage }: PgliteOptions): Promise<{ pg: PGlite; created: boolean }> {
  const empty = !dataDir || holdsNothing(dataDir);
  const at = dataDir ? { dataDir } : {};
  if (image && empty) {
    try {
      return { pg: await PGlite.create({ ...at, ...PGLITE_OPTIONS, loadDataDir: image }), created: false };
    } catch {
      onBadImage?.();
      if (dataDir) for (const f of readdirSync(dataDir)) if (f !== LOCK_FILE) rmSync(join(dataDir, f), { recursive: true, force: true });
    }
  }
  return { pg: await PGlite.create({ ...at, ...PGLITE_OPTIONS }), created: empty };
}

export interface PgliteDb extends Db {
  /** initdb made this database now: a data directory or memory that held none, and no image. */
  readonly created: boolean;
  /** The data directory's files as a tarball (PGlite's dumpDataDir), to be loaded as an image. */
  dump(): Promise<Blob>;
}

export interface PgliteOptions {
  /** A fresh database's files (db/image.ts), loaded instead of running initdb where there is no database yet. */
  image?: Blob;
  /** Told when the image could not be loaded; the database is then made by initdb. */
  onBadImage?: () => void;
}

/**
 * Embedded PostgreSQL (WASM). One connection, used in turn: every query, transaction and script
 * holds the store's lock, so nothing runs between a transaction's statements.
 *
 * Statements are prepared, as on PostgreSQL (db/postgres.ts): PGlite's own `query` sends Parse,
 * Describe, Bind, Describe, Execute and Sync as six calls into WebAssembly and parses and plans the
 * text every time. Here a text is parsed once (a named statement, with its parameter types), and
 * each run is one call of Bind, Describe, Execute and Sync, whose plan PostgreSQL keeps once it
 * settles on a generic one; a text to be planned for its values (`prepare: false`) is parsed in
 * that same call (docs/store.md, "Prepared statements").
 */
export async function openPglite(dataDir?: string, opts: PgliteOptions = {}): Promise<PgliteDb> {
  // A data directory belongs to one process (db/lock.ts): a second server on it is refused
  // before PGlite reads anything.
  const unlock = dataDir ? lockDataDir(dataDir) : () => {};
  let pg: PGlite;
  let created: boolean;
  try {
    ({ pg, created } = await createPglite(dataDir, opts));
  } catch (e) {
    unlock();
    throw e;
  }
  const lock = new Mutex();
  const { serialize } = protocol;
  /** Prepared texts: the statement's name and its parameters' type ids. */
  const statements = new Map<string, { name: string; types: number[] }>();
  /** Texts run unprepared (`prepare: false`, planned for their values every time): their parameters' type ids. */
  const unprepared = new Map<string, number[]>();
  /** The parameters' type ids of `sql` parsed as statement `name` ('' the unnamed one), which PostgreSQL keeps until replaced. */
  async function described(name: string, sql: string): Promise<number[]> {
    const { messages } = await pg.execProtocol(
      Buffer.concat([serialize.parse({ name, text: sql }), serialize.describe({ type: 'S', name }), serialize.sync()]),
      { syncToFs: false },
    );
    return parse.parseDescribeStatementResults(messages);
  }
  async function prepared(sql: string): Promise<{ name: string; types: number[] } | undefined> {
    const known = statements.get(sql);
    if (known || statements.size >= MAX_PREPARED) return known;
    const name = `s${statements.size}`;
    const statement = { name, types: await described(name, sql) };
    statements.set(sql, statement);
    return statement;
  }
  async function run<T>(sql: string, params: unknown[] | undefined, opts: QueryOptions | undefined): Promise<{ rows: T[] }> {
    let name = '';
    let types: number[] | undefined;
    if (opts?.prepare === false) {
      // Parsed and planned for its values on every run, as PostgreSQL does an unnamed statement, but
      // in one call like a prepared one: its parameters' types are learnt once.
      types = unprepared.get(sql);
      if (!types && unprepared.size < MAX_PREPARED) unprepared.set(sql, (types = await described('', sql)));
    } else {
      const statement = await prepared(sql);
      if (statement) ({ name, types } = statement);
    }
    if (!types) return { rows: (await pg.query<T>(sql, params as never)).rows };
    // Each value as PGlite's query serialises it: by the parameter's type, else its text.
    const values = (params ?? []).map((v, i) => {
      if (v === null || v === undefined) return null;
      const serializer = pg.serializers[types[i]];
      return serializer ? serializer(v) : String(v);
    });
    const { messages } = await pg.execProtocol(
      Buffer.concat([
        ...(name ? [] : [serialize.parse({ text: sql })]),
        serialize.bind({ statement: name, values }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
        serialize.sync(),
      ]),
    );
    return { rows: parse.parseResults(messages, pg.parsers)[0].rows as T[] };
  }
  const wrap = (q: { query: PGlite['query'] }): Queryable => ({
    async query<T>(sql: string, params?: unknown[]) {
      const r = await q.query<T>(sql, params as never);
      return { rows: r.rows };
    },
  });
  /** Statements on the connection a batch holds (the lock is taken once, for the batch). */
  const held: Queryable = { query: (sql, params, opts) => run(sql, params, opts) };
  let closed = false;
  /** Statements waiting for the connection. */
  let waiting = 0;
  /** Runs fn holding the connection; once the store is closed, every call fails as a database shut down (db/faults.ts). */
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    if (closed) return Promise.reject(new StoreUnavailableError('The embedded store is closed'));
    waiting++;
    return lock.runExclusive(() => {
      waiting--;
      if (closed) throw new StoreUnavailableError('The embedded store is closed');
      return fn();
    });
  };
  return {
    kind: 'pglite',
    created,
    dump: () => exclusive(() => pg.dumpDataDir('none')),
    query: (sql, params, opts) => exclusive(() => run(sql, params, opts)),
    // The one connection, for a batcher (db/batch.ts). A statement here runs to its end before
    // the event loop reads the next request (WebAssembly holds the thread), so none would ever
    // find it busy: a batcher always waits, and its claim takes the connection once this turn of
    // the event loop is done (setImmediate), carrying what arrived in that turn as one statement
    // (docs/store.md, "Batching").
    pool: {
      size: 1,
      saturated: () => true,
      usage: () => ({ open: closed ? 0 : 1, idle: closed || lock.isLocked() ? 0 : 1, waiting }),
      withConnection: (fn) => new Promise<void>((r) => setImmediate(r)).then(() => exclusive(() => fn(held))),
      open: async () => {},
    },
    transaction: (fn) => exclusive(() => pg.transaction((tx) => fn(wrap(tx)))),
    exec: (sql) =>
      exclusive(async () => {
        await pg.exec(sql);
      }),
    close: async () => {
      if (closed) return;
      try {
        await exclusive(() => {
          closed = true;
          return pg.close();
        });
      } finally {
        unlock();
      }
    },
  };
}
