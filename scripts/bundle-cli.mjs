#!/usr/bin/env node
// Bundles the setup-pack command (packages/cli/dist/main.js with core, the installer and their
// dependencies) into packages/cli/dist/bundle/, which bin/setup-pack.js runs. One module graph to
// load instead of about a hundred files cuts the start-up every CI run pays (docs/benchmarks.md,
// CLI). Each command stays its own chunk, loaded only when it runs. Part of `npm run build`, after
// tsc: it reads tsc's output. The library API (dist/index.js) is not bundled.
//
// Files are written only when their content changed, each through a temporary file and a rename,
// and main.js last: test files build in parallel while others run the binary, and a process never
// reads a half-written chunk. Chunks no longer produced are removed.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const cli = fileURLToPath(new URL('../packages/cli/', import.meta.url));
const out = join(cli, 'dist/bundle');

const bundle = await rolldown({
  input: join(cli, 'dist/main.js'),
  platform: 'node',
  // jsonc-parser's "main" is a UMD build that require()s its parts; its ESM build bundles cleanly.
  resolve: { mainFields: ['module', 'main'] },
  logLevel: 'warn',
});
// Chunks sit directly in dist/bundle/, one folder below the package root as dist/lib/*.js do:
// cliVersion reads ../../package.json relative to its own module, in either layout.
const { output } = await bundle.generate({ format: 'esm', entryFileNames: 'main.js', chunkFileNames: '[name]-[hash].js' });
await bundle.close();

mkdirSync(out, { recursive: true });
const produced = new Set(output.map((o) => o.fileName));
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
const text = (o) => (o.type === 'chunk' ? o.code : typeof o.source === 'string' ? o.source : Buffer.from(o.source).toString('utf8'));
for (const o of output) if (o.fileName !== 'main.js') write(o.fileName, text(o));
write('main.js', text(output.find((o) => o.fileName === 'main.js')));
for (const name of readdirSync(out)) if (!produced.has(name) && !name.endsWith('.tmp')) rmSync(join(out, name));
