// Installer benchmark: requests and time to install the pack at every limit into an empty
// workspace, re-install it, and upgrade it with 10% of its items changed, under the default
// 120 requests/minute. The real server runs in-process on PGlite with a manual clock that the
// installer's waiting advances, so "time" is what the rate limit costs, measured without sleeping.
// Baseline: a naive installer that looks up every reference with its own request and does not pace.
// Run after `npm run build`: node bench/install-bench.mjs
import { performance } from 'node:perf_hooks';
import { plan as planPack, requiredCollections, resolveStep, ledgerItemAfterWrite } from '@setup-pack/core';
import { WorkspaceClient, install, fullPack, COLLECTION_PATH, LIST_PATH, readLedger } from '@setup-pack/installer';
import { startBenchServer } from './bench-server.mjs';
import { writeSection, machineLine } from '../../../scripts/bench-report.mjs';

const RATE = 120;

const { base, clock, workspace: newWorkspace, close } = await startBenchServer();
const workspace = () => newWorkspace(undefined, RATE);
function client(key, extra = {}) {
  let status429 = 0;
  const f = async (input, init) => {
    const r = await fetch(input, init);
    if (r.status === 429) status429++;
    return r;
  };
  const c = new WorkspaceClient({
    baseUrl: base,
    apiKey: key,
    fetch: f,
    now: () => clock.now().getTime(),
    sleep: async (ms) => clock.advance(ms),
    ...extra,
  });
  c.count429 = () => status429;
  return c;
}

/** Catalog pages the planner's snapshot needs right now (the reads no installer can avoid). */
async function pagesNeeded(c, pack, ledger) {
  let pages = 0;
  const probe = new WorkspaceClient({ baseUrl: base, apiKey: c.apiKeyForProbe, now: () => clock.now().getTime(), sleep: async () => {} });
  for (const col of requiredCollections(pack, ledger)) {
    if (col === 'brand') {
      pages++;
      continue;
    }
    const r = await probe.get(`${LIST_PATH[col] ?? COLLECTION_PATH[col]}?limit=1`);
    pages += Math.max(1, Math.ceil(r.total_count / 100));
  }
  return pages;
}

async function measure(label, key, pack, run) {
  const c = client(key);
  c.apiKeyForProbe = key;
  const t0 = clock.now().getTime();
  const w0 = performance.now();
  const r = await run(c);
  const simulated = (clock.now().getTime() - t0) / 1000;
  const wall = (performance.now() - w0) / 1000;
  // Lower bound: the snapshot's catalog pages (as they were before the run) plus the item writes.
  const lbRequests = (r.pagesBefore ?? 0) + r.writes;
  return {
    label,
    requests: c.stats.requests,
    reads: c.stats.reads,
    writes: c.stats.writes,
    status429: c.stats.rateLimited,
    simulated,
    wall,
    lbRequests,
    lbTime: (lbRequests / RATE) * 60,
  };
}

async function ours(key, pack, label) {
  const c0 = client(key);
  c0.apiKeyForProbe = key;
  const rec = await readLedger(client(key, { pace: false }), pack.packId);
  // Move to a fresh window so every scenario starts alike, then count the pages the plan needs.
  clock.advance(60_000 - (clock.now().getTime() % 60_000));
  const pagesBefore = await pagesNeeded(c0, pack, rec?.ledger ?? null);
  clock.advance(60_000);
  return measure(label, key, pack, async (c) => {
    const r = await install(c, pack);
    return { writes: r.plan.writes, pagesBefore };
  });
}

/** The baseline: no snapshot, one lookup request per reference, no pacing (429s and Retry-After). */
async function naive(key, pack) {
  clock.advance(60_000 - (clock.now().getTime() % 60_000));
  const empty = { collections: Object.fromEntries(requiredCollections(pack, null).map((c) => [c, []])) };
  empty.collections.members = [{ id: 'unknown', name: 'Jordan Lee' }];
  const p = planPack(pack, null, empty, {});
  return measure('naive baseline: fresh install', key, pack, async (c) => {
    const cn = new WorkspaceClient({
      baseUrl: base,
      apiKey: key,
      now: () => clock.now().getTime(),
      sleep: async (ms) => clock.advance(ms),
      pace: false,
    });
    cn.count429 = c.count429;
    const items = {};
    for (const step of p.steps) {
      if (!step.write) continue;
      for (const rw of step.rewrites) {
        if (rw.kind !== 'reference') continue;
        // One lookup per reference: read the collection it points into.
        await cn.listAll(COLLECTION_PATH['itemId' in rw.target ? collectionOfItem(rw.target.itemId, p) : 'members']);
      }
      const r = resolveStep(
        pack.packId,
        step,
        (id) => items[id] && { workspaceId: items[id].workspaceId, url: items[id].url, stages: items[id].stages },
      );
      const written = await cn.post(COLLECTION_PATH[step.collection], r.body);
      items[step.itemId] = ledgerItemAfterWrite(step, r, written);
    }
    Object.assign(c.stats, cn.stats);
    return { writes: p.writes, pagesBefore: 0 };
  });
}
function collectionOfItem(itemId, p) {
  return p.steps.find((s) => s.itemId === itemId)?.collection;
}

const v1 = fullPack('1.0.0');
const v2 = fullPack('1.1.0', 10);
const items = (p) =>
  ['resources', 'messageTemplates', 'smartLists', 'pipelines', 'automations'].reduce((s, k) => s + (p[k]?.length ?? 0), 0);

const key = await workspace();
const rows = [];
rows.push(await ours(key, v1, 'fresh install'));
rows.push(await ours(key, v1, 're-install (same release)'));
rows.push(await ours(key, v2, 'upgrade, 10% of items changed'));
const naiveKey = await workspace();
rows.push(await naive(naiveKey, v1));
await close();

const fmt = (x, d = 1) => x.toFixed(d);
const table = [
  '| Scenario | Requests (reads + writes) | Lower bound requests | 429s | Time waited for the limit | Lower bound wait | Lower bound time (requests ÷ limit) | Wall time |',
  '|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.label} | ${r.requests} (${r.reads} + ${r.writes}) | ${r.lbRequests} | ${r.status429} | ${fmt(r.simulated / 60, 2)} min | ${fmt(Math.max(0, r.lbRequests - RATE) / RATE, 2)} min | ${fmt(r.lbTime / 60, 2)} min | ${fmt(r.wall)} s |`,
  ),
];
const md = [
  `Machine: ${machineLine()}`,
  '',
  `Pack at every limit: ${items(v1)} items (500 resources, 100 each of templates, smart lists, pipelines, automations; every automation references a tag, a template and a member). Upgrade: the same pack with every 10th item of each kind changed. Workspace limit ${RATE} requests/minute.`,
  '',
  ...table,
];
writeSection('installer', md.join('\n'));
console.log(md.join('\n'));
