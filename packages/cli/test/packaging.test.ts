// The packages as users get them: `npm pack` every published workspace, install the tarballs into
// an empty folder with no network (npm ci --offline against the tarballs and the local npm cache),
// and run the front-door commands from there. A runtime file left out of a tarball fails here.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, FIXTURES, ROOT } from './helpers.js';
import { LspClient } from '../../language-server/test/client.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const browserMissing = existsSync(chromiumPath)
  ? ''
  : `no Chromium at ${chromiumPath}: install Debian's chromium (npm run setup:test) or set CHROMIUM_PATH`;
const app = mkdtempSync(join(tmpdir(), 'setup-pack-packaging-'));
let packed: { name: string; filename: string; size: number; files: string[] }[] = [];

/** npx from the app folder; --no: never download a package by name. */
function npx(args: string[]) {
  const r = spawnSync('npx', ['--no', ...args], { cwd: app, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  buildCli(['packages/cli', 'apps/workspace-server']);
  packed = JSON.parse(execFileSync(process.execPath, [join(ROOT, 'scripts/pack-lock.mjs'), app], { encoding: 'utf8' }));
  execFileSync('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app, stdio: 'pipe' });
}, 240_000);

afterAll(() => rmSync(app, { recursive: true, force: true }));

describe('npm packages', () => {
  it('packs the five published packages with their runtime files only', () => {
    expect(packed.map((p) => p.name).sort()).toEqual([
      '@setup-pack/core',
      '@setup-pack/installer',
      '@setup-pack/language-server',
      '@setup-pack/workspace-server',
      'setup-pack',
    ]);
    for (const p of packed) {
      expect(p.files, p.name).toContain('package.json');
      expect(p.files, p.name).toContain('README.md');
      expect(p.files, p.name).toContain('LICENSE');
      expect(
        p.files.filter((f) => /(^|\/)(src|test|bench)\/|\.tsbuildinfo$|\.map$/.test(f)),
        p.name,
      ).toEqual([]);
    }
    expect(packed.find((p) => p.name === 'setup-pack')!.files).toContain('bin/setup-pack.js');
    const server = packed.find((p) => p.name === '@setup-pack/workspace-server')!.files;
    expect(server).toContain('bin/workspace-server.js');
    // The editor's static build rides along (prepack builds it), so one install gives both.
    expect(server).toContain('editor/index.html');
    expect(server.filter((f) => /^editor\/assets\/.+\.js$/.test(f)).length).toBeGreaterThan(0);
  });

  it('runs the bundled command with its code cache, and knows its version', () => {
    const files = packed.find((p) => p.name === 'setup-pack')!.files;
    expect(files).toContain('dist/bundle/main.cjs');
    expect(files).toContain('bin/package.json'); // the binary is CommonJS in a "type": "module" package
    // The cache the bundle names ships beside it; the node that built it (this one) accepts it.
    const cacheName = /\/\/# setup-pack-code-cache=(\S+)\n$/.exec(
      readFileSync(join(app, 'node_modules/setup-pack/dist/bundle/main.cjs'), 'utf8'),
    )?.[1];
    expect(files).toContain(`dist/bundle/${cacheName}`);
    const v = spawnSync('npx', ['--no', '--', 'setup-pack', '--version'], {
      cwd: app,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '', NODE_DEBUG: 'setup-pack' },
    }); // after --: the command's flag, not npm's
    expect(v.status, v.stderr).toBe(0);
    expect(v.stderr).toMatch(/^SETUP-PACK \d+: code cache accepted$/m);
    expect(v.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'packages/cli/package.json'), 'utf8')).version);
  });

  it('setup-pack validate runs from the installed tarballs', () => {
    const r = npx(['setup-pack', 'validate', join(FIXTURES, 'valid/buyer-lead-starter.json')]);
    expect(r.stderr + r.stdout).toContain('0 errors');
    expect(r.code).toBe(0);
    const bad = npx(['setup-pack', 'validate', join(FIXTURES, 'invalid/graph-cycle.json'), '--format', 'json']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('graph/');
  });

  it('setup-pack lsp --stdio runs from the installed tarballs: findings from its worker, answers from its model', async () => {
    expect(packed.find((p) => p.name === '@setup-pack/language-server')!.files).toContain('dist/worker.js');
    const client = await LspClient.start({ bin: join(app, 'node_modules/setup-pack/bin/setup-pack.js'), cwd: app });
    try {
      const file = join(FIXTURES, 'invalid/graph-cycle.json');
      const text = readFileSync(file, 'utf8');
      await client.open('file:///graph-cycle.json', text);
      expect((await client.diagnostics('file:///graph-cycle.json', 1)).map((d) => d.code)).toEqual(['graph/cycle']);
      const symbols = await client.request<{ name: string }[]>('textDocument/documentSymbol', {
        textDocument: { uri: 'file:///graph-cycle.json' },
      });
      expect(symbols.length).toBeGreaterThan(0);
    } finally {
      expect(await client.stop()).toBe(0);
    }
  });

  it('setup-pack unpack and build give the pack back', () => {
    const source = join(FIXTURES, 'valid/buyer-lead-starter.json');
    expect(npx(['setup-pack', 'unpack', source, 'src']).code).toBe(0);
    const built = npx(['setup-pack', 'build', 'src', '-o', 'built.json']);
    expect(built.code, built.stderr).toBe(0);
    const diff = npx(['setup-pack', 'diff', source, 'built.json', '--format', 'json']);
    expect(diff.code, diff.stderr).toBe(0);
    const pack = JSON.parse(readFileSync(join(app, 'built.json'), 'utf8'));
    expect(pack.packId).toBe(JSON.parse(readFileSync(source, 'utf8')).packId);
  });

  it('workspace-server serve --memory answers /v1/me over HTTP and serves the editor it ships', async () => {
    const child = spawn('npx', ['--no', 'workspace-server', 'serve', '--memory', '--port', '0', '--seed', 'demo'], {
      cwd: app,
      env: { ...process.env, ADMIN_TOKEN: 'adm_packaging' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    try {
      const { url, key, editor } = await new Promise<{ url: string; key: string; editor: string }>((resolve, reject) => {
        child.stdout.on('data', (d) => {
          out += d;
          const url = /Base URL: (\S+)/.exec(out)?.[1];
          const key = /API key \(full_access\): (\S+)/.exec(out)?.[1];
          const editor = /Editor: (\S+)/.exec(out)?.[1];
          if (url && key && editor) resolve({ url, key, editor });
        });
        child.on('exit', (code) => reject(new Error(`workspace-server exited ${code}: ${err}\n${out}`)));
      });
      const res = await fetch(`${url}/v1/me`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).toContain('Demo Realty');

      expect(editor).toBe(`${url}/editor/`);
      const index = await fetch(editor);
      expect(index.status).toBe(200);
      const html = await index.text();
      const scripts = [...html.matchAll(/src="\.\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]);
      expect(scripts.length).toBeGreaterThan(0);
      for (const s of scripts) expect((await fetch(`${editor}${s}`)).status, s).toBe(200);
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
    }
  });

  // The shipped editor, served by the installed server, in a real browser: it renders, opens a
  // pack dropped on it and shows its findings (the validation worker loads from the package too).
  it.skipIf(browserMissing)(
    `the editor the server ships works in Chromium${browserMissing ? ` (skipped: ${browserMissing})` : ''}`,
    async () => {
      const child = spawn('npx', ['--no', 'workspace-server', 'serve', '--memory', '--port', '0'], {
        cwd: app,
        env: { ...process.env, ADMIN_TOKEN: 'adm_packaging' },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let out = '';
      const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
      try {
        const editor = await new Promise<string>((resolve, reject) => {
          child.stdout.on('data', (d) => {
            out += d;
            const m = /Editor: (\S+)/.exec(out);
            if (m) resolve(m[1]);
          });
          child.on('exit', (code) => reject(new Error(`workspace-server exited ${code}: ${out}`)));
        });
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(editor);
        await page.getByTestId('open-file').setInputFiles(join(FIXTURES, 'invalid/graph-cycle.json'));
        await page.locator('.toolbar .source', { hasText: 'graph-cycle.json' }).waitFor({ timeout: 30_000 });
        await page.getByText('graph/cycle').first().waitFor({ timeout: 30_000 });
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
        process.kill(-child.pid!, 'SIGTERM');
      }
    },
    90_000,
  );
});

// MIT, stated once at the root and carried by every tarball (npm packs a package folder's LICENSE
// whatever its "files" say). The project has no public address yet, so repository, homepage and
// bugs may be absent; when one is given it must be a real URL, not a placeholder.
describe('licence and package metadata', () => {
  const licence = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
  const manifests = [
    'package.json',
    ...['packages', 'apps'].flatMap((dir) => readdirSync(join(ROOT, dir)).map((p) => `${dir}/${p}/package.json`)),
  ]
    .filter((f) => existsSync(join(ROOT, f)))
    .map((f) => ({ file: f, json: JSON.parse(readFileSync(join(ROOT, f), 'utf8')) as Record<string, unknown> }));

  it('has an MIT LICENSE at the root naming the Setup Pack authors', () => {
    expect(licence).toMatch(/^MIT License\n/);
    expect(licence).toContain('Copyright (c) 2026 the Setup Pack authors');
    expect(licence).toContain('Permission is hereby granted, free of charge');
  });

  it('declares "license": "MIT" in every package.json', () => {
    expect(manifests.length).toBeGreaterThanOrEqual(7);
    for (const { file, json } of manifests) expect(json.license, file).toBe('MIT');
  });

  it('ships the root LICENSE, word for word, in every published package', () => {
    for (const { file } of manifests.filter((m) => m.file !== 'package.json' && !m.json.private)) {
      expect(readFileSync(join(ROOT, file, '../LICENSE'), 'utf8'), file).toBe(licence);
    }
    for (const p of packed) expect(readFileSync(join(app, 'node_modules', p.name, 'LICENSE'), 'utf8'), p.name).toBe(licence);
  });

  it('accepts no repository, homepage or bugs, and a real URL when one is given', () => {
    const url = (v: unknown) => (typeof v === 'string' ? v : (v as { url?: string } | undefined)?.url);
    for (const { file, json } of manifests) {
      for (const field of ['repository', 'homepage', 'bugs']) {
        if (json[field] === undefined) continue;
        expect(url(json[field]), `${file} ${field}`).toMatch(/^(git\+)?https:\/\/(?!example\.)[^/]+\/\S+/);
      }
    }
  });
});

describe('CI wrappers', () => {
  const version = (JSON.parse(readFileSync(join(ROOT, 'packages/cli/package.json'), 'utf8')) as { version: string }).version;

  /** The action's step script, run by bash as the runner would, with its inputs in the environment. */
  function runAction(cwd: string, inputs: Record<string, string>) {
    const action = readFileSync(join(ROOT, 'action.yml'), 'utf8');
    const block = action.slice(action.indexOf('      run: |\n') + '      run: |\n'.length);
    const script = block
      .split('\n')
      .map((l) => l.replace(/^ {8}/, ''))
      .join('\n');
    const env = {
      ...process.env,
      GITHUB_WORKSPACE: cwd,
      SP_FILES: '',
      SP_MAX_WARNINGS: '',
      SP_SARIF: '',
      SP_VERSION: version,
      SP_DOWNLOAD: 'false',
      ...inputs,
    };
    return spawnSync('bash', ['-c', script], { cwd, env, encoding: 'utf8' });
  }

  it("action.yml runs the repository's own setup-pack and annotates the findings", () => {
    mkdirSync(join(app, 'packs'), { recursive: true });
    copyFileSync(join(FIXTURES, 'invalid/graph-cycle.json'), join(app, 'packs/graph-cycle.json'));
    const r = runAction(app, { SP_FILES: 'packs/*.json' });
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^::error file=packs\/graph-cycle\.json,line=141,.*graph\/cycle/m);
  });

  it('action.yml never downloads a package by name unless asked, and then only an exact release', () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-setup-pack-'));
    const r = runAction(empty, { SP_FILES: 'packs/*.json' });
    expect(r.status).toBe(2);
    expect(r.stdout).toContain(
      `::error::setup-pack action: setup-pack is not installed in ${empty}. Add it to the repository (npm install --save-dev --save-exact setup-pack@${version})`,
    );
    const ranged = runAction(empty, { SP_FILES: 'packs/*.json', SP_DOWNLOAD: 'true', SP_VERSION: 'latest' });
    expect(ranged.status).toBe(2);
    expect(ranged.stdout).toContain("version must be an exact release such as 0.1.0, got 'latest'");
    const action = readFileSync(join(ROOT, 'action.yml'), 'utf8');
    expect(action).toMatch(new RegExp(`version:[\\s\\S]*?default: '${version.replace(/\./g, '\\.')}'`));
    expect(action).toMatch(/download:[\s\S]*?default: 'false'/);
  });

  it('the pre-commit hooks never download a package by name and name this release', () => {
    const hooks = readFileSync(join(ROOT, '.pre-commit-hooks.yaml'), 'utf8');
    for (const entry of hooks.match(/entry: .*/g) ?? []) expect(entry).toMatch(/^entry: npx --no -- setup-pack /);
    expect(hooks).toContain(`setup-pack@${version}`);
  });
});
