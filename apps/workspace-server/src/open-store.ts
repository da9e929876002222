import { existsSync, mkdirSync } from 'node:fs';
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

/** The embedded store, from the saved fresh database where there is one (db/image.ts), and that image's file. */
async function openEmbedded(dataDir: string | undefined): Promise<{ db: PgliteDb; image?: string }> {
  const image = imageFile(migrations);
  const db = await openPglite(dataDir, { image: image ? readImage(image) : undefined, onBadImage: () => image && dropImage(image) });
  return { db, image };
}

/** A database initdb just made, now migrated, is saved as the image for later stores (unless another process saved it first). */
async function keepImage({ db, image }: { db: PgliteDb; image?: string }): Promise<void> {
  if (db.created && image && !existsSync(image)) await saveImage(image, await db.dump());
}

/** Opens the store and applies migrations, so a returned store is always ready. */
export async function openStore(opts: StoreOptions): Promise<Store> {
  let db: Db;
  let embedded: Awaited<ReturnType<typeof openEmbedded>> | undefined;
  if (opts.databaseUrl) {
    db = await openPostgres({
      connectionString: opts.databaseUrl,
      schema: opts.schema,
      max: opts.poolSize,
      preparedStatements: opts.preparedStatements,
    });
  } else {
    const dataDir = opts.memory ? undefined : opts.dataDir;
    if (dataDir) mkdirSync(dataDir, { recursive: true });
    embedded = await openEmbedded(dataDir);
    db = embedded.db;
  }
  let stopVacuuming: () => void;
  try {
    await migrate(db);
    if (embedded) await keepImage(embedded);
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
