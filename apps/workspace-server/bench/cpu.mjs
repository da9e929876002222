// `node bench/cpu.mjs [seconds]`: where a request's time goes. CPU per request of the server
// process (Node: routing, auth, parsing rows, writing the response) and of its PostgreSQL backends
// (their /proc/<pid>/stat), with autocannon in a child process so its CPU is not counted.
// 100,000 contacts in a schema of its own (seeded once, dropped at the end). Not part of `npm run
// bench`: its numbers go into docs/store.md by hand. Env: DATABASE_URL or TEST_DATABASE_URL, POOL.
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { buildServer, createApiKey, createWorkspace, openStore, systemClock } from '../dist/index.js';
import { seedContacts } from './seed-bulk.mjs';
const secs = Number(process.argv[2] ?? 4);
const url = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL;
const autocannonBin = fileURLToPath(new URL('../../../node_modules/.bin/autocannon', import.meta.url));
const schema = `cpu_${Date.now()}`;
const store = await openStore({ databaseUrl: url, schema, poolSize: Number(process.env.POOL ?? 10) });
let ws = (await store.db.query("SELECT id FROM workspaces WHERE slug = 'ab'")).rows[0];
if (!ws) { ws = await createWorkspace(store.db, { name: 'ab', slug: 'ab', rate_limit_per_minute: 1e9 }, new Date()); await seedContacts(store.db, ws.id, 100000); }
const key = await createApiKey(store.db, ws.id, { scopes: ['full_access'] }, new Date());
const app = await buildServer({ store, clock: systemClock, adminToken: 'x' });
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${app.server.address().port}`;
const body = JSON.stringify({ first_name: 'Bench', last_name: 'Mark', email: 'bench@example.com', phone: '+12075550100', company: 'Bench Co' });
const tick = 100; // USER_HZ
const pgPids = async () => (await store.db.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = ''")).rows.map((r) => r.pid);
const pgCpu = (pids) => pids.reduce((a, p) => { try { const f = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' '); return a + (Number(f[11]) + Number(f[12])) * 1000 / tick; } catch { return a; } }, 0);
async function run(label, path, extra = []) {
  // warm: fill the pool
  execFileSync(autocannonBin, ['-c', '10', '-d', '1', '-H', `authorization=Bearer ${key.secret}`, '-H', 'content-type=application/json', ...extra, `${base}${path}`], { stdio: 'ignore' });
  const pids = await pgPids();
  const pg0 = pgCpu(pids); const n0 = process.cpuUsage();
  const out = await new Promise((res) => { let o = ''; const c = spawn(autocannonBin, ['-j', '-c', '10', '-d', String(secs), '-H', `authorization=Bearer ${key.secret}`, '-H', 'content-type=application/json', ...extra, `${base}${path}`]); c.stdout.on('data', (d) => (o += d)); c.on('exit', () => res(JSON.parse(o))); });
  const n1 = process.cpuUsage(n0); const pg1 = pgCpu(pids);
  const reqs = out.requests.total;
  console.log(`${label.padEnd(10)} ${out.requests.average.toFixed(0)} req/s p99 ${out.latency.p99} ms | node ${((n1.user + n1.system) / 1000 / reqs).toFixed(2)} ms/req, pg ${((pg1 - pg0) / reqs).toFixed(2)} ms/req non2xx ${out.non2xx}`);
}
await run('GET list', '/v1/contacts?limit=100');
await run('GET q', '/v1/contacts?limit=100&q=harbor');
await run('POST', '/v1/contacts', ['-m', 'POST', '-b', body]);
await run('GET me', '/v1/me');
await app.close();
await store.db.query(`DROP SCHEMA "${schema}" CASCADE`);
await store.close();
