// What batching creations saves (docs/store.md, "Batching"): PostgreSQL
// backend CPU per POST /v1/contacts creation, k creations of k workspaces gathered behind one held
// connection and sent as one statement (the store's creation batcher), against the same creations
// one by one (batching off), through createContact with each request's authentication as the route
// defers it. Twelve alternating blocks of 150 rounds on one pooled connection, CPU from
// /proc/<backend pid>/stat. Usage: K=8 DATABASE_URL=postgres://… node bench/creation-batching.mjs
import { readFileSync } from 'node:fs';
import { openStore, createWorkspace, createApiKey } from '../dist/index.js';
import { setBatching } from '../dist/db/batch.js';
import { createContact } from '../dist/modules/contacts/create.js';
import { authParams, admitted } from '../dist/modules/workspaces/store.js';
import { grantingScopes } from '../dist/shared/scopes.js';
const url = process.env.DATABASE_URL;
const schema = `cbatch_${Date.now()}`;
const N = 400;
const setup = await openStore({ databaseUrl: url, schema });
const now = new Date();
const tenants = [];
for (let i = 0; i < N; i++) {
  const ws = await createWorkspace(setup.db, { name: `T${i}`, slug: `t-${i}` }, now);
  tenants.push({ ws: ws.id, secret: (await createApiKey(setup.db, ws.id, { scopes: ['full_access'] }, now)).secret });
}
await setup.db.query(`INSERT INTO contacts (id, workspace_id, first_name, last_name, custom_fields, search_text, created_at, updated_at)
   SELECT 'con_b' || w.n || '_' || g, w.id, 'First' || g, 'Last' || g, '{}'::jsonb, 'x', now() - g * interval '1 minute', now() - g * interval '1 minute'
     FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM workspaces) w, generate_series(1, 100) g`);
await setup.db.query('ANALYZE');
await setup.close();
const store = await openStore({ databaseUrl: url, schema, poolSize: 1 });
const db = store.db;
const pid = await db.pool.withConnection(async (c) => (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p);
const ticks = () => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};
const scopes = grantingScopes('write_contacts');
const body = { first_name: 'Load', last_name: 'Tenant', email: 'load@example.com', company: 'Load Co' };
let next = 0;
async function round(k, batched) {
  setBatching(db, batched);
  let release;
  const gate = new Promise((r) => (release = r));
  const held = db.pool.withConnection(() => gate);
  const at = new Date();
  const calls = [];
  for (let j = 0; j < k; j++) {
    const t = tenants[next++ % N];
    const params = authParams(t.secret, at);
    const auth = {
      workspaceId: t.ws,
      params,
      scopes,
      settled: false,
      admit: (row) => {
        auth.settled = true;
        admitted(row, params);
      },
      settle: async () => {},
    };
    calls.push(createContact(db, t.ws, body, at, auth));
  }
  release();
  await held;
  await Promise.all(calls);
}
const K = Number(process.env.K ?? 8),
  ROUNDS = 150;
const res = { one: [], batch: [] };
for (let b = 0; b < 12; b++) {
  for (const mode of b % 2 ? ['batch', 'one'] : ['one', 'batch']) {
    const c0 = ticks();
    const t0 = performance.now();
    for (let r = 0; r < ROUNDS; r++) await round(K, mode === 'batch');
    res[mode].push({ cpu: (ticks() - c0) / (ROUNDS * K), wall: (performance.now() - t0) / (ROUNDS * K) });
  }
}
const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const ratios = res.batch.map((x, i) => x.cpu / res.one[i].cpu);
console.log(
  `k=${K}: PG CPU per creation one ${med(res.one.map((x) => x.cpu)).toFixed(3)} ms, batch ${med(res.batch.map((x) => x.cpu)).toFixed(3)} ms; pair ratios ${ratios.map((r) => r.toFixed(2)).join(' ')} median ${med(ratios).toFixed(2)}; wall per creation ${med(res.one.map((x) => x.wall)).toFixed(3)} vs ${med(res.batch.map((x) => x.wall)).toFixed(3)}`,
);
await store.db.query(`DROP SCHEMA "${schema}" CASCADE`);
await store.close();
