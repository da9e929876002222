import { mkdirSync } from 'node:fs';
import type { Db } from './db/db.js';
import { migrate, migrations } from './migrations.js';
import { dropImage, imageFile, readImage, saveImage } from './db/image.js';
import { openPglite, type PgliteDb } from './db/pglite.js';
import { startVacuuming } from './db/vacuum.js';
import { openPostgres } from './db/postgres.js';
import { setContactTextCache } from './modules/contacts/cache.js';
import { setBatching } from './db/batch.js';

export interface StoreOptions {
  /** PostgreSQL connection string; when absent, the embedded PGlite store is used. */
  databaseUrl?: string;
  /** PostgreSQL schema (search_path) to use; tests give each file its own. */
  schema?: string;
  /** Embedded store directory; ignored with memory or databaseUrl. */
  dataDir?: string;
  /** Ephemeral embedded store. */
  memory?: boolean;
  poolSize?: number;
  /** PostgreSQL only: false sends every statement unnamed, for a pooler in transaction mode (db/postgres.ts). */
  preparedStatements?: boolean;
  /** Characters of contacts' JSON text the list may reuse (modules/contacts/cache.ts ContactTextCache); 0 turns it off. */
  contactCacheChars?: number;
  /** Lists waiting for a connection sent several in one statement (db/batch.ts); default true. */
  batching?: boolean;
  /**
   * PGlite only: how often the store looks for tables to vacuum and analyse, as PostgreSQL's
   * autovacuum would (db/vacuum.ts); default its `autovacuum_naptime` (a minute), 0 never.
   */
  vacuumMs?: number;
}

export interface Store {
  db: Db;
  close(): Promise<void>;
}

/** The embedded store, from the saved fresh database where there is one (db/image.ts). */
function openEmbedded(dataDir: string | undefined): Promise<PgliteDb> {
  const file = imageFile(migrations);
  const image = file ? readImage(file) : undefined;
  return openPglite(dataDir, { image, onBadImage: () => file && dropImage(file) });
}

/** A database initdb made and the migrations just brought up to date is saved as the image for later stores. */
async function keepImage(db: PgliteDb): Promise<void> {
  const file = imageFile(migrations);
  if (db.created && file && !readImage(file)) await saveImage(file, await db.dump());
}

/** Opens the store and applies migrations, so a returned store is always ready. */
export async function openStore(opts: StoreOptions): Promise<Store> {
  let db: Db;
  if (opts.databaseUrl) {
    db = await openPostgres({
      connectionString: opts.databaseUrl,
      schema: opts.schema,
      max: opts.poolSize,
      preparedStatements: opts.preparedStatements,
    });
  } else if (opts.memory || !opts.dataDir) {
    db = await openEmbedded(undefined);
  } else {
    mkdirSync(opts.dataDir, { recursive: true });
    db = await openEmbedded(opts.dataDir);
  }
  let stopVacuuming: () => void;
  try {
    await migrate(db);
    if (db.kind === 'pglite') await keepImage(db as PgliteDb);
    // PostgreSQL's own autovacuum looks after its tables; PGlite has none.
    stopVacuuming = db.kind === 'pglite' ? await startVacuuming(db, opts.vacuumMs) : () => {};
  } catch (e) {
    // Nothing half-open is left behind: the caller gets the error and no store to close.
    await db.close().catch(() => {});
    throw e;
  }
  if (opts.contactCacheChars !== undefined) setContactTextCache(db, opts.contactCacheChars);
  if (opts.batching === false) setBatching(db, false);
  return {
    db,
    close: () => {
      stopVacuuming();
      return db.close();
    },
  };
}
