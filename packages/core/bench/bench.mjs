// Core benchmark: full validation of the pack at every limit against the floor (JSON.parse plus
// SHA-256 of the asset bytes) and ajv schema-only validation, interleaved in one run.
import { createHash } from 'node:crypto';
import { validatePack, schemaValidator } from '../dist/index.js';
import { makeLimitPack } from './limit-pack.mjs';
// The hasher the CLI passes (node:crypto, strict base64); run `npm run build` first.
import { nodeHasher } from '../../cli/dist/lib/hasher.js';
import { writeSection, machineLine } from '../../../scripts/bench-report.mjs';

const text = JSON.stringify(makeLimitPack(), null, 2);
// The same pack as exported by the real service: config fields our catalog does not know (an info
// each) and wait durations written as text (a warning each): 43,780 findings.
const noisyText = JSON.stringify(makeLimitPack({ unknownFields: 2, textDurations: true }), null, 2);
const noisyDiagnostics = validatePack(noisyText, { hashBase64: nodeHasher }).diagnostics;
const noisyFindings = noisyDiagnostics.length;
const noisyWarnings = noisyDiagnostics.filter((d) => d.severity === 'warning').length;
// The pack as a newer service might export it: every block of a kind this release does not know, a
// schema error each (19,900), and the rules stand down at each of those blocks.
const brokenPack = makeLimitPack();
for (const a of brokenPack.automations) for (const n of a.document.graph.nodes.slice(1)) n.kind = 'action.send_whatsapp';
const brokenText = JSON.stringify(brokenPack, null, 2);
const brokenErrors = validatePack(brokenText, { hashBase64: nodeHasher }).diagnostics.length;
// Shapes whose findings a per-item search would make quadratic: 2,000 email images (pack assets are
// not limited in number) of which the templates use 100, and an edge more per block whose ends
// name nodes in the wrong case (edges are not limited either; each end asks for a guess).
const hostilePack = makeLimitPack();
for (let i = 0; i < 2000; i++) {
  hostilePack.assets.push({
    key: `img-${i}`,
    role: 'email_image',
    fileName: `img-${i}.png`,
    mimeType: 'image/png',
    byteSize: 1,
    sha256: '0'.repeat(64),
    url: `https://media.example.com/ws/img-${i}.png`,
    sourceUrl: `https://cdn.example-brokerage.com/email/${i}/hero-${i}.png`,
  });
}
hostilePack.messageTemplates.forEach((t, i) => {
  const img = `<img src="https://cdn.example-brokerage.com/email/${i}/hero-${i}.png">`;
  t.body = t.body.slice(0, -img.length) + img;
});
for (const a of hostilePack.automations) {
  const { nodes, edges } = a.document.graph;
  for (let e = 0; e < nodes.length; e++)
    edges.push({ id: `shout-${e}`, source: nodes[e].id.toUpperCase(), target: nodes[(e % (nodes.length - 1)) + 1].id.toUpperCase() });
}
const hostileText = JSON.stringify(hostilePack, null, 2);
const hostileDiagnostics = validatePack(hostileText, { hashBase64: nodeHasher }).diagnostics;
const hostileFindings = hostileDiagnostics.length;
const hostileCodes = Object.entries(
  Object.groupBy?.(hostileDiagnostics, (d) => d.code) ?? hostileDiagnostics.reduce((o, d) => ((o[d.code] ??= []).push(d), o), {}),
)
  .map(([c, l]) => `${l.length.toLocaleString('en-US')} ${c}`)
  .join(', ');
const runs = Number(process.env.BENCH_RUNS ?? 15);

const cases = {
  floor: () => {
    const v = JSON.parse(text);
    for (const a of v.assets) createHash('sha256').update(Buffer.from(a.data, 'base64')).digest('hex');
  },
  schemaOnly: () => {
    const v = JSON.parse(text);
    if (!schemaValidator('pack')(v)) throw new Error('schema errors');
  },
  full: () => {
    const r = validatePack(text, { hashBase64: nodeHasher });
    if (!r.pack) throw new Error(`validation errors: ${JSON.stringify(r.diagnostics.slice(0, 3))}`);
  },
  noisyFloor: () => {
    const v = JSON.parse(noisyText);
    for (const a of v.assets) createHash('sha256').update(Buffer.from(a.data, 'base64')).digest('hex');
  },
  noisy: () => {
    const r = validatePack(noisyText, { hashBase64: nodeHasher });
    if (!r.pack || r.diagnostics.length !== noisyFindings) throw new Error('the noisy pack changed');
  },
  noisyInOrder: () => {
    const r = validatePack(noisyText, { hashBase64: nodeHasher, place: false });
    if (!r.pack || r.diagnostics.length !== noisyFindings) throw new Error('the noisy pack changed');
  },
  brokenFloor: () => {
    const v = JSON.parse(brokenText);
    for (const a of v.assets) createHash('sha256').update(Buffer.from(a.data, 'base64')).digest('hex');
  },
  broken: () => {
    const r = validatePack(brokenText, { hashBase64: nodeHasher });
    if (r.pack || r.diagnostics.length !== brokenErrors) throw new Error('the broken pack changed');
  },
  hostileFloor: () => {
    const v = JSON.parse(hostileText);
    for (const a of v.assets) if (a.data) createHash('sha256').update(Buffer.from(a.data, 'base64')).digest('hex');
  },
  hostile: () => {
    const r = validatePack(hostileText, { hashBase64: nodeHasher });
    if (r.diagnostics.length !== hostileFindings) throw new Error('the hostile pack changed');
  },
  fullPortableHash: () => {
    const r = validatePack(text);
    if (!r.pack) throw new Error('validation errors');
  },
};
// Wall time and CPU time (user + system of this process) per run. On a shared machine CPU time is
// the steadier measure; both are reported and the ratio is taken on CPU time. CPU time counts every
// thread of the process, so before each run the previous run's background work (V8's concurrent
// sweeping after gc(), optimising compiles) is given time to finish; otherwise it is billed to
// whichever case happens to run next.
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, { wall: [], cpu: [] }]));
for (const fn of Object.values(cases)) fn(); // warm up
for (let i = 0; i < runs; i++) {
  for (const [name, fn] of Object.entries(cases)) {
    globalThis.gc?.();
    await settle();
    const c = process.cpuUsage();
    const t = process.hrtime.bigint();
    fn();
    times[name].wall.push(Number(process.hrtime.bigint() - t) / 1e6);
    const d = process.cpuUsage(c);
    times[name].cpu.push((d.user + d.system) / 1000);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const w = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v.wall)]));
const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v.cpu)]));
const ratio = (k) => (m[k] / m.floor).toFixed(2);
const md = `Machine: ${machineLine()}

Pack: 100 automations × 200 nodes, 100 smart lists, 100 templates × 20,000 characters, 100 pipelines × 50 stages, 500 resources, 6 MiB of assets (${(text.length / 1048576).toFixed(1)} MiB of JSON). Median of ${runs} interleaved runs.

| Case | Median CPU ms | Median wall ms | × floor (CPU) |
|---|---|---|---|
| floor: JSON.parse + SHA-256 of the asset bytes (node:crypto) | ${m.floor.toFixed(1)} | ${w.floor.toFixed(1)} | 1.00 |
| ajv schema only (JSON.parse + compiled pack schema) | ${m.schemaOnly.toFixed(1)} | ${w.schemaOnly.toFixed(1)} | ${ratio('schemaOnly')} |
| **full validatePack** (schema + every rule, node:crypto hasher as the CLI passes) | ${m.full.toFixed(1)} | ${w.full.toFixed(1)} | **${ratio('full')}** |
| floor of that pack with unknown config fields and text durations (${(noisyText.length / 1048576).toFixed(1)} MiB) | ${m.noisyFloor.toFixed(1)} | ${w.noisyFloor.toFixed(1)} | 1.00 |
| **full validatePack of that pack: ${noisyFindings.toLocaleString('en-US')} findings, each placed at its line and column** (${noisyWarnings.toLocaleString('en-US')} warnings) | ${m.noisy.toFixed(1)} | ${w.noisy.toFixed(1)} | **${(m.noisy / m.noisyFloor).toFixed(2)}** (of its floor) |
| validatePack of that pack with \`place: false\` (findings in document order, none placed: what pretty output and GitHub annotations ask for) | ${m.noisyInOrder.toFixed(1)} | ${w.noisyInOrder.toFixed(1)} | ${(m.noisyInOrder / m.noisyFloor).toFixed(2)} (of its floor) |
| floor of the pack with every block of a kind this release does not know | ${m.brokenFloor.toFixed(1)} | ${w.brokenFloor.toFixed(1)} | 1.00 |
| validatePack of that pack: ${brokenErrors.toLocaleString('en-US')} schema errors, each placed (the rules stand down at every one of those blocks) | ${m.broken.toFixed(1)} | ${w.broken.toFixed(1)} | ${(m.broken / m.brokenFloor).toFixed(2)} (of its floor) |
| floor of the pack with 2,000 email images (100 used) and 20,000 edges more between nodes named in the wrong case | ${m.hostileFloor.toFixed(1)} | ${w.hostileFloor.toFixed(1)} | 1.00 |
| validatePack of that pack: ${hostileFindings.toLocaleString('en-US')} findings (${hostileCodes}), each placed | ${m.hostile.toFixed(1)} | ${w.hostile.toFixed(1)} | ${(m.hostile / m.hostileFloor).toFixed(2)} (of its floor) |
| full validatePack with the portable (browser) hasher | ${m.fullPortableHash.toFixed(1)} | ${w.fullPortableHash.toFixed(1)} | ${ratio('fullPortableHash')} |

Target: full validation within 2× the floor — ${Number(ratio('full')) <= 2 ? 'met' : 'NOT met'} (${ratio('full')}× on CPU time, ${(w.full / w.floor).toFixed(2)}× on wall time). With ${noisyFindings.toLocaleString('en-US')} findings: ${(m.noisy / m.noisyFloor).toFixed(2)}× placed, ${(m.noisyInOrder / m.noisyFloor).toFixed(2)}× with \`place: false\` (recorded). Peak heap (RSS) of this process after the runs: ${(process.memoryUsage().rss / 1048576).toFixed(0)} MiB.`;
console.log(md);
writeSection('core', md);
