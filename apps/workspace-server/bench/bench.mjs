// `npm run bench -w apps/workspace-server`: 100,000 contacts, autocannon on loopback against the
// real server on each store, beside a bare Fastify route serving the same bytes from memory (the
// floor). Records throughput and p99 ratios in docs/benchmarks.md.
// The load generator runs in a worker thread so it does not share the server's event loop.
// Env: BENCH_SECONDS (default 8), BENCH_CONNECTIONS (10), DATABASE_URL or TEST_DATABASE_URL for PostgreSQL.
import autocannon from 'autocannon';
import Fastify from 'fastify';
import os from 'node:os';
import { buildServer, createApiKey, createWorkspace, openStore, systemClock } from '../dist/index.js';
import { writeSection, machineLine } from '../../../scripts/bench-report.mjs';
import { seedContacts } from './seed-bulk.mjs';

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const pgUrl = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL;
const N = 100_000;

const newContact = JSON.stringify({ first_name: 'Bench', last_name: 'Mark', email: 'bench@example.com', phone: '+12075550100', company: 'Bench Co' });

function run(url, opts = {}) {
  return autocannon({ url, connections, duration: seconds, workers: 1, ...opts }).then((r) => ({
    rps: r.requests.average,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
  }));
}

async function benchStore(kind) {
  const schema = `bench_${Date.now()}`;
  const store = kind === 'postgres' ? await openStore({ databaseUrl: pgUrl, schema, poolSize: 10 }) : await openStore({ memory: true });
  const ws = await createWorkspace(store.db, { name: 'Bench', slug: 'bench', rate_limit_per_minute: 1_000_000_000 }, new Date());
  const key = await createApiKey(store.db, ws.id, { scopes: ['full_access'] }, new Date());
  const t0 = Date.now();
  await seedContacts(store.db, ws.id, N);
  const seedMs = Date.now() - t0;
  const app = await buildServer({ store, clock: systemClock, adminToken: 'bench' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${app.server.address().port}`;
  const headers = { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' };

  // The floor serves the very bytes the server returned, from memory, with no auth or store.
  const fetchText = async (path, init = {}) => (await fetch(`${base}${path}`, { headers, ...init })).text();
  const pagePlain = await fetchText('/v1/contacts?limit=100');
  const pageQ = await fetchText('/v1/contacts?limit=100&q=harbor');
  const created = await fetchText('/v1/contacts', { method: 'POST', body: newContact });
  const floor = Fastify();
  floor.get('/page', (_req, reply) => reply.type('application/json').send(pagePlain));
  floor.get('/page-q', (_req, reply) => reply.type('application/json').send(pageQ));
  floor.post('/create', (_req, reply) => reply.code(201).type('application/json').send(created));
  await floor.listen({ port: 0, host: '127.0.0.1' });
  const floorBase = `http://127.0.0.1:${floor.server.address().port}`;

  const rows = [];
  const scenarios = [
    ['GET /v1/contacts?limit=100', `${base}/v1/contacts?limit=100`, `${floorBase}/page`, {}],
    ['GET /v1/contacts?limit=100&q=harbor', `${base}/v1/contacts?limit=100&q=harbor`, `${floorBase}/page-q`, {}],
    ['POST /v1/contacts', `${base}/v1/contacts`, `${floorBase}/create`, { method: 'POST', body: newContact }],
  ];
  for (const [name, url, floorUrl, extra] of scenarios) {
    const server = await run(url, { headers, ...extra });
    const bare = await run(floorUrl, { headers: { 'content-type': 'application/json' }, ...extra });
    rows.push({ name, server, bare });
    process.stderr.write(`${kind} ${name}: ${server.rps.toFixed(0)} req/s p99 ${server.p99} ms (floor ${bare.rps.toFixed(0)} req/s, p99 ${bare.p99} ms)\n`);
  }
  await floor.close();
  await app.close();
  if (kind === 'postgres') await store.db.query(`DROP SCHEMA "${schema}" CASCADE`);
  await store.close();
  return { kind, seedMs, rows };
}

const loadBefore = os.loadavg()[0];
const results = [await benchStore('pglite')];
if (pgUrl) results.push(await benchStore('postgres'));

let md = `### Workspace server\n\n${machineLine()}; load average ${loadBefore.toFixed(1)} at start, ${os.loadavg()[0].toFixed(1)} at end\n\n`;
md += `Workspace of ${N.toLocaleString('en-US')} contacts; autocannon, ${connections} connections, ${seconds} s per run, loopback. `;
md += 'Floor: a bare Fastify route returning the same response bytes from memory. Ratios are floor ÷ server for throughput and server ÷ floor for p99 (lower is better; 1.0 would be free).\n\n';
md += '| Store | Request | req/s | p99 ms | floor req/s | floor p99 ms | throughput ratio | p99 ratio | non-2xx |\n|---|---|---|---|---|---|---|---|---|\n';
for (const r of results) {
  for (const x of r.rows) {
    md += `| ${r.kind === 'pglite' ? 'PGlite' : 'PostgreSQL'} | \`${x.name}\` | ${x.server.rps.toFixed(0)} | ${x.server.p99} | ${x.bare.rps.toFixed(0)} | ${x.bare.p99} | ${(x.bare.rps / Math.max(1, x.server.rps)).toFixed(1)}× | ${(x.server.p99 / Math.max(1, x.bare.p99)).toFixed(1)}× | ${x.server.non2xx + x.server.errors} |\n`;
  }
}
md += `\nSeeding ${N.toLocaleString('en-US')} contacts with set-based SQL: ${results.map((r) => `${r.kind} ${(r.seedMs / 1000).toFixed(1)} s`).join(', ')}.`;
md += ' Per request the server runs one statement for the key and rate-limit window; a list adds its page and its `total_count` (constant time unfiltered, a count of the matches with `q`; see docs/store.md); POST adds one transaction of 8 statements (contact, emails, phones, counter, timeline, read-back, outbox event). PGlite is single-threaded WebAssembly in the server process, so its throughput is one core\'s minus the server\'s own work.\n';
if (!pgUrl) md += '\nPostgreSQL was not measured: set DATABASE_URL or TEST_DATABASE_URL.\n';
writeSection('workspace-server', md);
process.stdout.write(md);
