// PGlite has no autovacuum; the store runs autovacuum's rule itself (db/vacuum.ts). This measures
// why, with the webhook tables' own churn: each day, 4,000 events and their 20,000 finished
// deliveries (5 endpoints) are written, and the retention pruning (pruneBefore, as the worker runs
// it hourly) deletes the day before's. Without a vacuum, the space of deleted rows is never
// recorded as free, so every day's rows go at the end of the tables, which grow without bound.
// Records the tables' size (with their indexes) after each day, pass off and on, and each pass's
// time, in docs/benchmarks.md (part of `npm run bench`). Usage: node bench/pglite-vacuum.mjs
import { openStore, createWorkspace } from '../dist/index.js';
import { machineLine, writeSection } from '../../../scripts/bench-report.mjs';
import { vacuumDue } from '../dist/db/vacuum.js';
import { pruneBefore } from '../dist/modules/webhooks/store.js';

const DAYS = Number(process.env.DAYS ?? 12);
const DAY = 86_400_000;

async function run(pass) {
  const store = await openStore({ memory: true, vacuumMs: 0 });
  const db = store.db;
  const start = new Date('2026-01-01T00:00:00Z');
  const ws = await createWorkspace(db, { name: 'V', slug: 'v' }, start);
  for (let e = 0; e < 5; e++)
    await db.query(
      `INSERT INTO webhook_endpoints (id, workspace_id, url, event_types, signing_key, verified_at, created_at, updated_at) VALUES ($1, $2, $3, '["contact.created"]', 'k', $4, $4, $4)`,
      [`ep_${e}`, ws.id, `https://h.example.com/${e}`, start.toISOString()],
    );
  const mb = [],
    passMs = [];
  for (let day = 0; day < DAYS; day++) {
    const at = new Date(start.getTime() + day * DAY).toISOString();
    await db.query(
      `INSERT INTO events (id, workspace_id, type, data, created_at)
       SELECT 'evt_' || $2::int || '_' || g, $1, 'contact.created', jsonb_build_object('id', 'con_' || g, 'first_name', 'First ' || g, 'last_name', 'Last', 'emails', jsonb_build_array(jsonb_build_object('email', 'f' || g || '@example.com'))), $3::timestamptz
         FROM generate_series(1, 4000) g`,
      [ws.id, day, at],
    );
    await db.query(
      `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, payload, status, attempt_count, event_created_at, created_at, updated_at, completed_at)
       SELECT 'dlv_' || $2::int || '_' || g || '_' || k, $1, 'ep_' || k, 'evt_' || $2::int || '_' || g, 'contact.created', ev.data::text, 'succeeded', 1, $3::timestamptz, $3::timestamptz, $3::timestamptz, $3::timestamptz
         FROM generate_series(1, 4000) g CROSS JOIN generate_series(0, 4) k CROSS JOIN LATERAL (SELECT data FROM events WHERE id = 'evt_' || $2::int || '_' || g) ev`,
      [ws.id, day, at],
    );
    // Retention of one day: the day before's events and deliveries go.
    await pruneBefore(db, new Date(start.getTime() + day * DAY));
    await db.query('SELECT pg_stat_force_next_flush()');
    if (pass) {
      const a = performance.now();
      await vacuumDue(db);
      passMs.push(performance.now() - a);
    }
    const { rows } = await db.query(
      `SELECT (pg_total_relation_size('events') + pg_total_relation_size('webhook_deliveries')) / 1048576.0 AS mb`,
    );
    mb.push(Number(rows[0].mb));
  }
  await store.close();
  return { mb, passMs };
}

const machine = machineLine();
const off = await run(false);
const on = await run(true);
const growth = (mb) => (mb[DAYS - 1] - mb[Math.floor(DAYS / 2) - 1]) / (DAYS - Math.floor(DAYS / 2));
let md = `Machine: ${machine}\n\n`;
md += `Sizes are the webhook tables' and their indexes' after each day's pruning (and pass).\n\n`;
md += '| Day | no pass MB | with the pass MB | the pass ms |\n|---|---|---|---|\n';
for (let d = 0; d < DAYS; d++) md += `| ${d + 1} | ${off.mb[d].toFixed(1)} | ${on.mb[d].toFixed(1)} | ${Math.round(on.passMs[d])} |\n`;
md += `\nThe tables hold at most two days' rows. Over the second half of the run they grew by ${growth(off.mb).toFixed(1)} MB a day without the pass and ${growth(on.mb).toFixed(1)} MB a day with it.\n`;
writeSection('workspace-server-pglite-vacuum', md);
process.stdout.write(md);
