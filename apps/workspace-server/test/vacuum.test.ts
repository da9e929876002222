import { describe, expect, it } from 'vitest';
import type { Db } from '../src/db/db.js';
import { vacuumDue } from '../src/db/vacuum.js';
import { openStore } from '../src/index.js';

/** The table's counters as PGlite's cumulative statistics hold them once its pending ones are flushed. */
async function counters(db: Db, table: string) {
  await db.query('SELECT pg_stat_force_next_flush()');
  const { rows } = await db.query<{ dead: number; vacuumed: boolean; analysed: boolean }>(
    `SELECT n_dead_tup::int AS dead, last_vacuum IS NOT NULL AS vacuumed, last_analyze IS NOT NULL AS analysed FROM pg_stat_user_tables WHERE relname = $1`,
    [table],
  );
  return rows[0];
}

describe("PGlite vacuums and analyses its tables itself, as PostgreSQL's autovacuum would", () => {
  it("by autovacuum's rule: past a table's thresholds, not before", async () => {
    const store = await openStore({ memory: true, vacuumMs: 0 });
    try {
      const db = store.db;
      // A store just migrated has nothing worth a pass.
      await db.query('SELECT pg_stat_force_next_flush()');
      expect(await vacuumDue(db)).toEqual([]);
      await db.query('CREATE TABLE scratch (id int PRIMARY KEY, s text)');
      await db.query("INSERT INTO scratch SELECT g, 'a' FROM generate_series(1, 2000) g");
      await counters(db, 'scratch');
      // 2,000 inserts into a table never analysed: past the insert threshold (1,000) and the analyse threshold (50).
      expect(await vacuumDue(db)).toEqual(['VACUUM (ANALYZE) public.scratch']);
      expect(await counters(db, 'scratch')).toMatchObject({ vacuumed: true, analysed: true });
      // 100 rows changed of 2,000: under 50 + 0.2 × 2,000 dead rows and 50 + 0.1 × 2,000 changes.
      await db.query("UPDATE scratch SET s = 'b' WHERE id <= 100");
      expect(await counters(db, 'scratch')).toMatchObject({ dead: 100 });
      expect(await vacuumDue(db)).toEqual([]);
      // 300 more: past the analyse threshold (250 changes), not the vacuum one (450 dead).
      await db.query("UPDATE scratch SET s = 'c' WHERE id > 1700");
      await counters(db, 'scratch');
      expect(await vacuumDue(db)).toEqual(['ANALYZE public.scratch']);
      // 500 more: past the vacuum threshold; the dead versions are taken back.
      await db.query("UPDATE scratch SET s = 'd' WHERE id <= 500");
      expect((await counters(db, 'scratch')).dead).toBeGreaterThan(450);
      expect(await vacuumDue(db)).toEqual(['VACUUM (ANALYZE) public.scratch']);
      expect(await counters(db, 'scratch')).toMatchObject({ dead: 0 });
    } finally {
      await store.close();
    }
  });

  it('on its own, every vacuumMs', async () => {
    const store = await openStore({ memory: true, vacuumMs: 50 });
    const db = store.db;
    try {
      await db.query('CREATE TABLE scratch (id int PRIMARY KEY, s text)');
      await db.query("INSERT INTO scratch SELECT g, 'a' FROM generate_series(1, 2000) g");
      await db.query("UPDATE scratch SET s = 'b'");
      await db.query('SELECT pg_stat_force_next_flush()');
      const deadline = Date.now() + 10_000;
      while (!(await counters(db, 'scratch')).vacuumed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await counters(db, 'scratch')).toMatchObject({ vacuumed: true, analysed: true, dead: 0 });
    } finally {
      await store.close();
    }
  });
});
