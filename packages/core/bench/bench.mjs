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
  hostilePack.assets.push({ key: `img-${i}`, role: 'email_image', fileName: `img-${i}.png`, mimeType: 'image/png', byteSize: 1, sha256: '0'.repeat(64), url: `https://media.example.com/ws/img-${i}.png`, sourceUrl: `https://cdn.example-brokerage.com/email/${i}/hero-${i}.png` });
}
hostilePack.messageTemplates.forEach((t, i) => {
  const img = `<img src="https://cdn.example-brokerage.com/email/${i}/hero-${i}.png">`;
  t.body = t.body.slice(0, -img.length) + img;
});
for (const a of hostilePack.automations) {
  const { nodes, edges } = a.document.graph;
  for (let e = 0; e < nodes.length; e++) edges.push({ id: `shout-${e}`, source: nodes[e].id.toUpperCase(), target: nodes[(e % (nodes.length - 1)) + 1].id.toUpperCase() });
}
const hostileText = JSON.stringify(hostilePack, null, 2);
const hostileDiagnostics = validatePack(hostileText, { hashBase64: nodeHasher }).diagnostics;
const hostileFindings = hostileDiagnostics.length;
const hostileCodes = Object.entries(Object.groupBy?.(hostileDiagnostics, (d) => d.code) ?? hostileDiagnostics.reduce((o, d) => ((o[d.code] ??= []).push(d), o), {})).map(([c, l]) => `${l.length.toLocaleString('en-US')} ${c}`).join(', ');
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
const md = `## core: validatePack on the pack at every limit

Machine: ${machineLine()}

Pack: 100 automations × 200 nodes, 100 smart lists, 100 templates × 20,000 characters, 100 pipelines × 50 stages, 500 resources, 6 MiB of assets (${(text.length / 1048576).toFixed(1)} MiB of JSON). Median of ${runs} interleaved runs (\`npm run bench -- core\`).

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

Target: full validation within 2× the floor — ${Number(ratio('full')) <= 2 ? 'met' : 'NOT met'} (${ratio('full')}× on CPU time, ${(w.full / w.floor).toFixed(2)}× on wall time); with ${noisyFindings.toLocaleString('en-US')} findings — ${m.noisy / m.noisyFloor <= 2 ? 'met' : 'NOT met'} (${(m.noisy / m.noisyFloor).toFixed(2)}× on CPU time). Peak heap (RSS) of this process after the runs: ${(process.memoryUsage().rss / 1048576).toFixed(0)} MiB.

Each run follows a \`gc()\` and a 50 ms pause, so the previous run's background work (concurrent sweeping, optimising compiles) is not billed to it; CPU time counts every thread of the process, so V8's background compiles and GC helpers caused by a validation are part of its cost. The portable hasher (pure JavaScript base64 and SHA-256, what the editor uses in the browser) is shown for reference; the target is read on the Node hasher the CLI passes. How the validator keeps to the budget: [validator.md](validator.md).

History: 4.43× (CPU) at the end of the first session; this session (2026-11-22) 1.5–1.75× over five runs: a one-pass duplicate-key screen and length checks settled by \`.length\` (−30 ms), a graph model of numbered nodes in typed arrays with one id table per pack and rules that stop allocating per element (garbage per validation 10.8 MB → 2.8 MB, no more scavenges copying the parsed pack), base64 strictness checked without re-encoding the assets, and rule code that V8 keeps optimised between validations. Session 5: findings placed by a scan that counts lines as it goes and writes positions into each finding, the wanted pointers in a typed-array trie (placement of 40,000 findings about 120 → 50 ms, garbage per validation 85 → 66 MB); what is left with 43,780 findings: JSON.parse as the floor, building the findings' messages and pointers (about 20 MB), the scan, and the scavenges that copy the findings and the parsed pack. Session 6: the trie's children are linked through its typed array (first child, next sibling; flags instead of a Set) rather than held in a JS array per parent, the last pointer's token ends in two Int32Arrays, skipped containers classify characters by table, and catalog/unknown-config-field's 40,000 messages are built as flat strings — side by side in one process (25 interleaved runs of the code before and after, on the shared machine while other sessions ran their tests: single runs move by ±10 ms), validating this noisy pack 284 → 249 ms CPU (7.07× → 6.20× of its floor), 210 → 187 ms wall. Where its time goes now (timed phases, 10 runs): JSON.parse with the duplicate-key screen about 42 ms, schema 2, rules 40, placement about 100 timed around it (the pointers into the trie about 25 of it and the scan 40–50 when timed alone; the rest is flattening the pointers and the scavenges that fall there), sorting 2; with a 128 MB young generation the same validation takes about 40 ms less CPU, so a fifth of it is the scavenger copying findings that all live to the end. Tried and dropped as not paying: key comparison without startsWith, pointers joined flat. Session 8 (2026-11-23, 2 × AMD EPYC, load average about 5): the scan stops once every wanted value is found (a text that repeats no property name), and \`validatePack(text, { place: false })\` returns the findings in the same order without placing them (the order read from the parsed pack: json/order.ts), for reports that print a few of many: 134 against 224 ms CPU in the same run (3.9× against 6.5× the floor); the CLI's pretty output and GitHub annotations then place only what they print. Session 9 (2026-11-23, the same machine shared with two other sessions' test runs, load average 3–7): catalog/unknown-config-field's 39,800 pointers are joined into flat strings like their messages (a concatenation each was flattened again by the ordering or the placement, pointer by pointer) and \`escapeToken\` returns a token with no ~ or / as it is — side by side in one process against this morning's code (25 interleaved pairs, median of the pair ratios, CPU time): validating this noisy pack 0.95× placed (247 → 238 ms) and 0.90× with \`place: false\` (148 → 134 ms), whose ordering then looks up the value a pointer's last token names only when a later pointer goes below it (the ordering alone 0.90–0.95× in one process, 30 interleaved pairs); and a clean pack costs less per validation, which is what a folder of 1,000 small packs pays while V8 is still interpreting the code (docs/validator.md, \`Many small packs in one process\`): nothing ordered or placed without findings, caches made on first use, declared class fields set once in the constructor instead of class field initialisers, the text source one object of a class instead of five closures, reference keys in one map of type bits, no object spreads or closures per call in validatePack — the first in-process pass over the 1,000 packs 0.89× (16 fresh processes, interleaved), and \`setup-pack validate\` on that folder 0.82–0.90× the CPU time of this morning's build in paired whole-process runs (medians of five runs of 11–21 pairs; peak memory 84 → 66 MiB). Tried and dropped: Object.keys-based or recursive key counting in \`measure\` (faster interpreted, slower optimised), a cached name list for the order of unplaced findings (no faster), prefix comparison by \`startsWith\` in \`sharedDepth\` (slower than the character loop in place), and V8 flags for earlier tier-up (\`--no-lazy-feedback-allocation\`, a smaller interrupt budget: slower in whole-process runs, if partly because other flags make V8 reject the CLI's code cache). Session 10 (2026-11-23, 2 × AMD EPYC shared with two other agents, load average 2–7; side by side in one process against the session-9 build, CPU time, median of pair ratios with \`gc()\` between runs): the Locator and the text source keep one instance alive for the life of the process, as the graph model and the rule context already did — after a full GC freed their hidden classes, every validation with findings compiled the trie, the scan, \`place\` and \`placeAll\` again, which is most of what placing cost in this table (0.73×, 15 pairs); the scan looks for a backslash in property names by one \`indexOf\` per backslash in the text and records an object's length when it finds it (0.94×, 21 pairs); catalog/unknown-config-field joins from two arrays made once (0.97×, 21 and 31 pairs). All together: placed 0.69× (25 pairs, 241 → 161 ms), \`place: false\` 0.96× (15 pairs), the clean pack 0.97× (15 pairs). Tried and dropped: the Locator's spot array sized for every pointer at once (1.005×), a native \`startsWith\` against the last pointer's parent instead of \`sharedDepth\`'s character loop (1.3×, slower), and \`startsWith\` against a string of spaces or a short-string loop in the skip (slower in a micro-benchmark). What is left above the floor: the two scavenges that copy the just-parsed pack once validation allocates (JSON.parse alone triggers none), the rules building 43,780 findings (catalog/unknown-config-field about 15 ms), the scan of the automations' 10 MB character by character (about 35 ms; indentation is most of it) and the trie (about 12 ms). Session 11 (2026-11-23, 2 × AMD EPYC shared with two other agents' test suites, load average 7–14, so only side-by-side ratios; the table above is this session's final code at load 5.5–7: 4.53× placed, 3.61× with \`place: false\`, the clean pack 1.61×, against 4.12×, 3.37× and 1.48× on session 10's quiet hour; side by side in one process with main before this session, 1.02× placed and 1.02× \`place: false\`, 31 pairs at load 6: the table moved with the machine's load, not with the code): issue 12's core target (this noisy pack within 2× its floor) is still not met, and not within reach of the present Diagnostic objects — docs/validator.md, \`Tens of thousands of findings\`, gives the profile shares and why. Landed: groupFindings groups through a map by code and a map by shape instead of a key string per finding (0.77× on these 43,780 findings, 31 pairs), compareAtOnePlace compares codes by UTF-16 unit instead of localeCompare (no ICU per tie; same order, tested against localeCompare), and the graph walks' work arrays are made once per process (garbage per small pack of a folder 44.0 → 41.3–41.5 KB, the first pass over 1,000 packs 1.006× CPU, 21 fresh-process pairs; the out-list fill copied into one too, through a subarray, made it 1.05–1.06× and went back to slice). Tried and dropped: the rules handing ordering and placement the parent pointer of a node's unknown fields (placed 1.00×, \`place: false\` 1.06×, 21 pairs), groupFindings comparing with the previous group before building a shape (1.27×), and, as an upper bound for lazily built messages, one constant message for every unknown field (0.97× placed, 0.96× \`place: false\`, 11 pairs). Session 12 (2026-11-23): no validator speed work; \`groupFindings\` became \`groupFindingsAt\` without its indexes (1.007× on these 43,780 findings in one process, 31 pairs, noise). The table above is this session's code on a quiet hour (19:44 UTC, load 1.9–2.3): placed 4.11×, \`place: false\` 3.24×, the clean pack 1.49× — session 10's quiet hour read 4.12×, 3.37× and 1.48×. Session 13 (2026-11-23): no validator speed work either; core gained \`printable\` and \`printableLine\` (text for terminals and logs), which validation does not call. Three runs of this table on an idle machine (load 1–2) within twenty minutes read placed 3.97×, 4.36× and 4.19×, \`place: false\` 3.11×, 3.55× and 3.42×, the clean pack 1.50×, 1.87× and 1.53× (22:08, 22:22, 22:27 UTC; the table above is the last): the host's speed moved that much with no other work on the machine, so single tables say little and the 2× target for the noisy pack stays out of reach (docs/validator.md). Session 17 (2026-11-25): broken packs got their row. Whether a rule stands down at a place (a schema error at or below it) was answered by walking every schema error, once per block, so a pack whose blocks all had a kind this release does not know took 34 s to validate in one process (20,000 wrong positions 27 s); a sorted set asked by binary search (\`PointerSet\`) made it 0.4 s, and the row above keeps it in view. Session 18 (2026-11-25): a schema error's place and value are read token by token where the pointer's slashes are (describePointer, the validator's valueAt), where each split the pointer into an array and the value's tokens went through two regular expressions: three validations of that pack in one process 0.93× the CPU side by side (paired whole-process runs, 11 pairs). Session 19 (2026-11-25): the walk parse.ts makes over every parsed value (\`measure\`) also compares each number with ±2^53, for the new \`json/number-range\` and \`json/number-precision\` findings (a number JSON cannot hold, an integer that reads as another); the paths and the text are looked at only when one trips it. This table, run after it on a quiet hour: the clean pack 1.29×, placed 4.56×, \`place: false\` 3.62× (session 18's 1.32×, 4.93×, 3.88×): no cost to see. Session 21 (2026-11-25): no validator speed work (core gained the constant \`NOT_AS_WRITTEN\`). Two runs of this table two minutes apart (15:37 and 15:39 UTC, load under 2; the table is the second): the clean pack 1.20× and 1.36×, placed 4.64× and 4.68×, \`place: false\` 3.61× and 3.57×, the broken pack 8.53× and 6.97× (its floor 57.7 and 80.5 ms: the host's speed moved between the runs, the floors by up to 40 %). Session 29 (2026-11-26): the hostile row joined the table, for findings whose rule searched per item: \`asset/unused-email-image\` read every template's text once per email image (core's \`Needles\` now reads each text once for all of them) and \`graph/unknown-node\` built and lower-cased every node id of the graph for each dangling end (now one map per graph); side by side in one process with the session's starting build (5 pairs, load about 13, the same 41,903 findings byte for byte): 0.37× the CPU, about 850 → 310 ms.`;
console.log(md);
writeSection('core', md);
