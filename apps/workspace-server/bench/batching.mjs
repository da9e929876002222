// Would batching concurrent list requests into one statement pay? (docs/store.md, "Batching")
// A list's statement is mostly per-statement work (executor start-up, plan cache, commit); this
// measures PostgreSQL backend CPU per tenant page for a list-shaped statement (the tenant's
// rate-limit window upsert, its workspace row, its first 21 contact ids and row versions) run once per tenant, against one statement carrying k tenants' pages
// (unnest WITH ORDINALITY, LATERAL page), k = 2, 4, 8, 16. Alternating blocks on one connection,
// CPU from /proc/<backend pid>/stat. Usage: DATABASE_URL=postgres://… node bench/batching.mjs
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { openStore, createWorkspace } from '../dist/index.js';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('set DATABASE_URL');
const TENANTS = 1000;
const schema = `batching_${Date.now()}`;
const store = await openStore({ databaseUrl: url, schema });
const now = new Date();
for (let i = 0; i < TENANTS; i++) await createWorkspace(store.db, { name: `Tenant ${i}`, slug: `tenant-${i}` }, now);
await store.db.query(
  `INSERT INTO contacts (id, workspace_id, first_name, last_name, custom_fields, search_text, created_at, updated_at)
   SELECT 'con_b' || w.n || '_' || g, w.id, 'First' || g, 'Last' || g, '{}'::jsonb, 'x', now() - g * interval '1 minute', now() - g * interval '1 minute'
     FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM workspaces) w, generate_series(1, 100) g`,
);
await store.db.query('ANALYZE');
const ids = (await store.db.query('SELECT id FROM workspaces ORDER BY id')).rows.map((r) => r.id);
await store.close();

const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema},public` });
await client.connect();
const pid = (await client.query('SELECT pg_backend_pid() AS p')).rows[0].p;
const ticks = () => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(f[11]) + Number(f[12]);
};

const single = {
  name: 'list1',
  text: `WITH w AS (SELECT id, rate_limit_per_minute FROM workspaces WHERE id = $1),
    rl AS (INSERT INTO rate_limit_windows (workspace_id, window_start, count) SELECT id, $2, 1 FROM w
           ON CONFLICT (workspace_id, window_start) DO UPDATE SET count = rate_limit_windows.count + 1 RETURNING count)
   SELECT (SELECT count FROM rl) AS n, (SELECT string_agg(p.id || ' ' || p.v, ' ') FROM (
     SELECT c.id, c.xmin::text AS v FROM contacts c WHERE c.workspace_id = $1 ORDER BY c.created_at DESC, c.id DESC LIMIT 21) p) AS page`,
};
const batched = {
  name: 'listN',
  text: `WITH t AS (SELECT x.ws, x.ord FROM unnest($1::text[]) WITH ORDINALITY AS x(ws, ord)),
    w AS (SELECT w.id, t.ord FROM t JOIN workspaces w ON w.id = t.ws),
    rl AS (INSERT INTO rate_limit_windows (workspace_id, window_start, count) SELECT id, $2, 1 FROM w
           ON CONFLICT (workspace_id, window_start) DO UPDATE SET count = rate_limit_windows.count + 1 RETURNING workspace_id, count)
   SELECT w.ord, rl.count AS n, pg.page FROM w JOIN rl ON rl.workspace_id = w.id,
     LATERAL (SELECT string_agg(p.id || ' ' || p.v, ' ') AS page FROM (
       SELECT c.id, c.xmin::text AS v FROM contacts c WHERE c.workspace_id = w.id ORDER BY c.created_at DESC, c.id DESC LIMIT 21) p) pg
   ORDER BY w.ord`,
};
let window = 0;
let next = 0;
const tenant = () => ids[next++ % ids.length];
async function block(k, pages) {
  window++; // a fresh window per block keeps every count small, as at 120 a minute
  const t0 = ticks();
  if (k === 1) for (let i = 0; i < pages; i++) await client.query({ ...single, values: [tenant(), window] });
  else for (let i = 0; i < pages / k; i++) await client.query({ ...batched, values: [Array.from({ length: k }, tenant), window] });
  return ((ticks() - t0) * 10) / pages; // ms of backend CPU per page (USER_HZ 100)
}
const sizes = [1, 2, 4, 8, 16];
const PAGES = 3200;
for (const k of sizes) await block(k, 800); // warm plans and caches
const runs = Object.fromEntries(sizes.map((k) => [k, []]));
for (let round = 0; round < 6; round++) for (const k of round % 2 ? [...sizes].reverse() : sizes) runs[k].push(await block(k, PAGES));
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const base = median(runs[1]);
console.log(
  `PostgreSQL backend CPU per tenant page (ms), median of 6 blocks of ${PAGES} pages; load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
);
for (const k of sizes)
  console.log(
    `batch of ${String(k).padStart(2)}: ${median(runs[k]).toFixed(4)} ms/page (${(median(runs[k]) / base).toFixed(2)}× one per statement)  blocks: ${runs[k].map((x) => x.toFixed(3)).join(' ')}`,
  );
await client.query(`DROP SCHEMA "${schema}" CASCADE`);
await client.end();
