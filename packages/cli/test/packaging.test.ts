// The packages as users get them: `npm pack` every published workspace, install the tarballs into
// an empty folder with no network (npm ci --offline against the tarballs and the local npm cache),
// and run the front-door commands from there. A runtime file left out of a tarball fails here.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, ROOT } from './helpers.js';

const app = mkdtempSync(join(tmpdir(), 'setup-pack-packaging-'));
let packed: { name: string; filename: string; size: number; files: string[] }[] = [];

/** npx from the app folder; --no: never download a package by name. */
function npx(args: string[]) {
  const r = spawnSync('npx', ['--no', ...args], { cwd: app, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  execFileSync('flock', ['/tmp/setup-pack-cli-test-build.lock', process.execPath, tsc, '-b', 'packages/cli', 'apps/workspace-server'], { cwd: ROOT, stdio: 'pipe' });
  packed = JSON.parse(execFileSync(process.execPath, [join(ROOT, 'scripts/pack-lock.mjs'), app], { encoding: 'utf8' }));
  execFileSync('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app, stdio: 'pipe' });
}, 240_000);

afterAll(() => rmSync(app, { recursive: true, force: true }));

describe('npm packages', () => {
  it('packs the four published packages with their runtime files only', () => {
    expect(packed.map((p) => p.name).sort()).toEqual(['@setup-pack/core', '@setup-pack/installer', '@setup-pack/workspace-server', 'setup-pack']);
    for (const p of packed) {
      expect(p.files, p.name).toContain('package.json');
      expect(p.files, p.name).toContain('README.md');
      expect(p.files.filter((f) => /(^|\/)(src|test|bench)\/|\.tsbuildinfo$|\.map$/.test(f)), p.name).toEqual([]);
    }
    expect(packed.find((p) => p.name === 'setup-pack')!.files).toContain('bin/setup-pack.js');
    expect(packed.find((p) => p.name === '@setup-pack/workspace-server')!.files).toContain('bin/workspace-server.js');
  });

  it('setup-pack validate runs from the installed tarballs', () => {
    const r = npx(['setup-pack', 'validate', join(FIXTURES, 'valid/buyer-lead-starter.json')]);
    expect(r.stderr + r.stdout).toContain('0 errors');
    expect(r.code).toBe(0);
    const bad = npx(['setup-pack', 'validate', join(FIXTURES, 'invalid/graph-cycle.json'), '--format', 'json']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('graph/');
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

  it('workspace-server serve --memory answers /v1/me over HTTP', async () => {
    const child = spawn('npx', ['--no', 'workspace-server', 'serve', '--memory', '--port', '0', '--seed', 'demo'], { cwd: app, env: { ...process.env, ADMIN_TOKEN: 'adm_packaging' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    try {
      const { url, key } = await new Promise<{ url: string; key: string }>((resolve, reject) => {
        child.stdout.on('data', (d) => {
          out += d;
          const url = /Base URL: (\S+)/.exec(out)?.[1];
          const key = /API key \(full_access\): (\S+)/.exec(out)?.[1];
          if (url && key) resolve({ url, key });
        });
        child.on('exit', (code) => reject(new Error(`workspace-server exited ${code}: ${err}`)));
      });
      const res = await fetch(`${url}/v1/me`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).toContain('Demo Realty');
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
    }
  });
});

describe('CI wrappers', () => {
  const version = (JSON.parse(readFileSync(join(ROOT, 'packages/cli/package.json'), 'utf8')) as { version: string }).version;

  it('action.yml runs the repository\'s setup-pack or exactly this release, never an unpinned name', () => {
    const action = readFileSync(join(ROOT, 'action.yml'), 'utf8');
    expect(action).toMatch(new RegExp(`version:[\\s\\S]*?default: '${version.replace(/\./g, '\\.')}'`));
    expect(action).not.toMatch(/@latest|default: 'latest'/);
    expect(action).not.toMatch(/npx --yes setup-pack(?!@\$SP_VERSION)/);
  });

  it('the pre-commit hooks never download a package by name and name this release', () => {
    const hooks = readFileSync(join(ROOT, '.pre-commit-hooks.yaml'), 'utf8');
    for (const entry of hooks.match(/entry: .*/g) ?? []) expect(entry).toMatch(/^entry: npx --no -- setup-pack /);
    expect(hooks).toContain(`setup-pack@${version}`);
  });
});
