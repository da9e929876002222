// The front-door commands: every subcommand answers --help, a wrong option is a usage error, and
// `npm run server` (as the README says) starts a server that answers.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../bin/workspace-server.js', import.meta.url));
const root = fileURLToPath(new URL('../../../', import.meta.url));

function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string>; until?: RegExp; then?: (m: RegExpExecArray) => Promise<void> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(cmd, args, {
    cwd: opts.cwd,
    env: { ...process.env, ADMIN_TOKEN: 'adm', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  let stopping = false;
  child.stdout.on('data', (d) => {
    stdout += d;
    // A server runs until stopped: once it said what we wait for (and we used it), stop its process group.
    const m = opts.until?.exec(stdout);
    if (m && !stopping) {
      stopping = true;
      void (opts.then ?? (async () => {}))(m).finally(() => process.kill(-child.pid!, 'SIGTERM'));
    }
  });
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('workspace-server commands', () => {
  it.each(['serve', 'create-workspace', 'create-key', 'revoke-key', 'add-member'])(
    '%s --help prints its usage and exits 0',
    async (command) => {
      const r = await run(process.execPath, [bin, command, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`  workspace-server ${command}`);
      expect(r.stdout).toContain('Environment:');
    },
  );

  it('an unknown option is a usage error that says how to get help', async () => {
    const r = await run(process.execPath, [bin, 'serve', '--nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("workspace-server serve: Unknown option '--nope'; run 'workspace-server serve --help'\n");
  });

  it('an admin command says in words which address refused it and what to do, or that nothing answered there', async () => {
    let refused = { code: 0 as number | null, stderr: '' };
    let sayNo = { code: 0 as number | null, stderr: '' };
    await run(process.execPath, [bin, 'serve', '--memory', '--port', '0'], {
      until: /listening on (http:\/\/\S+)/,
      then: async (m) => {
        refused = await run(
          process.execPath,
          [bin, 'add-member', '--workspace', 'ws_x', '--name', 'A', '--email', 'a@x.test', '--url', m[1]],
          { env: { ADMIN_TOKEN: 'another' } },
        );
        sayNo = await run(process.execPath, [bin, 'create-workspace', '--name', 'A', '--slug', 'Not a slug!', '--url', m[1]]);
      },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^add-member: http:\/\/127\.0\.0\.1:\d+ refused the admin token \([^)]+\): pass the ADMIN_TOKEN that server was started with/,
    );
    expect(refused.stderr).not.toContain('{"error"');
    expect(sayNo.code).toBe(1);
    expect(sayNo.stderr).toMatch(/^create-workspace: http:\/\/127\.0\.0\.1:\d+ refused it \(HTTP 400, invalid_request_error, slug\): /);
    const nobody = await run(process.execPath, [
      bin,
      'create-key',
      '--workspace',
      'ws_x',
      '--scopes',
      'full_access',
      '--url',
      'http://127.0.0.1:59997',
    ]);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(
      /cannot reach http:\/\/127\.0\.0\.1:59997 \(ECONNREFUSED\): is the server running there\? Pass --url or set WORKSPACE_SERVER_URL/,
    );
  });

  it('npm run server starts a server that answers', async () => {
    let status = 0;
    const r = await run('npm', ['run', 'server', '--', '--memory', '--port', '0'], {
      cwd: root,
      until: /listening on (http:\/\/\S+)/,
      then: async (m) => {
        status = (await fetch(`${m[1]}/v1/openapi.json`)).status;
      },
    });
    expect(r.stdout, r.stderr).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(status).toBe(200);
  });

  it("a PGlite data directory serves one process: a second serve on it is refused, a dead owner's lock taken over", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ws-lock-'));
    const lock = join(dir, 'workspace-server.pid');
    let second: Awaited<ReturnType<typeof run>> | undefined;
    let owner = '';
    const first = await run(process.execPath, [bin, 'serve', '--data-dir', dir, '--port', '0', '--no-editor'], {
      until: /listening on (http:\/\/\S+)/,
      then: async () => {
        owner = readFileSync(lock, 'utf8').trim();
        second = await run(process.execPath, [bin, 'serve', '--data-dir', dir, '--port', '0', '--no-editor']);
      },
    });
    expect(first.stdout, first.stderr).toMatch(/listening on/);
    expect(second!.code).toBe(1);
    expect(second!.stdout).not.toMatch(/listening on/);
    expect(second!.stderr).toContain(`The data directory ${dir} is in use by another workspace-server (process ${owner})`);
    expect(existsSync(lock)).toBe(false); // released when the first stopped
    // A lock left by a process that is gone (killed with -9, say) is taken over.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    writeFileSync(lock, `${gone}\n`);
    let status = 0;
    const third = await run(process.execPath, [bin, 'serve', '--data-dir', dir, '--port', '0', '--no-editor'], {
      until: /listening on (http:\/\/\S+)/,
      then: async (m) => {
        status = (await fetch(`${m[1]}/v1/openapi.json`)).status;
      },
    });
    expect(third.stdout, third.stderr).toMatch(/listening on/);
    expect(status).toBe(200);
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('a store that cannot be opened is named (its password left out), and a port in use says so', async () => {
    const refused = await run(process.execPath, [bin, 'serve', '--port', '0', '--no-editor'], {
      env: { DATABASE_URL: 'postgres://app:s3cret@127.0.0.1:1/crm' },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('cannot open the store, PostgreSQL at postgres://app:***@127.0.0.1:1/crm (DATABASE_URL): ');
    expect(refused.stderr).toContain('ECONNREFUSED');
    expect(refused.stderr).not.toContain('s3cret');
    let busy: Awaited<ReturnType<typeof run>> | undefined;
    await run(process.execPath, [bin, 'serve', '--memory', '--port', '0', '--no-editor'], {
      until: /listening on http:\/\/127\.0\.0\.1:(\d+)/,
      then: async (m) => {
        busy = await run(process.execPath, [bin, 'serve', '--memory', '--port', m[1], '--no-editor']);
      },
    });
    expect(busy!.code).toBe(1);
    expect(busy!.stderr).toMatch(
      /port \d+ on 127\.0\.0\.1 is in use by another program: stop it, or pass another --port \(0 picks a free one\)/,
    );
  }, 60_000);

  it('serve --editor DIR serves a static build under /editor/ without a key, outside the OpenAPI document', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'editor-build-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><script type="module" src="./assets/app.js"></script>');
    writeFileSync(join(dir, 'assets/app.js'), 'console.log("editor")');
    const seen: Record<string, unknown> = {};
    const r = await run(process.execPath, [bin, 'serve', '--memory', '--port', '0', '--editor', dir], {
      until: /Editor: (http:\/\/\S+)\/editor\//,
      then: async (m) => {
        const base = m[1];
        const bare = await fetch(`${base}/editor`, { redirect: 'manual' });
        seen.redirect = [bare.status, bare.headers.get('location')];
        const index = await fetch(`${base}/editor/`);
        seen.index = [index.status, await index.text()];
        const asset = await fetch(`${base}/editor/assets/app.js`);
        seen.asset = [asset.status, asset.headers.get('content-type'), await asset.text()];
        seen.missing = (await fetch(`${base}/editor/nope.js`)).status;
        seen.paths = Object.keys(((await (await fetch(`${base}/v1/openapi.json`)).json()) as { paths: object }).paths);
      },
    });
    expect(r.stderr).not.toMatch(/Error/);
    expect(seen.redirect).toEqual([302, '/editor/']);
    expect(seen.index).toEqual([200, expect.stringContaining('./assets/app.js')]);
    expect(seen.asset).toEqual([200, expect.stringContaining('javascript'), 'console.log("editor")']);
    expect(seen.missing).toBe(404);
    expect((seen.paths as string[]).filter((p) => p.startsWith('/editor'))).toEqual([]);
  });

  it('serve --editor DIR with --no-editor is refused before anything starts', async () => {
    const r = await run(process.execPath, [bin, 'serve', '--memory', '--port', '0', '--editor', 'somewhere', '--no-editor']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--editor DIR and --no-editor contradict each other: give one');
  });

  it('serve --editor on a folder without a build says so and exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'editor-empty-'));
    const r = await run(process.execPath, [bin, 'serve', '--memory', '--port', '0', '--editor', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`--editor ${dir}: no index.html there (build the editor with npm run build -w apps/editor)`);
  });
});
