import type { Db } from './db.js';

/**
 * PGlite runs no autovacuum: it is one backend, with no launcher to start workers. Without it,
 * dead row versions stay in the tables and their indexes (a list page and a search read past
 * every old version of an edited contact), and the planner never has statistics. So a PGlite store
 * does the autovacuum daemon's work itself, by the daemon's own rule and settings: a table is
 * vacuumed when its dead rows pass `autovacuum_vacuum_threshold` + `autovacuum_vacuum_scale_factor`
 * × its rows (or its inserts since the last vacuum pass the `_insert_` pair, which keeps the
 * visibility map, and so index-only scans, current, or its oldest unfrozen transaction id is older
 * than `autovacuum_freeze_max_age`, before the ids wrap around), and analysed when its changes
 * since the last analysis pass `autovacuum_analyze_threshold` + `autovacuum_analyze_scale_factor` ×
 * its rows; it looks every `autovacuum_naptime` (docs/store.md, "PGlite's autovacuum").
 */
const DUE = `
  SELECT format('%I.%I', s.schemaname, s.relname) AS name,
         s.n_dead_tup > current_setting('autovacuum_vacuum_threshold')::float8 + current_setting('autovacuum_vacuum_scale_factor')::float8 * greatest(c.reltuples, 0)
           OR s.n_ins_since_vacuum > current_setting('autovacuum_vacuum_insert_threshold')::float8 + current_setting('autovacuum_vacuum_insert_scale_factor')::float8 * greatest(c.reltuples, 0)
           OR age(c.relfrozenxid) > current_setting('autovacuum_freeze_max_age')::float8 AS vacuum,
         s.n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8 + current_setting('autovacuum_analyze_scale_factor')::float8 * greatest(c.reltuples, 0) AS analyze
    FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
   ORDER BY s.relname`;

/** Vacuums and analyses the tables autovacuum would now; returns what it did, as `VACUUM (ANALYZE) x` or `ANALYZE x`. */
export async function vacuumDue(db: Db): Promise<string[]> {
  const { rows } = await db.query<{ name: string; vacuum: boolean; analyze: boolean }>(DUE);
  const done: string[] = [];
  for (const r of rows) {
    // One table at a time: each statement holds the store's lock, so requests wait for one table's pass, not all.
    const sql = r.vacuum ? `VACUUM (ANALYZE) ${r.name}` : r.analyze ? `ANALYZE ${r.name}` : '';
    if (!sql) continue;
    await db.exec(sql);
    done.push(sql);
  }
  return done;
}

/**
 * Runs `vacuumDue` every `everyMs` (default: the store's `autovacuum_naptime`), one pass at a time;
 * returns the function that stops it. A pass that fails is retried at the next; it never throws.
 */
export async function startVacuuming(db: Db, everyMs?: number): Promise<() => void> {
  const ms =
    everyMs ??
    1000 * Number((await db.query<{ s: string }>("SELECT setting AS s FROM pg_settings WHERE name = 'autovacuum_naptime'")).rows[0].s);
  if (!(ms > 0)) return () => {};
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    vacuumDue(db)
      .catch(() => undefined)
      .finally(() => (running = false));
  }, ms);
  timer.unref();
  return () => clearInterval(timer);
}
