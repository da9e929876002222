// `npm run bench -w packages/cli`: end-to-end `setup-pack validate` on a pack at every limit
// against the floor (node reading the file and JSON.parse-ing it), and start-up time of
// `setup-pack --version` and of validating a small pack. Commands run interleaved, round after
// round, so machine noise hits all of them alike; we report medians and ratios.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, statSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSection, machineLine } from '../../../scripts/bench-report.mjs';
import { generateLimitPack } from './generate.mjs';
import { makeLimitPack } from '../../core/bench/limit-pack.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../../..');
const bin = join(here, '../bin/setup-pack.js');
const rounds = Number(process.env.BENCH_ROUNDS ?? 9);
const dir = mkdtempSync(join(tmpdir(), 'setup-pack-bench-'));
const big = join(dir, 'limits.json');
writeFileSync(big, JSON.stringify(generateLimitPack(), null, 2));
const small = join(root, 'fixtures/valid/buyer-lead-starter.json');
// The pack at every limit as the real service exports it: config fields our catalog does not
// know, one info finding each (about 40,000), and its floor: read, JSON.parse, SHA-256 of assets.
const noisy = join(dir, 'noisy.json');
writeFileSync(noisy, JSON.stringify(makeLimitPack({ unknownFields: 2 }), null, 2));
const hashFloor = (file) => `const v=JSON.parse(require('fs').readFileSync(${JSON.stringify(file)},'utf8'));for(const a of v.assets)require('crypto').createHash('sha256').update(Buffer.from(a.data,'base64')).digest('hex')`;
// A CI monorepo: 1,000 small packs, against a node that reads and JSON.parses them all.
const many = join(dir, 'many');
mkdirSync(many);
const smallText = readFileSync(small, 'utf8');
for (let i = 0; i < 1000; i++) writeFileSync(join(many, `pack-${String(i).padStart(4, '0')}.json`), smallText.replace('"version": "1.0.0"', `"version": "1.0.${i}"`));
const manyFloor = `const fs=require('fs'),p=require('path'),d=${JSON.stringify(many)};for(const f of fs.readdirSync(d))JSON.parse(fs.readFileSync(p.join(d,f),'utf8'))`;
const noisyReport = JSON.parse(spawnSync(process.execPath, [bin, 'validate', '--format', 'json', noisy], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout);
const noisyFindings = noisyReport.summary.errors + noisyReport.summary.warnings + noisyReport.summary.infos;

const check = spawnSync(process.execPath, [bin, 'validate', '--format', 'json', big], { encoding: 'utf8', maxBuffer: 1 << 26 });
const report = JSON.parse(check.stdout);
if (report.summary.errors !== 0) {
  console.error(JSON.stringify(report.files[0].diagnostics.slice(0, 5), null, 2));
  throw new Error('the limit pack does not validate');
}

const cases = {
  floor: [process.execPath, '-e', `JSON.parse(require('fs').readFileSync(${JSON.stringify(big)}, 'utf8'))`],
  validateBig: [process.execPath, bin, 'validate', big],
  nodeStart: [process.execPath, '-e', '0'],
  version: [process.execPath, bin, '--version'],
  validateSmall: [process.execPath, bin, 'validate', small],
  noisyFloor: [process.execPath, '-e', hashFloor(noisy)],
  noisyPretty: [process.execPath, bin, 'validate', noisy],
  noisyJson: [process.execPath, bin, 'validate', '--format', 'json', noisy],
  noisySarif: [process.execPath, bin, 'validate', '--format', 'sarif', noisy],
  noisyGithub: [process.execPath, bin, 'validate', '--format', 'github', noisy],
  manyFloor: [process.execPath, '-e', manyFloor],
  many: [process.execPath, bin, 'validate', many],
};
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) {
  for (const [name, [cmd, ...args]] of Object.entries(cases)) {
    const t = process.hrtime.bigint();
    // The report goes to a pipe that is read, as in CI.
    const res = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 28 });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (res.status === null) throw new Error(`${name} did not finish`);
    if (res.status !== 0) throw new Error(`${name} exited ${res.status}`);
    times[name].push(ms);
  }
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
const mb = (statSync(big).size / 2 ** 20).toFixed(1);
const f = (x) => `${x.toFixed(0)} ms`;
const markdown = `## CLI (\`packages/cli\`)

${machineLine()}; median of ${rounds} interleaved rounds; every command is a fresh \`node\` process.

Limit pack: 100 automations × 200 blocks, 100 smart lists, 100 templates × 20,000 characters, 100 pipelines × 50 stages, 500 resources, 6 MiB of assets; ${mb} MiB of JSON; validates with ${report.summary.errors} errors, ${report.summary.warnings} warnings.

| Command | Median | Ratio |
|---|---:|---:|
| floor: \`node -e\` reading the limit pack with JSON.parse | ${f(m.floor)} | 1.0× |
| \`setup-pack validate\` on the limit pack | ${f(m.validateBig)} | ${(m.validateBig / m.floor).toFixed(1)}× the floor |
| \`node -e 0\` (bare start-up) | ${f(m.nodeStart)} | 1.0× |
| \`setup-pack --version\` | ${f(m.version)} | ${(m.version / m.nodeStart).toFixed(1)}× bare node |
| \`setup-pack validate\` on a small pack (buyer-lead-starter) | ${f(m.validateSmall)} | ${(m.validateSmall / m.nodeStart).toFixed(1)}× bare node |

### Findings at scale

The limit pack with two config fields our catalog does not know on every block, as packs exported by the real service carry them: ${noisyFindings.toLocaleString('en-US')} findings (${noisyReport.summary.infos.toLocaleString('en-US')} infos). Floor: a fresh \`node\` reading it, JSON.parse and SHA-256 of the asset bytes. Every format writes to a pipe that is read; target ≤ 2.5× the floor in each.

| Command | Median | Ratio |
|---|---:|---:|
| floor: read + JSON.parse + SHA-256 of the assets | ${f(m.noisyFloor)} | 1.0× |
| \`setup-pack validate\` (pretty, the default: repeats folded) | ${f(m.noisyPretty)} | ${(m.noisyPretty / m.noisyFloor).toFixed(2)}× |
| \`--format json\` (every finding) | ${f(m.noisyJson)} | ${(m.noisyJson / m.noisyFloor).toFixed(2)}× |
| \`--format sarif\` (every finding) | ${f(m.noisySarif)} | ${(m.noisySarif / m.noisyFloor).toFixed(2)}× |
| \`--format github\` (capped annotations, the rest folded) | ${f(m.noisyGithub)} | ${(m.noisyGithub / m.noisyFloor).toFixed(2)}× |
| floor: a fresh \`node\` reading and JSON.parse-ing 1,000 small packs | ${f(m.manyFloor)} | 1.0× |
| \`setup-pack validate\` on that folder of 1,000 packs (one process) | ${f(m.many)} | ${(m.many / m.manyFloor).toFixed(2)}× (target ≤ 1.5×) |

Before the one-pass placement (2026-11-22) the default pretty output of such a pack did not finish in 11 minutes (a split of the whole file per finding) and \`--format json\` took 9× its floor. Targets of ≤ 2.5× are not met yet: about 300 ms of each run is core placing and building 40,000 findings (see the core section: 9× its floor in-process, GC-bound), SARIF adds a SHA-256 fingerprint per result, and the 1,000-pack run pays module loading and ~0.4 ms of validation per small pack on one thread (a worker pool was slower on 2 cores in the first session; not re-measured).
`;
writeSection('cli', markdown);
console.log(markdown);
rmSync(dir, { recursive: true, force: true });
