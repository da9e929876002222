// export --format json when the pack cannot be written: the JSON consumer gets an object saying so
// on stdout (as for the other failures of that mode), the person the one line on stderr, exit 2.
// Against the real workspace server, run in this process, with the CLI as a subprocess.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildServer, openStore, type Store } from '@setup-pack/workspace-server';
import { ensureBuilt, runAsync, tempDir } from './helpers.js';

const ADMIN = 'cli-export-json-admin';
let store: Store | undefined;
let app: Awaited<ReturnType<typeof buildServer>> | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  ensureBuilt();
  store = await openStore({ memory: true });
  app = await buildServer({ store, adminToken: ADMIN });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const ws = await admin('/admin/workspaces', { name: 'export-json', slug: 'export-json', rate_limit_per_minute: 100000 });
  const key = await admin(`/admin/workspaces/${ws.id}/api-keys`, { scopes: ['full_access'] });
  env = { WORKSPACE_URL: base, WORKSPACE_API_KEY: key.secret };
}, 120_000);

afterAll(async () => {
  await app?.close();
  await store?.close();
});

describe('export --format json', () => {
  it('prints the result object when the pack is written', async () => {
    const dir = tempDir();
    const r = await runAsync(['export', '--all', '-o', 'pack.json', '--format', 'json'], { cwd: dir, env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, version: '1.0.0' });
  });

  it('prints an object with the error when the pack file cannot be written, as for its other failures (exit 2)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'afile'), '');
    const r = await runAsync(['export', '--all', '-o', 'afile/pack.json', '--format', 'json'], { cwd: dir, env });
    expect(r.stderr).toBe("setup-pack export: cannot write 'afile/pack.json': a part of the path is not a directory\n");
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({
      ok: false,
      error: {
        type: 'write_error',
        message: "cannot write 'afile/pack.json': a part of the path is not a directory",
        path: 'afile/pack.json',
        reason: 'a part of the path is not a directory',
      },
    });
    expect(readdirSync(dir)).toEqual(['afile']);
  });

  it('and when a source folder cannot be written (part-way, as on a full disk)', async () => {
    const dir = tempDir();
    const r = await runAsync(['export', '--all', '-o', 'src/', '--format', 'json'], { cwd: dir, env, fileSizeLimit: 1 });
    expect(r.stderr).toBe("setup-pack export: cannot write 'src/': file too large\n");
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, error: { type: 'write_error', path: 'src/', reason: 'file too large' } });
    expect(readdirSync(dir)).toEqual([]);
  });

  it.skipIf(!existsSync('/proc/self'))(
    'and when a folder above it cannot be made (/proc), at once',
    async () => {
      const dir = tempDir();
      for (const out of ['/proc/nope/pack.json', '/proc/nope/src/']) {
        const r = await runAsync(['export', '--all', '-o', out, '--format', 'json'], { cwd: dir, env });
        expect(r.code, out).toBe(2);
        expect(JSON.parse(r.stdout), out).toMatchObject({ ok: false, error: { type: 'write_error', path: out } });
        expect(r.stderr, out).toMatch(new RegExp(`^setup-pack export: cannot write '${out}': no such (file or )?directory\\n$`));
      }
    },
    30_000,
  );

  it('without --format json a write failure is the one line on stderr, and nothing on stdout', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'afile'), '');
    const r = await runAsync(['export', '--all', '-o', 'afile/pack.json'], { cwd: dir, env });
    expect(r.stderr).toBe("setup-pack export: cannot write 'afile/pack.json': a part of the path is not a directory\n");
    expect(r.stdout).toBe('');
    expect(r.code).toBe(2);
  });
});
