// `node bench/cpu.mjs [seconds]`: where a request's time goes. CPU per request of the server
// process (Node: routing, auth, parsing rows, writing the response) and of its PostgreSQL backends
// (their /proc/<pid>/stat), with autocannon in a child process so its CPU is not counted.
// 100,000 contacts in a schema of its own (seeded once, dropped at the end). Not part of `npm run
// bench`: its numbers go into docs/store.md by hand. Env: DATABASE_URL or TEST_DATABASE_URL, POOL.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { buildServer, createApiKey, createWorkspace, openStore, systemClock } from '../dist/index.js';
import { seedContacts } from './seed-bulk.mjs';
const secs = Number(process.argv[2] ?? 4);
const url = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL;
const autocannonBin = fileURLToPath(new URL('../../../node_modules/.bin/autocannon', import.meta.url));
const schema = `cpu_${Date.now()}`;
const store = await openStore({ databaseUrl: url, schema, poolSize: Number(process.env.POOL ?? 10) });
let ws = (await store.db.query("SELECT id FROM workspaces WHERE slug = 'ab'")).rows[0];
if (!ws) {
  ws = await createWorkspace(store.db, { name: 'ab', slug: 'ab', rate_limit_per_minute: 1e9 }, new Date());
  await seedContacts(store.db, ws.id, 100000);
}
const key = await createApiKey(store.db, ws.id, { scopes: ['full_access'] }, new Date());
const app = await buildServer({ store, clock: systemClock, adminToken: 'x' });
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${app.server.address().port}`;
const body = JSON.stringify({
  first_name: 'Bench',
  last_name: 'Mark',
  email: 'bench@example.com',
  phone: '+12075550100',
  company: 'Bench Co',
});
const tick = 100; // USER_HZ
const pgPids = async () =>
  (await store.db.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = ''")).rows.map(
    (r) => r.pid,
  );
const pgCpu = (pids) =>
  pids.reduce((a, p) => {
    try {
      const f = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
      return a + ((Number(f[11]) + Number(f[12])) * 1000) / tick;
    } catch {
      return a;
    }
  }, 0);
/** autocannon in a child process; with a plan file, each connection runs its own requests (client-plan.cjs). */
function load(path, extra, duration, plan) {
  if (!plan)
    return spawn(autocannonBin, [
      '-j',
      '-c',
      '10',
      '-d',
      String(duration),
      '-H',
      `authorization=Bearer ${key.secret}`,
      '-H',
      'content-type=application/json',
      ...extra,
      `${base}${path}`,
    ]);
  const headers = { authorization: `Bearer ${key.secret}`, ...(extra.includes('PATCH') ? { 'content-type': 'application/json' } : {}) };
  const code = `import autocannon from 'autocannon'; const r = await autocannon(${JSON.stringify({ url: base, connections: 10, duration, headers, setupClient: clientPlan })}); process.stdout.write(JSON.stringify(r));`;
  return spawn(process.execPath, ['--input-type=module', '-e', code], {
    env: { ...process.env, BENCH_CLIENT_PLAN: plan },
    cwd: fileURLToPath(new URL('.', import.meta.url)),
  });
}
async function run(label, path, extra = [], plans = []) {
  const outOf = (c) =>
    new Promise((res) => {
      let o = '';
      c.stdout.on('data', (d) => (o += d));
      c.on('exit', () => res(JSON.parse(o)));
    });
  // warm: fill the pool
  await outOf(load(path, extra, 1, plans[0]));
  // The pool keeps its backends, idle or not, and may open more during the run: the backends are
  // read before and after, and one that appeared during the run counts all its CPU.
  const before = await pgPids();
  const pg0 = pgCpu(before);
  const n0 = process.cpuUsage();
  const out = await outOf(load(path, extra, secs, plans[1]));
  const n1 = process.cpuUsage(n0);
  const after = await pgPids();
  const pg1 = pgCpu(before) + pgCpu(after.filter((p) => !before.includes(p)));
  const reqs = out.requests.total;
  console.log(
    `${label.padEnd(10)} ${out.requests.average.toFixed(0)} req/s p99 ${out.latency.p99} ms | node ${((n1.user + n1.system) / 1000 / reqs).toFixed(2)} ms/req, pg ${((pg1 - pg0) / reqs).toFixed(2)} ms/req non2xx ${out.non2xx}`,
  );
}
await run('GET list', '/v1/contacts?limit=100');
await run('GET q', '/v1/contacts?limit=100&q=harbor');
await run('POST', '/v1/contacts', ['-m', 'POST', '-b', body]);
await run('GET me', '/v1/me');
// Each connection PATCHes its own 100 contacts (alternating a job title, so each PATCH writes) and
// DELETEs its own older contacts, never one twice (the same plans as bench.mjs).
const clientPlan = fileURLToPath(new URL('./client-plan.cjs', import.meta.url));
const older = (await store.db.query('SELECT id FROM contacts WHERE workspace_id = $1 ORDER BY created_at LIMIT 60000', [ws.id])).rows.map(
  (r) => r.id,
);
const planFile = (name, lists) => {
  const f = `${os.tmpdir()}/workspace-server-cpu-${process.pid}-${name}.json`;
  writeFileSync(f, JSON.stringify(lists));
  return f;
};
const lists = (offset, per, requests) =>
  Array.from({ length: 10 }, (_, c) => requests(older.slice(offset + c * per, offset + (c + 1) * per)));
const patches = (ids) =>
  ['A', 'B'].flatMap((t) => ids.map((id) => ({ method: 'PATCH', path: `/v1/contacts/${id}`, body: JSON.stringify({ job_title: t }) })));
const deletes = (ids) => ids.map((id) => ({ method: 'DELETE', path: `/v1/contacts/${id}` }));
await run('PATCH', '', ['PATCH'], [planFile('patch-warm', lists(0, 100, patches)), planFile('patch', lists(1000, 100, patches))]);
await run('DELETE', '', ['DELETE'], [planFile('delete-warm', lists(2000, 1000, deletes)), planFile('delete', lists(12000, 4500, deletes))]);
await app.close();
await store.db.query(`DROP SCHEMA "${schema}" CASCADE`);
await store.close();
