// `npm run bench:tenants -w apps/workspace-server` (part of `npm run bench`): many tenants at once on
// PostgreSQL. 1,000 workspaces (100 contacts each), each with its own key and the default limit of
// 120 requests a minute, each driven at that limit: evenly spaced requests from a random phase,
// 70 % GET /v1/contacts?limit=20, 25 % POST /v1/contacts, 5 % GET ?q= searches. Ten more "greedy"
// tenants send 2.5 minutes' worth of requests within the run (so some minute window of theirs
// overflows), to show 429s come only past a tenant's own limit. The offered load is
// 1,000 × 2 req/s = 2,000 req/s plus the greedy ones'. Latency runs from the planned send time,
// so a server that falls behind pays for the queue (no coordinated omission).
// The server runs as `workspace-server serve --workers N` child processes: once with 1, once with
// 2, and as two `serve` processes with each tenant's requests sent to one of them (as a balancer
// hashing the key would); the floor is a bare Fastify process answering the same paths with fixed
// bytes, driven the same. Beside each drive's latency and CPU the table reads what the machine and
// PostgreSQL did meanwhile: the cores' time idle and stolen by the host (/proc/stat), the WAL
// written and flushed (pg_stat_wal; the flushes' time needs `track_wal_io_timing = on`, which a
// superuser may set with ALTER SYSTEM and a reload), and what the backends waited on
// (pg_stat_activity, sampled). Each drive's seconds' p99 go to stderr with the rest of its numbers.
// Env: BENCH_TENANTS (1000), BENCH_TENANT_SECONDS (20), DATABASE_URL or TEST_DATABASE_URL.
//
// Side by side (`BENCH_TENANTS_VS=<another checkout's apps/workspace-server>`, built): instead of
// the table, BENCH_TENANTS_PAIRS (4) pairs of runs of `serve --workers BENCH_TENANTS_WORKERS` (1),
// a cold drive then a warm one of each build, alternating which goes first, each build on a schema
// it migrated and seeded itself;
// prints each pair's ratios (this build over the other) and their medians, writes no docs. The
// hour moves more from run to run than most changes do: compare builds this way, not tables; and
// compare held req/s and CPU, not p99, which follows the host (two identical builds, three pairs
// on one hour: warm p99 0.06–4.27× of each other, each bad drive one the host stole
// from: docs/store.md, "Where the time goes").
import { existsSync } from 'node:fs';
import os from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { machineLine, writeSection } from '../../../scripts/bench-report.mjs';
import { body, GREEDY, LIMIT, PER_CONTACTS, start, tenantsLoad } from './tenants-load.mjs';

const TENANTS = Number(process.env.BENCH_TENANTS ?? 1000);
const SECONDS = Number(process.env.BENCH_TENANT_SECONDS ?? 20);
const pgUrl = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL;
const bin = fileURLToPath(new URL('../bin/workspace-server.js', import.meta.url));
const fastifyPath = fileURLToPath(import.meta.resolve('fastify'));

if (!pgUrl) {
  writeSection('workspace-server-tenants', 'Not measured: set DATABASE_URL or TEST_DATABASE_URL (PostgreSQL).');
  process.exit(0);
}

const schema = `tenants_${Date.now()}`;
const { urlOf, schemaUrl, seed, drive, dropSchema } = tenantsLoad({ pgUrl, tenants: TENANTS, seconds: SECONDS, schema });

const floorCode = (page, created) => `
import(${JSON.stringify(fastifyPath)}).then(async ({ default: Fastify }) => {
  const app = Fastify();
  app.get('/v1/contacts', (_q, r) => r.type('application/json; charset=utf-8').send(${JSON.stringify(page)}));
  app.post('/v1/contacts', (_q, r) => r.code(201).type('application/json; charset=utf-8').send(${JSON.stringify(created)}));
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write('listening on http://127.0.0.1:' + app.server.address().port + '\\n');
  process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
});`;

if (process.env.BENCH_TENANTS_VS) {
  await sideBySide(
    process.env.BENCH_TENANTS_VS,
    Number(process.env.BENCH_TENANTS_PAIRS ?? 4),
    Number(process.env.BENCH_TENANTS_WORKERS ?? 1),
  );
  process.exit(0);
}

/**
 * This build against the one at `otherDir` (an apps/workspace-server directory with its dist
 * built): `pairs` pairs of a server's cold drive and warm drive (`serve --workers workers`), the order of the two
 * builds alternating from pair to pair; each pair's ratios of held req/s, p99 and CPU per request
 * (this build's over the other's), then their medians. Nothing is written to docs.
 */
async function sideBySide(otherDir, pairs, workers) {
  const other = { dir: resolve(otherDir), schema: `${schema}_vs` };
  for (const f of ['dist/index.js', 'bin/workspace-server.js']) {
    if (!existsSync(`${other.dir}/${f}`)) {
      process.stderr.write(
        `BENCH_TENANTS_VS: no ${f} in ${other.dir}: name another checkout's apps/workspace-server, built (npm ci && npm run build there)\n`,
      );
      process.exit(2);
    }
  }
  const builds = [
    { name: 'this build', bin, schema, keys: await seed() },
    {
      name: other.dir,
      bin: `${other.dir}/bin/workspace-server.js`,
      schema: other.schema,
      keys: await seed(await import(pathToFileURL(`${other.dir}/dist/index.js`).href), other.schema),
    },
  ];
  const runOf = async (b) => {
    const s = await start([b.bin, 'serve', '--port', '0', '--no-editor', '--workers', String(workers)], {
      DATABASE_URL: urlOf(b.schema),
      ADMIN_TOKEN: 'bench',
    });
    const cold = await drive(s.base, b.keys, TENANTS, s.pid, b.schema);
    const warm = await drive(s.base, b.keys, TENANTS, s.pid, b.schema);
    await s.stop();
    return { cold, warm };
  };
  const cpu = (r) => r.cpu.server + r.cpu.pg;
  const ratios = {
    'cold held': [],
    'cold p99': [],
    'cold CPU': [],
    'cold WAL flushes': [],
    'warm held': [],
    'warm p99': [],
    'warm CPU': [],
    'warm WAL flushes': [],
  };
  const line = (r) =>
    `held ${r.achieved.toFixed(0)} p99 ${r.p99.toFixed(0)} ms (seconds' p99 ${r.secondP99.join(' ')}), CPU ${r.cpu.server.toFixed(2)} + ${r.cpu.pg.toFixed(2)} ms, stolen ${r.machine.steal.toFixed(0)} %, WAL ${r.wal.kB.toFixed(1)} kB, ${r.wal.syncs} flushes${r.wal.syncMs === undefined ? '' : ` of ${r.wal.syncMs.toFixed(1)} ms`} (${r.wal.checkpoints} checkpoints)`;
  for (let i = 0; i < pairs; i++) {
    const order = i % 2 === 0 ? [0, 1] : [1, 0];
    const got = [];
    for (const k of order) {
      got[k] = await runOf(builds[k]);
      process.stderr.write(`pair ${i + 1}, ${builds[k].name}: cold ${line(got[k].cold)}; warm ${line(got[k].warm)}\n`);
    }
    for (const phase of ['cold', 'warm']) {
      const [a, b] = [got[0][phase], got[1][phase]];
      ratios[`${phase} held`].push(a.achieved / b.achieved);
      ratios[`${phase} p99`].push(a.p99 / b.p99);
      ratios[`${phase} CPU`].push(cpu(a) / cpu(b));
      ratios[`${phase} WAL flushes`].push(a.wal.syncs / b.wal.syncs);
    }
  }
  for (const b of builds) await dropSchema(b.schema);
  const median = (xs) => {
    const s = [...xs].sort((x, y) => x - y);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  };
  let out = `Side by side, ${TENANTS} tenants, ${workers === 1 ? 'one process' : `--workers ${workers}`}, ${SECONDS} s drives, ${pairs} pairs (${new Date().toISOString()}); this build over ${other.dir}:\n\n| | pairs | median |\n|---|---|---|\n`;
  for (const [name, xs] of Object.entries(ratios))
    out += `| ${name} | ${xs.map((x) => `${x.toFixed(2)}×`).join(', ')} | ${median(xs).toFixed(2)}× |\n`;
  out +=
    "\nCPU is the server's and its PostgreSQL backends' per request; WAL flushes are PostgreSQL's over each drive (pg_stat_wal); held above 1× and p99, CPU or flushes below 1× favour this build.\n";
  process.stdout.write(out);
}

const loadBefore = os.loadavg()[0];
const keys = await seed();
const rows = [];
/** A row of the table, said on stderr as it is measured. */
const addRow = (name, r) => {
  rows.push([name, r]);
  process.stderr.write(`tenants, ${name}: ${JSON.stringify(r)}\n`);
};
{
  // The floor answers with the bytes the server gives one tenant.
  const s = await start([bin, 'serve', '--port', '0', '--no-editor'], { DATABASE_URL: schemaUrl, ADMIN_TOKEN: 'bench' });
  const h = { authorization: `Bearer ${keys[0]}`, 'content-type': 'application/json' };
  const page = await (await fetch(`${s.base}/v1/contacts?limit=20`, { headers: h })).text();
  const created = await (await fetch(`${s.base}/v1/contacts`, { method: 'POST', headers: h, body })).text();
  await s.stop();
  const f = await start(['--input-type=module', '-e', floorCode(page, created)], {});
  rows.push(['floor: bare Fastify, fixed bytes', await drive(f.base, keys, TENANTS, f.pid)]);
  await f.stop();
}
// Below saturation too: a fifth of the tenants, where latency is the server's, not a queue's.
// Batching of lists and creations waiting for a connection (db/batch.ts) side by side with --no-batching.
const runs = [
  [1, TENANTS],
  [1, TENANTS, '--no-batching'],
  [2, TENANTS],
  [1, TENANTS / 5],
  [2, TENANTS / 5],
];
for (const [workers, tenants, flag] of runs) {
  const s = await start([bin, 'serve', '--port', '0', '--no-editor', '--workers', String(workers), ...(flag ? [flag] : [])], {
    DATABASE_URL: schemaUrl,
    ADMIN_TOKEN: 'bench',
  });
  const name = `workspace-server --workers ${workers}${flag ? ` ${flag}` : ''}, ${tenants} tenants`;
  addRow(`${name}, from a cold process`, await drive(s.base, keys, tenants, s.pid));
  // Steady state: the same process driven again for as long (new rate-limit windows, the same
  // tenants), as a server runs between restarts. The row above is a restart straight into full load.
  if (tenants === TENANTS && !flag) {
    addRow(`${name}, the same process driven again (warm)`, await drive(s.base, keys, tenants, s.pid));
  }
  await s.stop();
}
// Two processes again, each tenant's requests to one of them (as a balancer hashing the key would
// route them): each process then holds its tenants' pages and contacts' texts, where --workers
// spreads a tenant's requests over both and each holds every tenant's.
{
  const servers = [];
  for (let i = 0; i < 2; i++)
    servers.push(
      await start([bin, 'serve', '--port', '0', '--no-editor', '--workers', '1'], { DATABASE_URL: schemaUrl, ADMIN_TOKEN: 'bench' }),
    );
  const name = `two workspace-server processes, each tenant to one, ${TENANTS} tenants`;
  const drive2 = () =>
    drive(
      servers.map((x) => x.base),
      keys,
      TENANTS,
      servers.map((x) => x.pid),
    );
  addRow(`${name}, from cold processes`, await drive2());
  addRow(`${name}, driven again (warm)`, await drive2());
  for (const x of servers) await x.stop();
}
await dropSchema(schema);

const floor = rows[0][1];
let md = `Machine: ${machineLine()}; load average ${loadBefore.toFixed(1)} at start, ${os.loadavg()[0].toFixed(1)} at end.\n\n`;
md += `${TENANTS.toLocaleString('en-US')} workspaces of ${PER_CONTACTS} contacts at ${LIMIT} requests a minute each for ${SECONDS} s; ${GREEDY} greedy tenants send ${2.5 * LIMIT} requests each. The driver: \`bench/raw-client.mjs\`, 64 sockets. "The rest" is every other busy moment of the machine per request (PostgreSQL's background processes, the kernel); WAL flushes' mean time in brackets when \`track_wal_io_timing\` is on.\n\n`;
md +=
  "| Server | offered req/s | held req/s | p50 ms | p99 ms | second half: p50 / p99 ms | errors | 429s of tenants at their limit | 429s of greedy tenants (of sent) | windows breaking the limit rule | CPU ms per request: server / PostgreSQL / driver / the rest | machine: idle / stolen % | WAL per request: kB / full-page images; flushes a second (ms each); checkpoints started | PostgreSQL's backends at work: on CPU / waiting on the WAL |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
for (const [name, r] of rows) {
  md += `| ${name} | ${r.offered.toFixed(0)} | ${r.achieved.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.lateP50.toFixed(1)} / ${r.lateP99.toFixed(1)} | ${r.errors} | ${r.refusedAtLimit} | ${r.refusedGreedy} (of ${r.greedySent}) | ${r.wrongWindows} | ${r.cpu.server.toFixed(2)} / ${r.cpu.pg.toFixed(2)} / ${r.cpu.driver.toFixed(2)} / ${r.machine.other.toFixed(2)} | ${r.machine.idle.toFixed(0)} / ${r.machine.steal.toFixed(0)} | ${r.wal.kB.toFixed(1)} / ${r.wal.fpi.toFixed(2)}; ${(r.wal.syncs / SECONDS).toFixed(0)}${r.wal.syncMs === undefined ? '' : ` (${r.wal.syncMs.toFixed(1)})`}; ${r.wal.checkpoints} | ${r.backends.cpu.toFixed(2)} / ${r.backends.wal.toFixed(2)} |\n`;
}
const [one, warm, unbatched, two, twoWarm, oneLight, twoLight, sticky, stickyWarm] = rows.slice(1).map((r) => r[1]);
const held = (r) => r.achieved >= 2000;
const verdict = (r) =>
  `${r.achieved.toFixed(0)} req/s of ${r.offered.toFixed(0)} offered (throughput ${held(r) ? 'met' : `missed: ${((r.achieved / 2000) * 100).toFixed(0)} %`}) at p99 ${r.p99.toFixed(0)} ms (${r.p99 <= 100 ? 'met' : `missed by ${(r.p99 / 100).toFixed(2)}×`})`;
const cpuOf = (r) => r.cpu.server + r.cpu.pg;
/**
 * The drive starts when `serve` says it listens, which is when `/readyz` turns ready (pool open,
 * first pages warmed): whether a balancer's first traffic to a new process is served at speed.
 */
function readyMeansWarm(r) {
  const late = r.secondP99.slice(4);
  const over = late.filter((x) => x > 100).length;
  return `- Ready means warm (target: each second's p99 ≤ 100 ms from the 5th second after \`/readyz\` says ready, at ${TENANTS.toLocaleString('en-US')} tenants): the cold process's seconds 5 to ${r.secondP99.length}: worst p99 ${Math.max(...late)} ms, ${over} of ${late.length} above 100 ms (${over ? 'missed' : 'met'}); its first four: ${r.secondP99.slice(0, 4).join(', ')} ms.`;
}
md += [
  '',
  `- Target, 2,000 req/s held with p99 ≤ 100 ms: one process running (driven a second time) held ${verdict(warm)}; ${warm.secondP99.filter((x) => x > 100).length} of its ${warm.secondP99.length} seconds' p99 above 100 ms; the host took ${warm.machine.steal.toFixed(0)} % of the core time and ${warm.machine.idle.toFixed(0)} % stayed idle.`,
  `- From a cold process (a restart straight into full load): ${verdict(one)}; ${one.lateP99.toFixed(0)} ms in the run's second half.`,
  readyMeansWarm(one),
  `- \`--workers 2\`: running ${twoWarm.achieved.toFixed(0)} req/s at p99 ${twoWarm.p99.toFixed(0)} ms (${(twoWarm.achieved / Math.max(1, warm.achieved)).toFixed(2)}× one process's requests at ${(cpuOf(twoWarm) / cpuOf(warm)).toFixed(2)}× its server and PostgreSQL CPU per request); cold ${two.achieved.toFixed(0)} req/s at p99 ${two.p99.toFixed(0)} ms.`,
  `- Two processes, each tenant to one (as a balancer hashing the key sends them): running ${stickyWarm.achieved.toFixed(0)} req/s at p99 ${stickyWarm.p99.toFixed(0)} ms (${(stickyWarm.achieved / Math.max(1, warm.achieved)).toFixed(2)}× one's, at ${(cpuOf(stickyWarm) / cpuOf(warm)).toFixed(2)}× its CPU per request); cold ${sticky.achieved.toFixed(0)} at p99 ${sticky.p99.toFixed(0)} ms.`,
  `- \`--no-batching\`: ${unbatched.achieved.toFixed(0)} req/s at p99 ${unbatched.p99.toFixed(0)} ms; PostgreSQL CPU ${unbatched.cpu.pg.toFixed(2)} ms a request against ${one.cpu.pg.toFixed(2)} batched (${(one.cpu.pg / unbatched.cpu.pg).toFixed(2)}×), the server's ${unbatched.cpu.server.toFixed(2)} against ${one.cpu.server.toFixed(2)}.`,
  `- A fifth of the tenants (${oneLight.offered.toFixed(0)} req/s offered): p99 ${oneLight.p99.toFixed(0)} ms on one process, ${twoLight.p99.toFixed(0)} ms on two.`,
  `- CPU per request on one process: ${(one.cpu.server + one.cpu.pg + one.cpu.driver).toFixed(2)} ms at ${TENANTS.toLocaleString('en-US')} tenants (server ${one.cpu.server.toFixed(2)}, PostgreSQL ${one.cpu.pg.toFixed(2)}, driver ${one.cpu.driver.toFixed(2)}), ${(oneLight.cpu.server + oneLight.cpu.pg + oneLight.cpu.driver).toFixed(2)} ms at ${(TENANTS / 5).toLocaleString('en-US')}; 2,150 req/s allow ${(2000 / 2150).toFixed(2)} ms of two whole cores.`,
  `- The floor (bare Fastify, fixed bytes) held ${floor.achieved.toFixed(0)} req/s at p99 ${floor.p99.toFixed(1)} ms under the same driver. Windows breaking the limit rule (tenant-minutes with more than ${LIMIT} successes or a 429 before the ${LIMIT}th) must be 0.`,
  '',
].join('\n');
writeSection('workspace-server-tenants', md);
process.stdout.write(md);
