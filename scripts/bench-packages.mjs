// The published packages' sizes and what they install, for docs/benchmarks.md ("Packages"):
// `npm pack --dry-run` of each published workspace, and its runtime dependencies counted from
// package-lock.json (its `dependencies` and everything they pull in, our own packages apart).
// Usage: node scripts/bench-packages.mjs (part of `npm run bench`; run `npm run build` first, so the
// tarballs hold the built files).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLine, writeSection } from './bench-report.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
const ours = new Map(
  Object.entries(lock.packages)
    .filter(([path, e]) => path && !path.startsWith('node_modules/') && e.name)
    .map(([path, e]) => [e.name, path]),
);

/** The nearest node_modules/<name> from `from` up, as Node resolves it. */
function find(name, from) {
  for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
    const path = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (lock.packages[path]) return path;
    if (!dir) return undefined;
  }
}

/** Third-party lockfile entries a workspace installs at run time, and our packages it needs. */
function closure(workspace) {
  const seen = new Set();
  const own = new Set();
  const visit = (deps, from) => {
    for (const name of Object.keys(deps ?? {})) {
      if (ours.has(name)) {
        // Resolved from the package's own folder first, as Node does: a version it pins may sit there.
        if (!own.has(name)) {
          own.add(name);
          visit(lock.packages[ours.get(name)].dependencies, ours.get(name));
        }
        continue;
      }
      const path = find(name, from);
      if (!path) throw new Error(`${name} is not in package-lock.json`);
      if (seen.has(path)) continue;
      seen.add(path);
      visit({ ...lock.packages[path].dependencies, ...lock.packages[path].optionalDependencies }, path);
    }
  };
  visit(lock.packages[workspace].dependencies, workspace);
  return { thirdParty: seen.size, own: [...own].sort() };
}

const kib = (bytes) => `${(bytes / 1024).toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} KiB`;
const rows = [];
for (const [name, dir] of ours) {
  const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
  if (manifest.private) continue;
  const [info] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: join(root, dir), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  const direct = Object.keys(manifest.dependencies ?? {});
  const { thirdParty, own } = closure(dir);
  rows.push(
    `| \`${name}\` | ${kib(info.size)} | ${kib(info.unpackedSize)} | ${info.entryCount} | ${direct.length} (${direct.join(', ') || 'none'}) | ${thirdParty}${own.length ? ` (with ${own.join(', ')})` : ''} |`,
  );
}
const md = [
  `Machine: ${machineLine()}; npm ${execFileSync('npm', ['--version'], { encoding: 'utf8' }).trim()}`,
  '',
  '| Package | Tarball | Unpacked | Files | Direct dependencies | Third-party packages installed |',
  '|---|---:|---:|---:|---|---:|',
  ...rows,
].join('\n');
writeSection('packages', md);
console.log(md);
