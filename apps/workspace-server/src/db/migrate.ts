import type { Db } from './db.js';

/** One step of the schema: applied once, in version order, and recorded in schema_migrations. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Applies the migrations not yet recorded, in version order whatever order they are listed in;
 * an advisory lock keeps two processes on one database from racing. The registry of what to apply
 * is src/migrations.ts, which the modules add to.
 */
export async function applyMigrations(db: Db, migrations: readonly Migration[]): Promise<number[]> {
  return db.transaction(async (tx) => {
    // One lock for the whole database: CREATE EXTENSION is database-wide even when schemas differ.
    await tx.query('SELECT pg_advisory_xact_lock(7340001)');
    await tx.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await tx.query<{ version: number }>('SELECT version FROM schema_migrations');
    const done = new Set(rows.map((r) => Number(r.version)));
    const applied: number[] = [];
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(m.version)) continue;
      for (const stmt of splitStatements(m.sql)) await tx.query(stmt);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    }
    return applied;
  });
}

/** Our migrations hold no semicolons inside literals or bodies, so splitting on ";\n" is exact. */
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*\n/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.length > 0);
}
