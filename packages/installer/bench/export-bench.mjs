// Export benchmark: requests and time to export a workspace holding the pack at every limit
// (plus email images and a brand with its logo), as one install (--pack-id) and as a snapshot of
// everything (--all), under the default 120 requests/minute. The real server runs in-process on
// PGlite with a manual clock the client's waiting advances, so "rate-limit time" is what the
// limit costs without sleeping. Lower bound: one request per catalog page (100 objects), media
// file, ledger or identity read the export needs (counted from the objects it read).
// Run after `npm run build`: node bench/export-bench.mjs
import { createHash, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { canonicalize, roundTripForm } from '@setup-pack/core';
import { WorkspaceClient, install, exportWorkspace, fullPack } from '@setup-pack/installer';
import { startBenchServer } from './bench-server.mjs';
import { writeSection, machineLine } from '../../../scripts/bench-report.mjs';

const RATE = 120;
const IMAGES = 20;

const { base, clock, workspace, close } = await startBenchServer();
const key = await workspace('Bench brokerage', RATE);
const client = () =>
  new WorkspaceClient({ baseUrl: base, apiKey: key, now: () => clock.now().getTime(), sleep: async (ms) => clock.advance(ms) });

// The pack at every limit, with 20 email images (48 KiB each) used by templates and a brand logo.
const pack = fullPack('1.0.0');
const asset = (key, role, i) => {
  const bytes = randomBytes(48 * 1024);
  return {
    key,
    role,
    fileName: `${key}.png`,
    mimeType: 'image/png',
    byteSize: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    data: bytes.toString('base64'),
    ...(role === 'email_image' ? { sourceUrl: `https://cdn.example.com/email/${key}-${i}.png` } : {}),
  };
};
pack.assets = [asset('logo', 'logo', 0), ...Array.from({ length: IMAGES }, (_, i) => asset(`image-${i}`, 'email_image', i))];
for (let i = 0; i < IMAGES; i++) pack.messageTemplates[i].body += `<img src="${pack.assets[i + 1].sourceUrl}">`;
pack.brand = { name: 'Bench brokerage', primaryColor: '#0f172a' };
await install(client(), pack);

async function measure(label, options) {
  clock.advance(60_000 - (clock.now().getTime() % 60_000) + 60_000);
  const c = client();
  const t0 = clock.now().getTime();
  const w0 = performance.now();
  const r = await exportWorkspace(c, { ...options, exportedAt: '2026-11-22T12:00:00Z' });
  const wall = (performance.now() - w0) / 1000;
  // A snapshot of this workspace breaks the pack limits (the new workspace's 5 contact stages, 5 lead
  // sources and default pipeline come on top of the pack's): export refuses to write it; the reads still count.
  const errors = [
    ...new Set(r.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} at ${d.pointer.replace(/\/\d+$/, '')}`)),
  ];
  if (options.packId) {
    // The export is the pack that was installed (the round trip), not just as many requests.
    const { exportedAt: _at, ...exported } = r.pack;
    // Deep equality ignores the key order inside open objects (configs, data), which the store does not keep.
    if (!isDeepStrictEqual(canonicalize(exported), roundTripForm(pack)))
      throw new Error(`${label}: the export differs from the installed pack`);
  }
  const items = ['resources', 'messageTemplates', 'smartLists', 'pipelines', 'automations', 'assets'].reduce(
    (s, k) => s + (r.pack[k]?.length ?? 0),
    0,
  );
  return {
    label: errors.length ? `${label}: refused, ${errors.join(', ')}` : label,
    items,
    requests: c.stats.requests,
    lb: r.minimumRequests,
    status429: c.stats.rateLimited,
    waited: (clock.now().getTime() - t0) / 1000,
    wall,
  };
}

const rows = [
  await measure('export --pack-id (the install)', { packId: pack.packId }),
  await measure('export --all (everything)', { all: true }),
];
await close();

const fmt = (x, d = 2) => x.toFixed(d);
const md = [
  `Machine: ${machineLine()}`,
  '',
  `A workspace holding the pack at every limit (500 resources, 100 each of templates, smart lists, pipelines, automations) plus ${IMAGES} email images of 48 KiB used by templates and a brand with its logo. Workspace limit ${RATE} requests/minute.`,
  '',
  `| Export | Items | Requests | Lower bound | Ratio | 429s | Time at ${RATE}/min (requests ÷ limit) | Rate-limit time waited | Wall time |`,
  '|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.label} | ${r.items} | ${r.requests} | ${r.lb} | ${fmt(r.requests / r.lb)}x | ${r.status429} | ${fmt(r.requests / RATE)} min | ${fmt(r.waited / 60)} min | ${fmt(r.wall, 1)} s |`,
  ),
];
writeSection('export', md.join('\n'));
console.log(md.join('\n'));
