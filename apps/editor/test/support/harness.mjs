// Shared by the end-to-end tests and the benchmark: builds the editor with vite's JS API into
// a temp dir, serves it (plus the repo's fixtures under /fixtures/) on a free port, and
// launches Debian's Chromium headless through playwright-core. Never downloads a browser.
import { build } from 'vite';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const execFileAsync = promisify(execFile);

export const editorRoot = fileURLToPath(new URL('../../', import.meta.url));
export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

const TYPES = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export async function buildEditor(outDir) {
  outDir ??= await mkdtemp(join(tmpdir(), 'editor-dist-'));
  await build({ configFile: join(editorRoot, 'vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  return outDir;
}

/**
 * One build for the whole test run, where the run has a directory of its own
 * (SETUP_PACK_TEST_TMPDIR, scripts/test-tmpdir.mjs): the browser test files, two at a time, take
 * turns under flock, the first builds (into a side directory renamed whole into place), and the
 * others find it. Outside a test run, a build of its own in a temporary directory.
 * Returns the directory and whether the caller owns it (and removes it).
 */
async function runBuild() {
  const run = process.env.SETUP_PACK_TEST_TMPDIR;
  if (!run) return { outDir: await buildEditor(), owned: true };
  const outDir = join(run, 'editor-dist');
  const script = fileURLToPath(new URL('./build-once.mjs', import.meta.url));
  await execFileAsync('flock', [join(run, 'editor-build.lock'), process.execPath, script, outDir], { cwd: editorRoot });
  return { outDir, owned: false };
}

/** Serves `dir` at / and extra routes (path prefix → directory, or exact path → text). */
export async function serveStatic(dir, extra = {}) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    let path = decodeURIComponent(url.pathname);
    if (typeof extra[path] === 'string') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(extra[path]);
    }
    let base = dir;
    for (const [prefix, d] of Object.entries(extra)) {
      if (typeof d === 'object' && path.startsWith(prefix)) {
        base = d.dir;
        path = path.slice(prefix.length - 1);
      }
    }
    let file = normalize(join(base, path));
    if (!file.startsWith(normalize(base))) return res.writeHead(403).end();
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const chromiumPath = () => process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Why the browser suites cannot run here (no Chromium at CHROMIUM_PATH), or null. A fresh machine
 * without Chromium skips them visibly instead of failing; `.ci/run` installs it.
 */
export function chromiumMissing() {
  const path = chromiumPath();
  if (existsSync(path)) return null;
  return `no Chromium at ${path}: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH`;
}

export function launchBrowser() {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
}

/** Builds, serves (with fixtures at /fixtures/) and launches: everything an e2e run needs. */
export async function startEditor() {
  const { outDir, owned } = await runBuild();
  const server = await serveStatic(outDir, { '/fixtures/': { dir: join(repoRoot, 'fixtures') } });
  const browser = await launchBrowser();
  return {
    url: server.url,
    browser,
    async close() {
      await browser.close();
      await server.close();
      if (owned) await rm(outDir, { recursive: true, force: true });
    },
  };
}
