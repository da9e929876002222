import type { Db } from './db/db.js';
import { applyMigrations, type Migration } from './db/migrate.js';
import { crmSchemaMigrations } from './db/schema.js';
import { catalogMigrations } from './modules/catalog/migrations.js';
import { webhookMigrations } from './modules/webhooks/migrations.js';

/**
 * The one migration set of both stores: the shared CRM tables, then each module's own. A module
 * with tables of its own adds its list here; versions, not this order, decide what runs first.
 */
export const migrations: readonly Migration[] = [...crmSchemaMigrations, ...catalogMigrations, ...webhookMigrations];

/** Applies the pending migrations of the set (db/migrate.ts). */
export function migrate(db: Db): Promise<number[]> {
  return applyMigrations(db, migrations);
}
