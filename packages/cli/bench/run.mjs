// `npm run bench -w packages/cli`: end-to-end `setup-pack validate` on a pack at every limit
// against the floor (node reading the file and JSON.parse-ing it), and start-up time of
// `setup-pack --version` and of validating a small pack. Commands run interleaved, round after
// round, so machine noise hits all of them alike; we report medians and ratios.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, writeFileSync, statSync, rmSync } from 'node:fs';
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
// know (an info each) and wait durations written as text (a warning each), 43,780 findings, and
// its floor: read, JSON.parse, SHA-256 of the asset bytes.
const noisy = join(dir, 'noisy.json');
writeFileSync(noisy, JSON.stringify(makeLimitPack({ unknownFields: 2, textDurations: true }), null, 2));
// The pack at every limit as a newer service might export it: every block of a kind this release
// does not know, a schema error each (19,900), so the rules stand down at every block.
const broken = join(dir, 'broken.json');
{
  const pack = makeLimitPack();
  for (const a of pack.automations) for (const n of a.document.graph.nodes.slice(1)) n.kind = 'action.send_whatsapp';
  writeFileSync(broken, JSON.stringify(pack, null, 2));
}
// The noisy pack as a source folder (unpack: one file per item, assets as files), as a repository
// keeps it; its floor reads every file, JSON.parses the JSON ones and hashes the assets (SHA-256),
// as the pack file's floor hashes its assets.
const noisyFolder = join(dir, 'noisy-src');
spawnSync(process.execPath, [bin, 'unpack', noisy, noisyFolder], { stdio: 'ignore' });
const folderFloor = `const fs=require('fs'),p=require('path');const walk=(d)=>{for(const e of fs.readdirSync(d,{withFileTypes:true})){const f=p.join(d,e.name);if(e.isDirectory())walk(f);else{const t=fs.readFileSync(f);if(f.endsWith('.json'))JSON.parse(t.toString('utf8'));else if(f.includes('/assets/'))require('crypto').createHash('sha256').update(t).digest('hex')}}};walk(${JSON.stringify(noisyFolder)})`;
// The same binary and bundle without the V8 code cache (a copy laid out as the package is, with no
// cache file): what a node whose V8 rejects the shipped cache runs, side by side with the cache.
const plain = join(dir, 'plain');
mkdirSync(join(plain, 'dist/bundle'), { recursive: true });
copyFileSync(join(here, '../package.json'), join(plain, 'package.json'));
cpSync(join(here, '../bin'), join(plain, 'bin'), { recursive: true });
copyFileSync(join(here, '../dist/bundle/main.cjs'), join(plain, 'dist/bundle/main.cjs'));
const plainBin = join(plain, 'bin/setup-pack.js');
// Peak memory (maximum resident set) of each command, read in one extra untimed run by a preload.
const peakHook = join(dir, 'peak.cjs');
// VmHWM is this process's own high-water mark: getrusage's maxRSS carries the parent's over exec
// (a child spawned from this 140 MiB runner read 144 MiB for a bare node).
writeFileSync(
  peakHook,
  "process.on('exit', () => { let kb = process.resourceUsage().maxRSS; try { kb = Number(/VmHWM:\\s*(\\d+)/.exec(require('fs').readFileSync('/proc/self/status', 'utf8'))[1]); } catch {} require('fs').writeFileSync(process.env.BENCH_PEAK_FILE, String(kb)); });\n",
);
// Each floor reads the way that is quickest for its files: a large pack as bytes decoded by
// toString (node 20's readFileSync(file, 'utf8') took 1.27x that for the 21 MB pack, 15 pairs, and
// inflated the floor by about 100 ms), small packs with readFileSync(file, 'utf8') (one native call
// a file, quicker than the bytes for 10 KB files).
const hashFloor = (file) =>
  `const v=JSON.parse(require('fs').readFileSync(${JSON.stringify(file)}).toString('utf8'));for(const a of v.assets)require('crypto').createHash('sha256').update(Buffer.from(a.data,'base64')).digest('hex')`;
// A CI monorepo: 1,000 small packs, against a node that reads and JSON.parses them all.
const many = join(dir, 'many');
mkdirSync(many);
const smallText = readFileSync(small, 'utf8');
for (let i = 0; i < 1000; i++)
  writeFileSync(join(many, `pack-${String(i).padStart(4, '0')}.json`), smallText.replace('"version": "1.0.0"', `"version": "1.0.${i}"`));
const manyFloor = `const fs=require('fs'),p=require('path'),d=${JSON.stringify(many)};for(const f of fs.readdirSync(d))JSON.parse(fs.readFileSync(p.join(d,f),'utf8'))`;
// What a user would otherwise run on them: ajv-cli checking the published JSON Schema alone (its
// own schemas by reference, formats as core checks them), in one process as `validate` is.
const schemasDir = join(root, 'schemas');
const ajvCli = join(root, 'node_modules/ajv-cli/dist/index.js');
const ajvArgs = [
  'validate',
  '--spec=draft2020',
  '-c',
  'ajv-formats',
  '-s',
  join(schemasDir, 'pack.schema.json'),
  ...readdirSync(schemasDir)
    .filter((f) => f.endsWith('.schema.json') && f !== 'pack.schema.json')
    .flatMap((f) => ['-r', join(schemasDir, f)]),
  '-d',
  join(many, '*.json'),
];
const noisyReport = JSON.parse(
  spawnSync(process.execPath, [bin, 'validate', '--format', 'json', noisy], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout,
);
const noisyFindings = noisyReport.summary.errors + noisyReport.summary.warnings + noisyReport.summary.infos;
const folderFiles = (function count(d) {
  return readdirSync(d, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? count(join(d, e.name)) : 1), 0);
})(noisyFolder);
const brokenErrors = JSON.parse(
  spawnSync(process.execPath, [bin, 'validate', '--format', 'json', broken], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout,
).summary.errors;

const check = spawnSync(process.execPath, [bin, 'validate', '--format', 'json', big], { encoding: 'utf8', maxBuffer: 1 << 26 });
const report = JSON.parse(check.stdout);
if (report.summary.errors !== 0) {
  console.error(JSON.stringify(report.files[0].diagnostics.slice(0, 5), null, 2));
  throw new Error('the limit pack does not validate');
}

// The rows with and without the cache compare what they say they compare.
for (const [which, want] of [
  [bin, 'accepted'],
  [plainBin, 'absent'],
]) {
  const said = spawnSync(process.execPath, [which, '--version'], {
    encoding: 'utf8',
    env: { ...process.env, NODE_DEBUG: 'setup-pack' },
  }).stderr;
  if (!said.includes(`code cache ${want}`)) throw new Error(`${which}: expected "code cache ${want}", got ${JSON.stringify(said)}`);
}

const cases = {
  floor: [process.execPath, '-e', `JSON.parse(require('fs').readFileSync(${JSON.stringify(big)}).toString('utf8'))`],
  validateBig: [process.execPath, bin, 'validate', big],
  nodeStart: [process.execPath, '-e', '0'],
  version: [process.execPath, bin, '--version'],
  versionPlain: [process.execPath, plainBin, '--version'],
  validateSmall: [process.execPath, bin, 'validate', small],
  validateSmallPlain: [process.execPath, plainBin, 'validate', small],
  noisyFloor: [process.execPath, '-e', hashFloor(noisy)],
  noisyPretty: [process.execPath, bin, 'validate', noisy],
  noisyJson: [process.execPath, bin, 'validate', '--format', 'json', noisy],
  noisyJsonPlain: [process.execPath, plainBin, 'validate', '--format', 'json', noisy],
  noisySarif: [process.execPath, bin, 'validate', '--format', 'sarif', noisy],
  noisyGithub: [process.execPath, bin, 'validate', '--format', 'github', noisy],
  folderFloor: [process.execPath, '-e', folderFloor],
  noisyFolder: [process.execPath, bin, 'validate', '--format', 'json', noisyFolder],
  brokenFloor: [process.execPath, '-e', hashFloor(broken)],
  brokenPretty: [process.execPath, bin, 'validate', broken],
  brokenJson: [process.execPath, bin, 'validate', '--format', 'json', broken],
  manyFloor: [process.execPath, '-e', manyFloor],
  many: [process.execPath, bin, 'validate', many],
  manyPlain: [process.execPath, plainBin, 'validate', many],
  manyAjv: [process.execPath, ajvCli, ...ajvArgs],
};
/** Empty when a ratio is within its target, else how far past it. */
const missed = (ratio, target) => (ratio <= target ? '' : ` (target ≤ ${target}×: missed by ${(ratio / target).toFixed(2)}×)`);
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
// Each command runs with its report going to a pipe that is read as it comes and let go, as a CI
// log takes it, and is timed from its start until it has exited and all it wrote has been read.
// (spawnSync would keep every byte and join them after the command has exited, and that work would
// be timed as the command's: about 110 ms for SARIF's 29 MB.)
const timed = (cmd, args) =>
  new Promise((done, fail) => {
    const t = process.hrtime.bigint();
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.on('data', () => {});
    child.on('error', fail);
    child.on('close', (status) => done({ status, ms: Number(process.hrtime.bigint() - t) / 1e6 }));
  });
for (let r = 0; r < rounds; r++) {
  for (const [name, [cmd, ...args]] of Object.entries(cases)) {
    const res = await timed(cmd, args);
    if (res.status === null) throw new Error(`${name} did not finish`);
    // The broken pack's validation fails, as it should: exit code 1.
    if (res.status !== (name.startsWith('broken') && name !== 'brokenFloor' ? 1 : 0)) throw new Error(`${name} exited ${res.status}`);
    times[name].push(res.ms);
  }
}
const peak = {};
for (const [name, [cmd, ...args]] of Object.entries(cases)) {
  const file = join(dir, `peak-${name}.txt`);
  spawnSync(cmd, args, {
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: 1 << 28,
    env: { ...process.env, NODE_OPTIONS: `--require ${peakHook}`, BENCH_PEAK_FILE: file },
  });
  peak[name] = Number(readFileSync(file, 'utf8')) / 1024; // KiB → MiB
}
const mib = (k) => `${peak[k].toFixed(0)} MiB`;
// Instructions as callgrind counts them (valgrind; BENCH_INSTRUCTIONS=0 leaves them out): the same
// count for the same node, bundle and input whatever else the machine is doing, so these ratios
// are free of the host's speed and load that move the medians above between runs. Callgrind runs
// a process's threads one at a time and counts each apart: the main thread is the run's critical
// path (V8's background threads, TurboFan compiling and the collector's helpers, can run on the
// second core), and all threads together are the run's whole work. The kernel's work (reading,
// page faults) is not counted, which the floors' times are mostly made of.
const instructionCases = ['manyFloor', 'many', 'noisyFloor', 'noisyPretty', 'noisyJson', 'noisySarif', 'noisyGithub'];
const instructions = {};
let instructionsSkipped = '';
if (process.env.BENCH_INSTRUCTIONS === '0') instructionsSkipped = 'left out (BENCH_INSTRUCTIONS=0)';
else if (spawnSync('valgrind', ['--version'], { stdio: 'ignore' }).status !== 0)
  instructionsSkipped = 'left out: valgrind is not installed (`apt-get install -y valgrind`)';
else {
  const counted = (name) =>
    new Promise((done, fail) => {
      const [cmd, ...args] = cases[name];
      const out = join(dir, `callgrind-${name}`);
      const child = spawn(
        'valgrind',
        ['--tool=callgrind', '--separate-threads=yes', '--smc-check=all-non-file', `--callgrind-out-file=${out}`, cmd, ...args],
        { stdio: ['ignore', 'pipe', 'ignore'] },
      );
      child.stdout.on('data', () => {});
      child.on('error', fail);
      child.on('close', () => {
        // One file per thread, <out>-01 the main thread; each ends with `summary: <instructions>`.
        const threads = readdirSync(dir)
          .filter((f) => f.startsWith(`callgrind-${name}-`))
          .sort()
          .map((f) => Number(/^summary: (\d+)/m.exec(readFileSync(join(dir, f), 'utf8'))?.[1] ?? NaN));
        if (!threads.length || threads.some(Number.isNaN)) return fail(new Error(`callgrind counted nothing for ${name}`));
        done({ main: threads[0], all: threads.reduce((a, b) => a + b, 0) });
      });
    });
  // The counts do not depend on what runs beside them: two at a time, one per core.
  const queue = [...instructionCases];
  await Promise.all(
    [0, 1].map(async () => {
      for (let name; (name = queue.shift());) instructions[name] = await counted(name);
    }),
  );
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
const mb = (statSync(big).size / 2 ** 20).toFixed(1);
const f = (x) => `${x.toFixed(0)} ms`;
const markdown = `Machine: ${machineLine()}; median of ${rounds} interleaved rounds; every command is a fresh \`node\` process.

Limit pack: 100 automations × 200 blocks, 100 smart lists, 100 templates × 20,000 characters, 100 pipelines × 50 stages, 500 resources, 6 MiB of assets; ${mb} MiB of JSON; validates with ${report.summary.errors} errors, ${report.summary.warnings} warnings.

| Command | Median | Ratio |
|---|---:|---:|
| floor: \`node -e\` reading the limit pack with JSON.parse | ${f(m.floor)} | 1.0× |
| \`setup-pack validate\` on the limit pack | ${f(m.validateBig)} | ${(m.validateBig / m.floor).toFixed(1)}× the floor |
| \`node -e 0\` (bare start-up) | ${f(m.nodeStart)} | 1.0× |
| \`setup-pack --version\` | ${f(m.version)} | ${(m.version / m.nodeStart).toFixed(2)}× bare node |
| the same without the V8 code cache | ${f(m.versionPlain)} | ${(m.versionPlain / m.nodeStart).toFixed(2)}× bare node |
| \`setup-pack validate\` on a small pack (buyer-lead-starter) | ${f(m.validateSmall)} | ${(m.validateSmall / m.nodeStart).toFixed(2)}× bare node |
| the same without the V8 code cache | ${f(m.validateSmallPlain)} | ${(m.validateSmallPlain / m.nodeStart).toFixed(2)}× bare node |

### Findings at scale

The noisy pack: ${noisyFindings.toLocaleString('en-US')} findings (${noisyReport.summary.warnings.toLocaleString('en-US')} warnings, ${noisyReport.summary.infos.toLocaleString('en-US')} infos), ${(statSync(noisy).size / 2 ** 20).toFixed(1)} MiB.

| Command | Median | Ratio | Peak memory |
|---|---:|---:|---:|
| floor: read + JSON.parse + SHA-256 of the assets | ${f(m.noisyFloor)} | 1.0× | ${mib('noisyFloor')} |
| \`setup-pack validate\` (pretty, the default: repeats folded) | ${f(m.noisyPretty)} | ${(m.noisyPretty / m.noisyFloor).toFixed(2)}×${missed(m.noisyPretty / m.noisyFloor, 2.5)} | ${mib('noisyPretty')} |
| \`--format json\` (every finding) | ${f(m.noisyJson)} | ${(m.noisyJson / m.noisyFloor).toFixed(2)}×${missed(m.noisyJson / m.noisyFloor, 2.5)} | ${mib('noisyJson')} |
| \`--format json\` without the V8 code cache | ${f(m.noisyJsonPlain)} | ${(m.noisyJsonPlain / m.noisyFloor).toFixed(2)}× | ${mib('noisyJsonPlain')} |
| \`--format sarif\` (every finding) | ${f(m.noisySarif)} | ${(m.noisySarif / m.noisyFloor).toFixed(2)}×${missed(m.noisySarif / m.noisyFloor, 2.5)} | ${mib('noisySarif')} |
| \`--format github\` (capped annotations, the rest folded) | ${f(m.noisyGithub)} | ${(m.noisyGithub / m.noisyFloor).toFixed(2)}×${missed(m.noisyGithub / m.noisyFloor, 2.5)} | ${mib('noisyGithub')} |
| floor: a fresh \`node\` reading every file of that pack unpacked into a source folder (${folderFiles} files), JSON.parse-ing the JSON ones and SHA-256 of the asset files | ${f(m.folderFloor)} | 1.0× | ${mib('folderFloor')} |
| \`--format json\` on that source folder (build, validate, every finding placed in its source file) | ${f(m.noisyFolder)} | ${(m.noisyFolder / m.folderFloor).toFixed(2)}× | ${mib('noisyFolder')} |
| floor: read + JSON.parse + SHA-256 of the assets of the pack with every block of a kind this release does not know | ${f(m.brokenFloor)} | 1.0× | ${mib('brokenFloor')} |
| \`setup-pack validate\` on it (${brokenErrors.toLocaleString('en-US')} schema errors, pretty: folded into one entry) | ${f(m.brokenPretty)} | ${(m.brokenPretty / m.brokenFloor).toFixed(2)}× | ${mib('brokenPretty')} |
| \`--format json\` on it (every error) | ${f(m.brokenJson)} | ${(m.brokenJson / m.brokenFloor).toFixed(2)}× | ${mib('brokenJson')} |
| floor: a fresh \`node\` reading and JSON.parse-ing 1,000 small packs | ${f(m.manyFloor)} | 1.0× | ${mib('manyFloor')} |
| \`setup-pack validate\` on that folder of 1,000 packs (one process) | ${f(m.many)} | ${(m.many / m.manyFloor).toFixed(2)}× | ${mib('many')} |
| the same without the V8 code cache | ${f(m.manyPlain)} | ${(m.manyPlain / m.manyFloor).toFixed(2)}× | ${mib('manyPlain')} |
| ajv-cli 5 on the same files, the JSON Schema alone (one process) | ${f(m.manyAjv)} | ${(m.manyAjv / m.manyFloor).toFixed(2)}× | ${mib('manyAjv')} |

On the 1,000 packs, \`setup-pack validate\` (every rule, every finding placed) takes ${(m.many / m.manyAjv).toFixed(2)}× the time of ajv-cli's schema-only check${missed(m.many / m.manyAjv, 1)}.

${
  instructionsSkipped
    ? `Instructions (callgrind): ${instructionsSkipped}.`
    : `Instructions counted by callgrind, in millions:

| Command | main thread | × its floor | all threads | × its floor |
|---|---:|---:|---:|---:|
${[
  ['manyFloor', 'manyFloor', 'floor: reading and JSON.parse-ing 1,000 small packs'],
  ['many', 'manyFloor', '`setup-pack validate` on the 1,000 packs'],
  ['noisyFloor', 'noisyFloor', 'floor: read + JSON.parse + SHA-256 of the assets of the noisy pack'],
  ['noisyPretty', 'noisyFloor', 'pretty'],
  ['noisyJson', 'noisyFloor', '`--format json`'],
  ['noisySarif', 'noisyFloor', '`--format sarif`'],
  ['noisyGithub', 'noisyFloor', '`--format github`'],
]
  .map(
    ([k, fl, label]) =>
      `| ${label} | ${(instructions[k].main / 1e6).toFixed(0)} | ${(instructions[k].main / instructions[fl].main).toFixed(2)}× | ${(instructions[k].all / 1e6).toFixed(0)} | ${(instructions[k].all / instructions[fl].all).toFixed(2)}× |`,
  )
  .join('\n')}`
}
`;
writeSection('cli', markdown);
console.log(markdown);
rmSync(dir, { recursive: true, force: true });
