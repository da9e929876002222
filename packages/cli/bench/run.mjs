// `npm run bench -w packages/cli`: end-to-end `setup-pack validate` on a pack at every limit
// against the floor (node reading the file and JSON.parse-ing it), and start-up time of
// `setup-pack --version` and of validating a small pack. Commands run interleaved, round after
// round, so machine noise hits all of them alike; we report medians and ratios.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, statSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSection, machineLine } from '../../../scripts/bench-report.mjs';
import { generateLimitPack } from './generate.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../../..');
const bin = join(here, '../bin/setup-pack.js');
const rounds = Number(process.env.BENCH_ROUNDS ?? 9);
const dir = mkdtempSync(join(tmpdir(), 'setup-pack-bench-'));
const big = join(dir, 'limits.json');
writeFileSync(big, JSON.stringify(generateLimitPack(), null, 2));
const small = join(root, 'fixtures/valid/buyer-lead-starter.json');

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
};
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) {
  for (const [name, [cmd, ...args]] of Object.entries(cases)) {
    const t = process.hrtime.bigint();
    const res = spawnSync(cmd, args, { stdio: 'ignore' });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
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
`;
writeSection('cli', markdown);
console.log(markdown);
rmSync(dir, { recursive: true, force: true });
