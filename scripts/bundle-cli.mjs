#!/usr/bin/env node
// Bundles the setup-pack command (packages/cli/dist/main.js with core, the installer and their
// dependencies) into one CommonJS file, packages/cli/dist/bundle/main.cjs, and makes its V8 code
// cache, which bin/setup-pack.js loads with it: no module graph to resolve, and the functions a
// validation runs arrive compiled instead of being parsed and compiled from source on every run
// (docs/benchmarks.md, CLI). Part of `npm run build`, after tsc: it reads tsc's output. The
// library API (dist/index.js) is not bundled.
//
// The code cache: V8 accepts a cache for a source of the same length, whatever it says, so the
// cache is named after a hash of the source and the node (main-<hash>.cache) and the source ends
// with that name in a comment; the binary reads only the cache its source names, and a rebuilt
// bundle never meets a stale cache. It is made by running the binary on a warm-up (validate
// fixture packs in each output format, into pipes thrown away) with SETUP_PACK_WRITE_CODE_CACHE
// naming a temporary file: each run loads the cache the runs before it wrote and adds the
// functions it compiled, at exit.
//
// Files are written only when their content changed, each through a temporary file and a rename:
// test files build in parallel while others run the binary, and a process never reads a
// half-written file. main.cjs goes first and its cache after it; a binary started in between
// finds no cache and compiles from source. Files no longer produced (older caches, the chunks of
// earlier builds) are removed.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = fileURLToPath(new URL('../', import.meta.url));
const cli = join(root, 'packages/cli');
const out = join(cli, 'dist/bundle');

const bundle = await rolldown({
  input: join(cli, 'dist/main.js'),
  platform: 'node',
  // jsonc-parser's "main" is a UMD build that require()s its parts; its ESM build bundles cleanly.
  resolve: { mainFields: ['module', 'main'] },
  logLevel: 'warn',
});
// One file, dynamic imports inlined: each command's code is still compiled only when it runs
// (V8 compiles functions lazily), and there is one script for one code cache. It sits directly in
// dist/bundle/, one folder below the package root as dist/lib/*.js do: cliVersion reads
// ../../package.json relative to its own module (under CommonJS, __filename), in either layout.
// Strict mode, as every module in it was (ES modules, and picomatch says 'use strict'): a
// CommonJS file is sloppy unless it says so. ASCII only (non-ASCII characters escaped, doc
// comments dropped): the binary reads it as latin1, V8 keeps it as a one-byte string, and nothing
// has to be decoded from UTF-8 (about 1 ms of 2).
const { output } = await bundle.generate({
  format: 'cjs',
  strict: true,
  codeSplitting: false,
  charset: 'ascii',
  comments: { legal: true, annotation: false, jsdoc: false },
  entryFileNames: 'main.cjs',
});
await bundle.close();
if (output.length !== 1) throw new Error(`bundle-cli: expected one file, rolldown produced ${output.map((o) => o.fileName).join(', ')}`);

// Node's crypto and fs/promises are required where the bundle first uses them, not when it loads:
// a run that hashes no asset and writes no file (validating packs, the commonest run) never
// needs them, and loading them (about twenty internal modules for crypto, readline and file
// watching for fs/promises) was about a tenth of bare node's start-up on top of it. rolldown
// hoists every import to a `let x = require(...)` at the top; each of these becomes an object
// that requires the module at its first property read. A bundle without the line is an error
// here, not a silent eager load.
const LAZY_BUILTINS = ['node:crypto', 'node:fs/promises'];
let code = output[0].code;
for (const id of LAZY_BUILTINS) {
  const line = new RegExp(`^let (\\w+) = require\\(${JSON.stringify(id).replace(/[/]/g, '\\/')}\\);$`, 'm');
  if (!line.test(code)) throw new Error(`bundle-cli: expected the bundle to require ${id} at its top as \`let x = require("${id}");\``);
  code = code.replace(line, (_, name) => `let ${name} = lazyBuiltin(${JSON.stringify(id)});`);
}
code = code.replace(
  /^("use strict";\n)?/,
  (strict) => `${strict}const lazyBuiltin = (id) => { let m; return new Proxy({}, { get: (_, key) => (m ??= require(id))[key] }); };\n`,
);
// The binary runs the bundle as a vm.Script, which has no loader for import(): every dynamic
// import is inlined (codeSplitting: false), and one left over would fail only when it runs.
if (/\bimport\(/.test(code))
  throw new Error('bundle-cli: the bundle still has an import(), which cannot run in the vm.Script bin/setup-pack.js makes of it');
const wide = /[^\x00-\x7f]/.exec(code);
if (wide)
  throw new Error(
    `bundle-cli: the bundle must be ASCII (the binary reads it as latin1), but has ${JSON.stringify(code.slice(Math.max(0, wide.index - 40), wide.index + 10))}`,
  );
// The node that makes the cache is in its name too: building with another node makes a new one.
const cacheName = `main-${createHash('sha256').update(`${process.version} ${process.arch}\n`).update(code).digest('hex').slice(0, 16)}.cache`;
const source = `${code}${code.endsWith('\n') ? '' : '\n'}//# setup-pack-code-cache=${cacheName}\n`;

mkdirSync(out, { recursive: true });
const write = (name, content) => {
  const path = join(out, name);
  let old;
  try {
    old = readFileSync(path, 'utf8');
  } catch {
    old = undefined;
  }
  if (old === content) return;
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, content);
  renameSync(tmp, path);
};
write('main.cjs', source);

// The warm-up: what CI runs most. Packs with errors, warnings and infos, so code frames, folding
// and every formatter's paths run; exit code 1 (findings) is the expected outcome. If it goes
// otherwise, the build says so and ships no cache: the binary then compiles from source, and the
// CLI's tests (code-cache.test.ts) fail on the missing cache rather than on a build error.
const packs = ['valid/buyer-lead-starter.json', 'invalid/graph-cycle.json', 'invalid/catalog-unknown-config-field.json'].map((p) =>
  join(root, 'fixtures', p),
);
const warmUp = [[], ['--format', 'json'], ['--format', 'sarif'], ['--format', 'github']].map((format) => ['validate', ...packs, ...format]);
const cachePath = join(out, cacheName);
if (!existsSync(cachePath)) {
  const tmp = `${cachePath}.${process.pid}.tmp`;
  rmSync(tmp, { force: true }); // a crashed build's leftover: each run reads the cache before it
  const bin = join(cli, 'bin/setup-pack.js');
  let failed;
  for (const args of warmUp) {
    const env = { ...process.env, SETUP_PACK_WRITE_CODE_CACHE: tmp, NO_COLOR: '1' };
    delete env.GITHUB_ACTIONS; // the format is the one asked for, not the Actions default
    delete env.NODE_OPTIONS; // V8 flags would make a cache that a plain node rejects
    const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26 });
    if (r.status !== 1) {
      failed = `\`setup-pack ${args.join(' ')}\` exited ${r.status ?? r.signal}, expected 1 (findings)\n${r.stderr}`;
      break;
    }
  }
  if (failed) {
    rmSync(tmp, { force: true });
    console.warn(`bundle-cli: no code cache: the warm-up ${failed}`);
  } else renameSync(tmp, cachePath);
}
const produced = new Set(['main.cjs', cacheName]);
for (const name of readdirSync(out)) if (!produced.has(name) && !name.endsWith('.tmp')) rmSync(join(out, name));
