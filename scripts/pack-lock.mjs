// Packs every published workspace (the ones not marked private) into <app-dir>, and writes the
// package.json and package-lock.json of a throwaway app there that installs those tarballs, with
// every runtime dependency pinned to the version and integrity this repository's lockfile already
// holds, so `npm ci --offline` installs it from the local npm cache alone (no registry request).
// Prints the tarballs as JSON: [{ name, filename, size, unpackedSize, entryCount, files }].
// Usage: node scripts/pack-lock.mjs <app-dir>
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
const appDir = resolve(process.argv[2]);
mkdirSync(appDir, { recursive: true });

// Workspace folder of each published package, by name.
const workspaces = new Map();
for (const [path, entry] of Object.entries(lock.packages)) {
  if (path && !path.startsWith('node_modules/') && entry.name) workspaces.set(entry.name, path);
}

const out = {};
const rootDeps = {};
/** Node's resolution inside the lockfile: the nearest node_modules/<name> from `from` up. */
function find(name, from) {
  for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
    const path = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (lock.packages[path]) return path;
    if (!dir) return undefined;
  }
}
/**
 * Where a lockfile path goes in the app: a dependency npm nested in a workspace's own
 * node_modules (another version than the root's) goes below that workspace's installed package.
 */
function rebase(path) {
  for (const [name, dir] of workspaces) if (path.startsWith(`${dir}/`)) return `node_modules/${name}/${path.slice(dir.length + 1)}`;
  return path;
}
function add(path) {
  if (out[rebase(path)]) return;
  const entry = lock.packages[path];
  if (entry.link) return; // a workspace: installed from its own tarball
  // The tarball's address (this lockfile leaves it out): with it and the integrity npm reads the
  // tarball straight from its cache, without asking the registry for the package's versions.
  const name = entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
  const resolved = entry.resolved ?? `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${entry.version}.tgz`;
  out[rebase(path)] = { ...entry, resolved, dev: undefined, devOptional: undefined, peer: undefined };
  for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) addDep(name, path);
}
function addDep(name, from) {
  if (workspaces.has(name)) return;
  const path = find(name, from);
  if (!path) throw new Error(`${name} (needed by ${from || 'the app'}) is not in package-lock.json`);
  add(path);
}
const packed = [];
for (const [name, dir] of workspaces) {
  const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
  if (manifest.private) continue;
  const [info] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', appDir], {
      cwd: join(root, dir),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  packed.push({
    name,
    filename: info.filename,
    size: info.size,
    unpackedSize: info.unpackedSize,
    entryCount: info.entryCount,
    files: info.files.map((f) => f.path),
  });
  const ws = lock.packages[dir];
  const spec = `file:${info.filename}`;
  rootDeps[name] = spec;
  out[`node_modules/${name}`] = { version: ws.version, resolved: spec, dependencies: ws.dependencies, bin: ws.bin, engines: ws.engines };
  // Resolved from the workspace's folder, as node does: its own node_modules first, then the root's.
  for (const dep of Object.keys(ws.dependencies ?? {})) addDep(dep, dir);
}
const pkg = { name: 'packaging-check', version: '0.0.0', private: true, dependencies: rootDeps };
writeFileSync(join(appDir, 'package.json'), JSON.stringify(pkg, null, 2));
writeFileSync(
  join(appDir, 'package-lock.json'),
  JSON.stringify(
    {
      name: pkg.name,
      version: pkg.version,
      lockfileVersion: 3,
      requires: true,
      packages: { '': { name: pkg.name, version: pkg.version, dependencies: rootDeps }, ...out },
    },
    null,
    2,
  ),
);
process.stdout.write(`${JSON.stringify(packed, null, 2)}\n`);
