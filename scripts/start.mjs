#!/usr/bin/env node
// `npm start`: the editor (vite dev server) with a demo pack preloaded, and — once it is built —
// the workspace server on its embedded store with a demo workspace. Ctrl-C stops both.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const editorRoot = join(root, 'apps', 'editor');
const fixtures = join(root, 'fixtures');
const demoPack = process.env.DEMO_PACK ?? 'valid/buyer-lead-starter.json';

// Serves the repo's fixtures at /demo/ so `?pack=/demo/valid/buyer-lead-starter.json` opens one.
const demoFixtures = {
  name: 'setup-pack-demo-fixtures',
  configureServer(server) {
    server.middlewares.use('/demo/', (req, res, next) => {
      const rel = decodeURIComponent((req.url ?? '/').split('?')[0]).replace(/^\/+/, '');
      const file = join(fixtures, rel);
      if (!file.startsWith(fixtures) || !rel.endsWith('.json') || !existsSync(file)) return next();
      res.setHeader('content-type', 'application/json');
      res.end(readFileSync(file));
    });
  },
};

const { createServer } = await import('vite');
const vite = await createServer({
  configFile: join(editorRoot, 'vite.config.ts'),
  plugins: [demoFixtures],
  server: { port: Number(process.env.EDITOR_PORT ?? 5173), host: process.env.EDITOR_HOST ?? '127.0.0.1' },
});
await vite.listen();
const base = (vite.resolvedUrls?.local[0] ?? `http://127.0.0.1:${vite.config.server.port}/`).replace(/\/$/, '');
const releases = readdirSync(join(fixtures, 'releases'))
  .filter((f) => f.endsWith('.json'))
  .sort();
console.log(`\nSetup Pack editor:   ${base}/?pack=/demo/${demoPack}`);
if (releases.length >= 2) console.log(`Release diff demo:   ${base}/?old=/demo/releases/${releases[0]}&new=/demo/releases/${releases[1]}`);
console.log(`(unsaved work is kept in the browser; "New pack" or "Discard and reload" starts over)`);

let child;
const serverBin = join(root, 'apps', 'workspace-server', 'bin', 'workspace-server.js');
if (existsSync(join(root, 'apps', 'workspace-server', 'dist', 'bin.js')) && existsSync(serverBin)) {
  // The editor (another origin) may call the API: the server allows exactly the editor's origin.
  const args = ['serve', '--seed', 'demo', '--port', String(process.env.WORKSPACE_PORT ?? 8787), '--cors-origin', new URL(base).origin];
  console.log(`\nStarting the workspace server (embedded store): node apps/workspace-server/bin/workspace-server.js ${args.join(' ')}`);
  child = spawn(process.execPath, [serverBin, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  // Its output passes through; once it prints the demo workspace's address and key, the editor
  // address that opens already connected (the fragment never reaches a server; the editor drops it).
  let out = '';
  child.stdout.on('data', (d) => {
    process.stdout.write(d);
    if (out === null) return;
    out += d;
    const url = /Base URL: (\S+)/.exec(out)?.[1];
    const key = /API key \(full_access\): (\S+)/.exec(out)?.[1];
    if (url && key) {
      out = null;
      console.log(
        `\nEditor connected to the demo workspace: ${base}/?pack=/demo/${demoPack}#workspace=${encodeURIComponent(url)}&key=${encodeURIComponent(key)}\n`,
      );
    }
  });
  child.on('exit', (code, signal) => {
    if (!stopping) console.log(`workspace server exited (${signal ?? code})`);
    child = undefined;
  });
} else {
  console.log('\n(The workspace server is not built yet: run `npm run build` to start it here too.)');
}
console.log('\nCtrl-C stops everything.\n');

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  if (child) child.kill('SIGINT');
  await vite.close();
  if (child) await new Promise((r) => (child ? child.once('exit', r) : r()));
  process.exit(0);
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
