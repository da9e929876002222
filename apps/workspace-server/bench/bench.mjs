// `npm run bench -w apps/workspace-server`: 100,000 contacts, autocannon on loopback against the
// real server on each store, beside a bare Fastify route serving the same bytes from memory (the
// floor). Records throughput and p99 ratios in docs/benchmarks.md.
// The load generator runs in a worker thread so it does not share the server's event loop.
// Env: BENCH_SECONDS (default 8), BENCH_CONNECTIONS (10), DATABASE_URL or TEST_DATABASE_URL for PostgreSQL.
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { buildServer, countRoundTrips, createApiKey, createWorkspace, openStore, setContactTextCache, systemClock } from '../dist/index.js';
import { writeSection, machineLine } from '../../../scripts/bench-report.mjs';
import { seedContacts } from './seed-bulk.mjs';

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const pgUrl = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL;
const N = 100_000;

const clientPlan = fileURLToPath(new URL('./client-plan.cjs', import.meta.url));
const newContact = JSON.stringify({
  first_name: 'Bench',
  last_name: 'Mark',
  email: 'bench@example.com',
  phone: '+12075550100',
  company: 'Bench Co',
});

function run(url, opts = {}) {
  return autocannon({ url, connections, duration: seconds, workers: 1, ...opts }).then((r) => ({
    rps: r.requests.average,
    p99: r.latency.p99,
    total: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
  }));
}

async function benchStore(kind) {
  const schema = `bench_${Date.now()}`;
  // PostgreSQL with the server's default pool (two connections per core, at least 4).
  const store = kind === 'postgres' ? await openStore({ databaseUrl: pgUrl, schema }) : await openStore({ memory: true });
  const ws = await createWorkspace(store.db, { name: 'Bench', slug: 'bench', rate_limit_per_minute: 1_000_000_000 }, new Date());
  const key = await createApiKey(store.db, ws.id, { scopes: ['full_access'] }, new Date());
  const t0 = Date.now();
  await seedContacts(store.db, ws.id, N);
  const seedMs = Date.now() - t0;
  // Statements are counted per request; the webhook worker (its own bench) does not run here.
  const db = countRoundTrips(store.db);
  const app = await buildServer({
    store: { db, close: () => store.close() },
    clock: systemClock,
    adminToken: 'bench',
    webhooks: { pollMs: 0 },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${app.server.address().port}`;
  // The same store with the contact text cache off: every page writes every contact's text.
  const dbOff = countRoundTrips(store.db);
  setContactTextCache(dbOff, 0);
  const appOff = await buildServer({
    store: { db: dbOff, close: async () => {} },
    clock: systemClock,
    adminToken: 'bench',
    webhooks: { pollMs: 0 },
  });
  await appOff.listen({ port: 0, host: '127.0.0.1' });
  const baseOff = `http://127.0.0.1:${appOff.server.address().port}`;
  const headers = { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' };

  // The floor serves the very bytes the server returned, from memory, with no auth or store.
  const fetchText = async (path, init = {}) => (await fetch(`${base}${path}`, { headers, ...init })).text();
  const pagePlain = await fetchText('/v1/contacts?limit=100');
  const pageQ = await fetchText('/v1/contacts?limit=100&q=harbor');
  const created = await fetchText('/v1/contacts', { method: 'POST', body: newContact });
  // A connection's list sets title A on each of its contacts, then B, and cycles: every PATCH changes the contact.
  const patchBody = (title) => JSON.stringify({ job_title: title });
  const patched = await fetchText(`/v1/contacts/${JSON.parse(created).id}`, { method: 'PATCH', body: patchBody('A') });
  const auth = { authorization: headers.authorization }; // a DELETE has no body, so no content-type
  const deleted = await fetchText(`/v1/contacts/${JSON.parse(created).id}`, { method: 'DELETE', headers: auth });
  const floor = Fastify();
  floor.get('/page', (_req, reply) => reply.type('application/json').send(pagePlain));
  floor.get('/page-q', (_req, reply) => reply.type('application/json').send(pageQ));
  floor.post('/create', (_req, reply) => reply.code(201).type('application/json').send(created));
  floor.patch('/patch', (_req, reply) => reply.type('application/json').send(patched));
  floor.delete('/delete', (_req, reply) => reply.type('application/json').send(deleted));
  await floor.listen({ port: 0, host: '127.0.0.1' });
  const floorBase = `http://127.0.0.1:${floor.server.address().port}`;

  // Each connection PATCHes its own 100 contacts in turn, and DELETEs its own 5,000 (older than
  // the first page), so writes neither contend on one row nor repeat a deletion.
  const older = (
    await store.db.query('SELECT id FROM contacts WHERE workspace_id = $1 ORDER BY created_at LIMIT $2', [ws.id, connections * 5100])
  ).rows.map((r) => r.id);
  const plan = (offset, per, request) =>
    Array.from({ length: connections }, (_, c) => older.slice(offset + c * per, offset + (c + 1) * per).map(request));
  const planFile = (name, lists) => {
    const file = `${os.tmpdir()}/workspace-server-bench-${process.pid}-${name}.json`;
    writeFileSync(file, JSON.stringify(lists));
    return file;
  };
  const patchPlan = planFile(
    'patch',
    plan(0, 100, (id) => ['A', 'B'].map((t) => ({ method: 'PATCH', path: `/v1/contacts/${id}`, body: patchBody(t) }))).map((l) => [
      ...l.map((x) => x[0]),
      ...l.map((x) => x[1]),
    ]),
  );
  const deletePlan = planFile(
    'delete',
    plan(connections * 100, 5000, (id) => ({ method: 'DELETE', path: `/v1/contacts/${id}` })),
  );

  const rows = [];
  const scenarios = [
    ['GET /v1/contacts?limit=100', `${base}/v1/contacts?limit=100`, `${floorBase}/page`, {}],
    ['GET /v1/contacts?limit=100&q=harbor', `${base}/v1/contacts?limit=100&q=harbor`, `${floorBase}/page-q`, {}],
    ['GET /v1/contacts?limit=100 (text cache off)', `${baseOff}/v1/contacts?limit=100`, `${floorBase}/page`, {}, {}, undefined, dbOff],
    [
      'GET /v1/contacts?limit=100&q=harbor (text cache off)',
      `${baseOff}/v1/contacts?limit=100&q=harbor`,
      `${floorBase}/page-q`,
      {},
      {},
      undefined,
      dbOff,
    ],
    ['POST /v1/contacts', `${base}/v1/contacts`, `${floorBase}/create`, { method: 'POST', body: newContact }],
    [
      'PATCH /v1/contacts/:id (job_title)',
      base,
      `${floorBase}/patch`,
      { method: 'PATCH', body: patchBody('A') },
      { setupClient: clientPlan },
      patchPlan,
    ],
    ['DELETE /v1/contacts/:id', base, `${floorBase}/delete`, { method: 'DELETE' }, { setupClient: clientPlan }, deletePlan],
  ];
  for (const [name, url, floorUrl, extra, serverOnly = {}, planPath, counted = db] of scenarios) {
    if (planPath) process.env.BENCH_CLIENT_PLAN = planPath; // read by client-plan.cjs in autocannon's worker
    const noBody = extra.method === 'DELETE';
    counted.resetRoundTrips();
    const server = await run(url, { headers: noBody ? auth : headers, ...extra, ...serverOnly });
    server.statements = counted.roundTrips / Math.max(1, server.total);
    const bare = await run(floorUrl, { headers: noBody ? {} : { 'content-type': 'application/json' }, ...extra });
    rows.push({ name, server, bare });
    process.stderr.write(
      `${kind} ${name}: ${server.rps.toFixed(0)} req/s p99 ${server.p99} ms (floor ${bare.rps.toFixed(0)} req/s, p99 ${bare.p99} ms)\n`,
    );
  }
  await floor.close();
  await app.close();
  await appOff.close();
  if (kind === 'postgres') await store.db.query(`DROP SCHEMA "${schema}" CASCADE`);
  await store.close();
  return { kind, seedMs, rows };
}

const loadBefore = os.loadavg()[0];
const results = [await benchStore('pglite')];
if (pgUrl) results.push(await benchStore('postgres'));

let md = `Machine: ${machineLine()}; load average ${loadBefore.toFixed(1)} at start, ${os.loadavg()[0].toFixed(1)} at end\n\n`;
md += `Workspace of ${N.toLocaleString('en-US')} contacts; autocannon, ${connections} connections, ${seconds} s per run, loopback.\n\n`;
md +=
  '| Store | Request | req/s | p99 ms | floor req/s | floor p99 ms | throughput ratio | p99 ratio | statements per request | non-2xx |\n|---|---|---|---|---|---|---|---|---|---|\n';
for (const r of results) {
  for (const x of r.rows) {
    md += `| ${r.kind === 'pglite' ? 'PGlite' : 'PostgreSQL'} | \`${x.name}\` | ${x.server.rps.toFixed(0)} | ${x.server.p99} | ${x.bare.rps.toFixed(0)} | ${x.bare.p99} | ${(x.bare.rps / Math.max(1, x.server.rps)).toFixed(1)}× | ${(x.server.p99 / Math.max(1, x.bare.p99)).toFixed(1)}× | ${x.server.statements.toFixed(2)} | ${x.server.non2xx + x.server.errors} |\n`;
  }
}
md += `\nSeeding ${N.toLocaleString('en-US')} contacts with set-based SQL: ${results.map((r) => `${r.kind} ${(r.seedMs / 1000).toFixed(1)} s`).join(', ')}.`;
// The server's targets, and by how much each is missed.
const target = (kind, i) => results.find((r) => r.kind === kind)?.rows[i]?.server;
const lines = [];
const check = (label, x, want, unit = 'req/s') =>
  x !== undefined &&
  lines.push(
    `${label}: ${x.toFixed(0)} ${unit} against ≥ ${want} — ${x >= want ? 'met' : `missed by ${(want - x).toFixed(0)} ${unit}: ${((x / want) * 100).toFixed(0)} % of the target`}`,
  );
check('PostgreSQL GET list', target('postgres', 0)?.rps, 1000);
check('PostgreSQL `q` search', target('postgres', 1)?.rps, 500);
check('PostgreSQL POST', target('postgres', 4)?.rps, 1000);
const pgList = target('postgres', 0);
if (pgList)
  lines.push(`PostgreSQL GET list p99: ${pgList.p99} ms against ≤ 50 — ${pgList.p99 <= 50 ? 'met' : `missed by ${pgList.p99 - 50} ms`}`);
const pgListRow = results.find((r) => r.kind === 'postgres')?.rows[0];
if (pgListRow) {
  const ratio = pgListRow.bare.rps / Math.max(1, pgListRow.server.rps);
  lines.push(
    `PostgreSQL GET list against the floor: ${ratio.toFixed(1)}× against ≤ 10× — ${ratio <= 10 ? 'met' : `missed: ${(ratio / 10).toFixed(1)} times the allowed ratio`}`,
  );
}
check('PostgreSQL GET list with the text cache off', target('postgres', 2)?.rps, 1000);
check('PostgreSQL `q` search with the text cache off', target('postgres', 3)?.rps, 500);
// PGlite's targets are three times what the first embedded store served (102, 38 and 102 req/s).
[306, 114, 306].forEach((want, i) => check(`PGlite ${['GET list', '`q` search', 'POST'][i]}`, target('pglite', [0, 1, 4][i])?.rps, want));
md += `\nTargets:\n\n${lines.map((l) => `- ${l}`).join('\n')}\n`;
if (!pgUrl) md += '\nPostgreSQL was not measured: set DATABASE_URL or TEST_DATABASE_URL.\n';
writeSection('workspace-server', md);
process.stdout.write(md);
