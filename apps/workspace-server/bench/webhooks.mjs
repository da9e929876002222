// `npm run bench:webhooks -w apps/workspace-server`: 5 verified endpoints on loopback, 10,000
// contact creations fanned out to all of them (50,000 signed deliveries), on each store.
//  - live: contacts created over HTTP (BENCH_WEBHOOK_CONNECTIONS concurrent) while the worker runs;
//    end-to-end latency is receipt time minus the event's created_at (the write's commit time).
//  - backlog: the same number of events already in the outbox when the worker starts; how fast
//    the pipeline alone (fan-out, claim, sign, POST, record) drains them.
// Receivers run in a worker thread, so they do not share the server's event loop.
// Env: BENCH_WEBHOOK_CONTACTS (10000), BENCH_WEBHOOK_CONNECTIONS (8), DATABASE_URL or TEST_DATABASE_URL.
import { Worker } from 'node:worker_threads';
import { buildServer, createApiKey, createWorkspace, openStore, systemClock } from '../dist/index.js';
import { createContact } from '../dist/modules/contacts/create.js';
import { DEFAULT_CONCURRENCY, DEFAULT_PER_ENDPOINT } from '../dist/modules/webhooks/store.js';
import { writeSection, machineLine } from '../../../scripts/bench-report.mjs';

const N = Number(process.env.BENCH_WEBHOOK_CONTACTS ?? 10_000);
const CONNECTIONS = Number(process.env.BENCH_WEBHOOK_CONNECTIONS ?? 8);
const ENDPOINTS = 5;
// The server's default attempts in flight unless set: what `serve` runs.
const CONCURRENCY = Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? DEFAULT_CONCURRENCY);
const pgUrl = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL;

const receiverCode = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const servers = [];
const latencies = [];
const created = [];
const seen = new Set();
let dup = 0, firstAt = 0, lastAt = 0;
function handler(req, res) {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const j = JSON.parse(body);
    if (j.type === 'webhook.verification') return res.end(j.data.challenge);
    const now = Date.now();
    const id = req.headers['x-service-delivery-id'];
    if (seen.has(id)) dup++; else seen.add(id);
    if (j.type === 'contact.created') {
      const at = Date.parse(j.created_at);
      latencies.push(now - at);
      created.push(at);
      if (!firstAt) firstAt = now;
      lastAt = now;
    }
    res.end('ok');
    if (process.env.BENCH_PROGRESS && seen.size % 500 === 0) console.log('received', seen.size, new Date().toISOString());
    if (seen.size === workerData.expect) parentPort.postMessage({ done: true, latencies, created, dup, firstAt, lastAt });
  });
}
(async () => {
  const urls = [];
  for (let i = 0; i < workerData.count; i++) {
    const s = http.createServer({ keepAliveTimeout: 60000 }, handler);
    await new Promise((r) => s.listen(0, '127.0.0.1', r));
    servers.push(s);
    urls.push('http://127.0.0.1:' + s.address().port + '/hook/' + i);
  }
  parentPort.postMessage({ urls });
  parentPort.on('message', (m) => {
    if (m === 'reset') { latencies.length = 0; created.length = 0; seen.clear(); dup = 0; firstAt = 0; lastAt = 0; }
    if (m === 'report') parentPort.postMessage({ report: true, latencies, created, dup, firstAt, lastAt, received: seen.size });
  });
})();
`;

const creatorCode = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { base, headers, rate, total } = workerData;
const body = JSON.stringify({ first_name: 'Hook', last_name: 'Paced', email: 'paced@example.com' });
// node:http with keep-alive, not fetch: on two cores the sender's own CPU is taken from the server
// under test, and fetch cost about twice as much per creation (28 % of a core against 12 %).
const url = new URL(base + '/v1/contacts');
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const post = () => new Promise((resolve, reject) => {
  const req = http.request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
    res.resume();
    res.on('end', () => resolve(res.statusCode));
    res.on('error', reject);
  });
  req.on('error', reject);
  req.end(body);
});
(async () => {
  const t0 = Date.now() + 100;
  const late = [];
  let failed = 0;
  await Promise.all(Array.from({ length: total }, async (_, i) => {
    const at = t0 + (i * 1000) / rate;
    await new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
    late.push(Date.now() - at);
    try {
      if ((await post()) !== 201) failed++;
    } catch { failed++; }
  }));
  parentPort.postMessage({ failed, late, sentMs: Date.now() - t0 });
})();
`;

function startReceivers(expect) {
  const worker = new Worker(receiverCode, { eval: true, workerData: { count: ENDPOINTS, expect } });
  const ready = new Promise((resolve) => worker.once('message', (m) => resolve(m.urls)));
  const done = new Promise((resolve) => worker.on('message', (m) => m.done && resolve(m)));
  return { worker, ready, done };
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function setup(kind, schema, webhooks) {
  const store = kind === 'postgres' ? await openStore({ databaseUrl: pgUrl, schema, poolSize: 12 }) : await openStore({ memory: true });
  const ws = await createWorkspace(store.db, { name: 'Bench', slug: `bench-${schema}`, rate_limit_per_minute: 1_000_000_000 }, new Date());
  const key = await createApiKey(store.db, ws.id, { scopes: ['full_access'] }, new Date());
  const app = await buildServer({
    store,
    clock: systemClock,
    adminToken: 'bench',
    webhooks: { allowInsecure: true, pollMs: 50, concurrency: CONCURRENCY, ...webhooks },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${app.server.address().port}`;
  const headers = { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' };
  return { store, ws, app, base, headers };
}

/** Stops the server and drops the run's schema, so runs leave nothing behind in the bench database. */
async function teardown(s, kind, schema) {
  await s.app.close();
  if (kind === 'postgres') await s.store.db.query(`DROP SCHEMA "${schema}" CASCADE`);
  await s.store.close();
}

async function registerEndpoints(base, headers, urls) {
  for (const url of urls) {
    const ep = await (
      await fetch(`${base}/v1/webhooks`, { method: 'POST', headers, body: JSON.stringify({ url, event_types: ['contact.created'] }) })
    ).json();
    const v = await (
      await fetch(`${base}/v1/webhooks/${ep.id}/verify`, { method: 'POST', headers: { authorization: headers.authorization } })
    ).json();
    if (!v.verified) throw new Error(`verification failed: ${JSON.stringify(v)}`);
  }
}

async function live(kind) {
  const schema = `benchwh_live_${Date.now()}`;
  const rc = startReceivers(N * ENDPOINTS);
  const urls = await rc.ready;
  const s = await setup(kind, schema);
  await registerEndpoints(s.base, s.headers, urls);
  const body = JSON.stringify({ first_name: 'Hook', last_name: 'Bench', email: 'hook@example.com' });
  const t0 = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < N) {
        next++;
        const r = await fetch(`${s.base}/v1/contacts`, { method: 'POST', headers: s.headers, body });
        if (r.status !== 201) throw new Error(`create failed: ${r.status}`);
        await r.arrayBuffer();
      }
    }),
  );
  const createdMs = Date.now() - t0;
  const res = await rc.done;
  const totalMs = res.lastAt - t0;
  await rc.worker.terminate();
  await teardown(s, kind, schema);
  const lat = res.latencies.sort((a, b) => a - b);
  return { createdMs, totalMs, p50: pct(lat, 50), p99: pct(lat, 99), max: lat[lat.length - 1], dup: res.dup };
}

/**
 * Live at a fixed rate: contact creations sent open-loop at RATE per second (each at its planned
 * time, whatever the previous ones are doing) for SECONDS, while the worker delivers to the 5
 * endpoints. Latency is receipt minus the event's created_at; a delivery not received within
 * 30 s after the last creation counts as lost.
 */
async function paced(kind, rate, seconds) {
  const total = rate * seconds;
  const schema = `benchwh_paced_${Date.now()}`;
  const rc = startReceivers(total * ENDPOINTS);
  const urls = await rc.ready;
  const s = await setup(kind, schema);
  await registerEndpoints(s.base, s.headers, urls);
  // The creations come from their own thread, so the load generator does not share the server's event loop.
  const creator = new Worker(creatorCode, { eval: true, workerData: { base: s.base, headers: s.headers, rate, total } });
  const sent = await new Promise((resolve, reject) => {
    creator.once('message', resolve);
    creator.once('error', reject);
  });
  await creator.terminate();
  const { failed, late, sentMs } = sent;
  const res = await Promise.race([rc.done, new Promise((resolve) => setTimeout(resolve, 30_000))]);
  const report =
    res ??
    (await new Promise((resolve) => {
      rc.worker.on('message', (m) => m.report && resolve(m));
      rc.worker.postMessage('report');
    }));
  await rc.worker.terminate();
  await teardown(s, kind, schema);
  const windows = byCreationTime(report.created, report.latencies, 5000);
  const lat = report.latencies.sort((a, b) => a - b);
  const received = report.received ?? total * ENDPOINTS;
  return {
    rate,
    seconds,
    total,
    sentMs,
    failed,
    lateP99: pct(
      late.sort((a, b) => a - b),
      99,
    ),
    p50: pct(lat, 50),
    p99: pct(lat, 99),
    max: lat[lat.length - 1],
    dup: report.dup,
    lost: total * ENDPOINTS - received,
    windows,
  };
}

/**
 * p99 latency per window of creation time (the first event's second onwards): whether a run fell
 * behind at its start and caught up, or fell behind steadily.
 */
function byCreationTime(created, latencies, windowMs) {
  // A loop, not Math.min(...created): spreading a long run's hundreds of thousands of deliveries
  // as arguments overflows the stack.
  const t0 = created.reduce((a, b) => Math.min(a, b), Infinity);
  const windows = [];
  created.forEach((at, i) => (windows[Math.floor((at - t0) / windowMs)] ??= []).push(latencies[i]));
  // A window no delivered event was created in (a stalled sender) reads as none, not a hole.
  return Array.from(windows, (w) =>
    w
      ? pct(
          w.sort((a, b) => a - b),
          99,
        )
      : null,
  );
}

async function backlog(kind) {
  const schema = `benchwh_backlog_${Date.now()}`;
  const rc = startReceivers(N * ENDPOINTS);
  const urls = await rc.ready;
  // The worker's loop is off until the backlog is in place.
  const s = await setup(kind, schema, { pollMs: 0 });
  await registerEndpoints(s.base, s.headers, urls);
  const now = new Date();
  for (let i = 0; i < N; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, N - i) }, () =>
        createContact(s.store.db, s.ws.id, { first_name: 'Hook', last_name: 'Backlog' }, now),
      ),
    );
  }
  const { WebhookWorker } = await import('../dist/modules/webhooks/worker.js');
  const worker = new WebhookWorker(s.store.db, systemClock, { allowInsecure: true, pollMs: 20, concurrency: CONCURRENCY });
  const t0 = Date.now();
  worker.start();
  const res = await rc.done;
  const ms = Date.now() - t0;
  await worker.stop();
  await rc.worker.terminate();
  await teardown(s, kind, schema);
  return { ms, dup: res.dup };
}

const RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 30);
const rows = [];
let pacedRow;
for (const kind of ['pglite', ...(pgUrl ? ['postgres'] : [])]) {
  if (process.env.BENCH_ONLY && !process.env.BENCH_ONLY.split(',').includes(kind)) continue;
  if (kind === 'postgres' && !process.env.BENCH_SKIP_PACED) {
    pacedRow = await paced(kind, RATE, SECONDS);
    console.log(kind, 'paced', pacedRow);
  }
  if (process.env.BENCH_PACED_ONLY) continue;
  const l = process.env.BENCH_SKIP_LIVE ? { createdMs: 1, totalMs: 1, p50: 0, p99: 0, max: 0, dup: 0 } : await live(kind);
  console.log(kind, 'live', l);
  const b = await backlog(kind);
  console.log(kind, 'backlog', b);
  rows.push({ kind, l, b });
}

const f = (n) => Math.round(n).toLocaleString('en-US');
const name = { pglite: 'PGlite', postgres: 'PostgreSQL' };
const md = `Machine: ${machineLine()}

${f(N)} contact creations, ${ENDPOINTS} endpoints (${f(N * ENDPOINTS)} signed deliveries per run); ${CONNECTIONS} creating clients; ${CONCURRENCY} attempts in flight, at most ${DEFAULT_PER_ENDPOINT} to one endpoint; worker poll 50 ms, woken by each write.

| Store | Live: creations/s (HTTP) | Live: events/s fully delivered | Live: deliveries/s | Latency p50 ms | p99 ms | max ms | Backlog: events/s | Backlog: deliveries/s | Duplicate receipts |
|---|---|---|---|---|---|---|---|---|---|
${rows.map(({ kind, l, b }) => `| ${name[kind]} | ${f(N / (l.createdMs / 1000))} | ${f(N / (l.totalMs / 1000))} | ${f((N * ENDPOINTS) / (l.totalMs / 1000))} | ${f(l.p50)} | ${f(l.p99)} | ${f(l.max)} | ${f(N / (b.ms / 1000))} | ${f((N * ENDPOINTS) / (b.ms / 1000))} | ${l.dup + b.dup} |`).join('\n')}
`;
if (pacedRow) {
  const p = pacedRow;
  const met = p.p99 <= 1000 && p.dup === 0 && p.lost === 0;
  const pmd = `Machine: ${machineLine()}

${f(p.total)} creations at ${f(p.rate)} a second for ${p.seconds} s (the sender's own lateness p99 ${f(p.lateP99)} ms), ${ENDPOINTS} endpoints (${f(p.total * ENDPOINTS)} deliveries); ${CONCURRENCY} attempts in flight, at most ${DEFAULT_PER_ENDPOINT} to one endpoint.

| Creations | Failed creations | Latency p50 ms | p99 ms | max ms | Duplicates | Lost | Target (p99 ≤ 1,000 ms, 0 duplicates, 0 lost) |
|---|---|---|---|---|---|---|---|
| ${f(p.total)} in ${(p.sentMs / 1000).toFixed(1)} s | ${p.failed} | ${f(p.p50)} | ${f(p.p99)} | ${f(p.max)} | ${p.dup} | ${p.lost} | ${met ? 'met' : `missed: p99 ${(p.p99 / 1000).toFixed(1)}× the target`} |

p99 latency by when the event was created, 5 s at a time: ${p.windows.map((ms, i) => `${i * 5}–${i * 5 + 5} s ${ms === null ? 'none' : `${f(ms)} ms`}`).join(', ')}.
`;
  if (!process.env.BENCH_NO_WRITE) writeSection('webhooks-live', pmd);
  console.log(pmd);
}
if (process.env.BENCH_PACED_ONLY) process.exit(0);
if (!process.env.BENCH_NO_WRITE) writeSection('webhooks', md);
console.log(md);
