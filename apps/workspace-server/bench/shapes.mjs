// `npm run bench:shapes -w apps/workspace-server` (part of `npm run bench`): the deployment shapes
// of docs/operations.md side by side on this machine, under the tenants benchmark's load
// (bench/tenants-load.mjs: each tenant at its rate limit, 70 % lists, 25 % creations, 5 %
// searches, ten greedy tenants past theirs), shorter and lighter so that three comparisons fit:
//   - one `serve` process; the same behind HAProxy; two behind HAProxy (keys hashed to them), with
//     the configuration docs/operations.md gives (bench/haproxy.mjs);
//   - metrics on (scraped every 5 s, three times as often as a usual Prometheus) and `--no-metrics`;
//   - named statements, `--no-prepared-statements`, and through PgBouncer in transaction mode
//     (bench/pgbouncer.mjs; four server connections, as many as the direct pool).
// Each run is a fresh process (or processes), driven once to warm it (BENCH_SHAPES_WARM_SECONDS, 5),
// then measured (BENCH_SHAPES_SECONDS, 10). The cases of a comparison run in turn, the order
// rotating from pair to pair (BENCH_SHAPES_PAIRS, 2; the metrics comparison twice as many: its
// target is a 3 % difference). Each figure is the median over pairs, each ratio the median of the
// pairs' ratios to the comparison's first case. Env: BENCH_SHAPES_TENANTS (300), DATABASE_URL or
// TEST_DATABASE_URL.
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { machineLine, writeSection } from '../../../scripts/bench-report.mjs';
import { freePort, haproxyUnavailable, startBalancer } from './haproxy.mjs';
import { pgBouncerUnavailable, startPgBouncer } from './pgbouncer.mjs';
import { start, tenantsLoad } from './tenants-load.mjs';

const TENANTS = Number(process.env.BENCH_SHAPES_TENANTS ?? 300);
const SECONDS = Number(process.env.BENCH_SHAPES_SECONDS ?? 10);
const WARM_SECONDS = Number(process.env.BENCH_SHAPES_WARM_SECONDS ?? 5);
const PAIRS = Number(process.env.BENCH_SHAPES_PAIRS ?? 2);
const SCRAPE_MS = 5_000;
const pgUrl = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL;
const bin = fileURLToPath(new URL('../bin/workspace-server.js', import.meta.url));
const SECTION = 'workspace-server-shapes';

if (!pgUrl) {
  writeSection(SECTION, 'Not measured: set DATABASE_URL or TEST_DATABASE_URL (PostgreSQL).');
  process.exit(0);
}

const schema = `shapes_${Date.now()}`;
const load = tenantsLoad({ pgUrl, tenants: TENANTS, seconds: SECONDS, schema });
const warmLoad = tenantsLoad({ pgUrl, tenants: TENANTS, seconds: WARM_SECONDS, schema });

/** `serve` on the benchmark's schema (or `databaseUrl`), on `port` (0: a free one). */
const serve = (args, { port = 0, databaseUrl = load.schemaUrl } = {}) =>
  start([bin, 'serve', '--port', String(port), '--no-editor', ...args], { DATABASE_URL: databaseUrl, ADMIN_TOKEN: 'bench' });

/**
 * A running shape: where the driver sends requests, the server processes' pids, the pids of what
 * stands between (the balancer, the pooler), what runs beside the drive (a scraper), and stop().
 */
const shapes = {
  async 'one process'() {
    const s = await serve([]);
    return { base: s.base, pids: [s.pid], between: [], stop: s.stop };
  },
  async 'one process behind HAProxy'() {
    return behindHaproxy(1);
  },
  async 'two processes behind HAProxy'() {
    return behindHaproxy(2);
  },
  async 'metrics on, scraped every 5 s'() {
    const s = await serve([]);
    let scraping = true;
    const scrape = async () => {
      while (scraping) {
        await fetch(`${s.base}/metrics`, { headers: { authorization: 'Bearer bench' } }).then(
          (r) => r.text(),
          () => undefined,
        );
        await new Promise((r) => setTimeout(r, SCRAPE_MS));
      }
    };
    const scraper = scrape();
    return {
      base: s.base,
      pids: [s.pid],
      between: [],
      stop: async () => {
        scraping = false;
        await scraper;
        await s.stop();
      },
    };
  },
  async 'metrics off (--no-metrics)'() {
    const s = await serve(['--no-metrics']);
    return { base: s.base, pids: [s.pid], between: [], stop: s.stop };
  },
  async 'direct, named statements'() {
    return shapes['one process']();
  },
  async 'direct, --no-prepared-statements'() {
    const s = await serve(['--no-prepared-statements']);
    return { base: s.base, pids: [s.pid], between: [], stop: s.stop };
  },
  async 'through PgBouncer (transaction mode, 4 server connections)'() {
    const bouncer = await bouncerFor(pgUrl, schema);
    const s = await serve([], { databaseUrl: bouncer.url });
    return {
      base: s.base,
      pids: [s.pid],
      between: [bouncer.pid],
      stop: async () => {
        await s.stop();
        await bouncer.close();
      },
    };
  },
};

/**
 * PgBouncer with 4 server connections in front of the benchmark's PostgreSQL, each setting its
 * schema first (connect_query: transaction mode keeps no session's search path); `url` is the
 * server's, with named statements off as an operator sets them behind it.
 */
async function bouncerFor(pgUrl, schema) {
  const u = new URL(pgUrl);
  const user = decodeURIComponent(u.username || 'postgres');
  const target = `host=${u.hostname} port=${u.port || 5432} dbname=${u.pathname.slice(1)} user=${user} password=${decodeURIComponent(u.password)}`;
  const bouncer = await startPgBouncer({
    databases: [`bench = ${target} connect_query='SET search_path = ${schema}, public'`],
    user,
    serverConnections: 4,
  });
  return { ...bouncer, url: `postgres://${encodeURIComponent(user)}@127.0.0.1:${bouncer.port}/bench?prepared_statements=false` };
}

/** `n` serve processes on ports of their own behind HAProxy with the documented configuration. */
async function behindHaproxy(n) {
  const hosts = [];
  for (let i = 0; i < n; i++) hosts.push({ name: `host${i + 1}`, port: await freePort() });
  const servers = await Promise.all(hosts.map((h) => serve([], { port: h.port })));
  const balancer = await startBalancer(await freePort(), hosts);
  for (const h of hosts) await balancer.until(h.name, 'UP');
  return {
    base: balancer.url,
    pids: servers.map((s) => s.pid),
    between: [balancer.pid],
    stop: async () => {
      await balancer.close();
      await Promise.all(servers.map((s) => s.stop()));
    },
  };
}

/** One run of a shape: started, warmed by a short drive, then measured; the CPU of what stands between read beside. */
async function run(name, keys) {
  const shape = await shapes[name]();
  try {
    await warmLoad.drive(shape.base, keys, TENANTS, shape.pids);
    const before = shape.between.length ? load.cpuNow(shape.between).server : new Map();
    const r = await load.drive(shape.base, keys, TENANTS, shape.pids);
    const after = shape.between.length ? load.cpuNow(shape.between).server : new Map();
    r.cpu.between = load.spent(before, after) / r.requests;
    process.stderr.write(
      `shapes, ${name}: held ${r.achieved.toFixed(0)} req/s, p99 ${r.p99.toFixed(1)} ms, CPU ms per request ${r.cpu.server.toFixed(3)} server / ${r.cpu.pg.toFixed(3)} PostgreSQL / ${r.cpu.between.toFixed(3)} between, stolen ${r.machine.steal.toFixed(0)} %, errors ${r.errors}\n`,
    );
    return r;
  } finally {
    await shape.stop();
  }
}

/** `pairs` rounds of every case, the order rotating; each case's results, in the order of `cases`. */
async function compare(cases, pairs, keys) {
  const results = cases.map(() => []);
  for (let p = 0; p < pairs; p++) {
    for (let k = 0; k < cases.length; k++) {
      const i = (k + p) % cases.length;
      results[i].push(await run(cases[i], keys));
    }
  }
  return results;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const cpuAll = (r) => r.cpu.server + r.cpu.pg + r.cpu.between;

/** A comparison's table: each case's medians, and its pairs' ratios to the first case. */
function table(cases, results) {
  let md =
    '| Case | held req/s | p99 ms | errors | CPU ms per request: server / PostgreSQL / balancer or pooler | all three | server CPU, ratio to the first (pairs: median) | all three, ratio to the first | held req/s, ratio to the first |\n|---|---|---|---|---|---|---|---|---|\n';
  const ratio = (i, f) => results[i].map((r, p) => f(r) / f(results[0][p]));
  const show = (xs) => `${xs.map((x) => x.toFixed(3)).join(', ')}: **${median(xs).toFixed(3)}×**`;
  cases.forEach((name, i) => {
    const rs = results[i];
    const m = (f) => median(rs.map(f));
    md += `| ${name} | ${m((r) => r.achieved).toFixed(0)} | ${m((r) => r.p99).toFixed(1)} | ${rs.reduce((n, r) => n + r.errors, 0)} | ${m((r) => r.cpu.server).toFixed(3)} / ${m((r) => r.cpu.pg).toFixed(3)} / ${m((r) => r.cpu.between).toFixed(3)} | ${m(cpuAll).toFixed(3)} | ${i ? show(ratio(i, (r) => r.cpu.server)) : '1'} | ${i ? show(ratio(i, cpuAll)) : '1'} | ${i ? show(ratio(i, (r) => r.achieved)) : '1'} |\n`;
  });
  return md;
}

const COMPARISONS = [
  {
    title: 'Several processes behind a balancer',
    cases: ['one process', 'one process behind HAProxy', 'two processes behind HAProxy'],
    pairs: PAIRS,
  },
  { title: 'Metrics', cases: ['metrics off (--no-metrics)', 'metrics on, scraped every 5 s'], pairs: 2 * PAIRS },
  {
    title: 'PgBouncer',
    cases: ['direct, named statements', 'direct, --no-prepared-statements', 'through PgBouncer (transaction mode, 4 server connections)'],
    pairs: PAIRS,
  },
];

const skipped = [
  haproxyUnavailable() && ['Several processes behind a balancer', haproxyUnavailable()],
  pgBouncerUnavailable() && ['PgBouncer', pgBouncerUnavailable()],
].filter(Boolean);
const loadBefore = os.loadavg()[0];
const keys = await load.seed();
const measured = [];
for (const c of COMPARISONS) {
  const why = skipped.find(([title]) => title === c.title)?.[1];
  measured.push({ ...c, why, results: why ? undefined : await compare(c.cases, c.pairs, keys) });
}
await load.dropSchema(schema);

let md = `Machine: ${machineLine()}; load average ${loadBefore.toFixed(1)} at start, ${os.loadavg()[0].toFixed(1)} at end.\n\n`;
md += `${TENANTS.toLocaleString('en-US')} workspaces of 100 contacts at 120 requests a minute each, and 10 greedy tenants; each run warmed for ${WARM_SECONDS} s, then measured for ${SECONDS} s.\n`;
for (const c of measured) {
  md += `\n### ${c.title}\n\n`;
  md += c.why ? `Not measured: ${c.why}.\n` : `${c.pairs} pairs.\n\n${table(c.cases, c.results)}`;
}
md += verdicts(measured);
writeSection(SECTION, md);
process.stdout.write(md);

/** The lines under the tables: what each comparison says, in ratios. */
function verdicts(all) {
  const lines = [''];
  const of = (title) => all.find((c) => c.title === title && c.results);
  const ratio = (c, i, f) => median(c.results[i].map((r, p) => f(r) / f(c.results[0][p])));
  const metrics = of('Metrics');
  if (metrics) {
    // Only pairs whose two runs both kept up with the load: a run that fell behind batches more of
    // its queue into each statement and spends less CPU per request, whatever it measures.
    const kept = (r) => r.achieved >= 0.98 * r.offered;
    const both = metrics.results[0].map((off, p) => [off, metrics.results[1][p]]).filter(([off, on]) => kept(off) && kept(on));
    const xs = both.map(([off, on]) => on.cpu.server / off.cpu.server);
    const [r, lo, hi] = [median(xs), Math.min(...xs), Math.max(...xs)];
    // A target of 3 % says nothing when the pairs themselves disagree by more than twice that.
    const verdict = !xs.length
      ? 'not shown: no pair kept up with the load'
      : hi - lo > 0.06
        ? `not shown either way: those pairs spread ${lo.toFixed(2)}–${hi.toFixed(2)}×, wider than the target`
        : r <= 1.03
          ? 'met'
          : `missed by ${((r - 1) * 100).toFixed(1)} %`;
    lines.push(
      `- Metrics on, over the ${both.length} of ${metrics.results[0].length} pairs whose runs both held the offered load: ${xs.length ? r.toFixed(3) : '–'}× the server's CPU per request of metrics off (target at most 1.03×: ${verdict}); the server's and PostgreSQL's together ${xs.length ? median(both.map(([off, on]) => cpuAll(on) / cpuAll(off))).toFixed(3) : '–'}×.`,
    );
  }
  const balancer = of('Several processes behind a balancer');
  if (balancer) {
    const p99 = (i) => median(balancer.results[i].map((x) => x.p99)).toFixed(0);
    lines.push(
      `- Behind HAProxy, one process: ${ratio(balancer, 1, (x) => x.achieved).toFixed(2)}× the requests held of one process alone, at ${ratio(balancer, 1, cpuAll).toFixed(2)}× the CPU per request (HAProxy's own ${median(balancer.results[1].map((x) => x.cpu.between)).toFixed(3)} ms); two processes: ${ratio(balancer, 2, (x) => x.achieved).toFixed(2)}× at ${ratio(balancer, 2, cpuAll).toFixed(2)}×. p99 ${p99(0)}, ${p99(1)} and ${p99(2)} ms (on 2 shared cores p99 follows the machine's other work as much as the shape: see the load average above).`,
    );
  }
  const bouncer = of('PgBouncer');
  if (bouncer) {
    lines.push(
      `- Through PgBouncer: ${ratio(bouncer, 2, (x) => x.achieved).toFixed(2)}× the requests held directly, at ${ratio(bouncer, 2, (x) => x.cpu.pg).toFixed(2)}× PostgreSQL's CPU per request and ${ratio(bouncer, 2, cpuAll).toFixed(2)}× in all (PgBouncer's own ${median(bouncer.results[2].map((x) => x.cpu.between)).toFixed(3)} ms); unnamed statements alone: ${ratio(bouncer, 1, (x) => x.cpu.pg).toFixed(2)}× PostgreSQL's CPU per request.`,
    );
  }
  for (const c of all.filter((x) => x.why)) lines.push(`- ${c.title}: not measured (${c.why}).`);
  return `${lines.join('\n')}\n`;
}
