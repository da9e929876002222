// setup-pack export against the real server: a pack file, a source folder that builds back to the
// same pack, diff against the release, and the refusals (usage, not installed, invalid export).
import { execFileSync } from 'node:child_process';
import { closeSync, constants, lstatSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { install } from '../src/index.js';
import { cli, clientFor, FIXTURES_DIR, loadPack, useServer } from './harness.js';

const server = useServer();

describe('setup-pack export', () => {
  it('exports an installed pack to a file and to a source folder; diff against the release shows the workspace edit', async () => {
    const ws = await server().workspace();
    const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };
    const pack = loadPack('valid/listing-marketing.json');
    const c = clientFor(server(), ws.key);
    await install(c, pack);
    const lists = await c.listAll<any>('/v1/smart-lists');
    await c.patch(`/v1/smart-lists/${lists[0].id}`, { name: `${lists[0].name} (tuned)` });

    const dir = mkdtempSync(join(tmpdir(), 'sp-export-'));
    const file = await cli(['export', '--pack-id', pack.packId, '--version', '1.1.0', '-o', 'out/pack.json'], env, dir, true);
    expect(file.stderr).toMatch(/exported Listing marketing.* 1\.1\.0 .*\d+ items, \d+ requests/i);
    expect(file.stderr).toContain('reading ');
    expect(file.code).toBe(0);
    const exported = JSON.parse(readFileSync(join(dir, 'out/pack.json'), 'utf8'));
    expect(exported.packId).toBe(pack.packId);
    expect(exported.version).toBe('1.1.0');
    expect(exported.assets.find((a: any) => a.role === 'email_image').data).toBe(pack.assets!.find((a) => a.role === 'email_image')!.data);

    const diff = await cli(['diff', join(FIXTURES_DIR, 'valid/listing-marketing.json'), join(dir, 'out/pack.json')], env, dir);
    expect(diff.stdout).toContain('(tuned)');

    const folder = await cli(['export', '--pack-id', pack.packId, '-o', 'src/'], env, dir);
    expect(folder.code).toBe(0);
    expect(readFileSync(join(dir, 'src/manifest.json'), 'utf8')).toContain(pack.packId);
    const built = await cli(['build', 'src', '-o', 'rebuilt.json', '--exported-at', exported.exportedAt], env, dir);
    expect(built.code).toBe(0);
    const rebuilt = JSON.parse(readFileSync(join(dir, 'rebuilt.json'), 'utf8'));
    expect({ ...rebuilt, version: '1.1.0' }).toEqual(exported);

    const refused = await cli(['export', '--pack-id', pack.packId, '-o', 'src/'], env, dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--force');
  });

  it('-o a pipe or a device (a FIFO, /dev/stdout) writes the pack into it, as > would, and leaves it a pipe', async () => {
    const ws = await server().workspace();
    const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };
    const pack = loadPack('releases/buyer-lead-1.0.0.json');
    await install(clientFor(server(), ws.key), pack);
    const dir = mkdtempSync(join(tmpdir(), 'sp-export-fifo-'));
    const fifo = join(dir, 'pack.pipe');
    execFileSync('mkfifo', [fifo]);
    // Both ends held here (read-write never blocks on a FIFO): the export's write goes into the
    // pipe's buffer, to be read back once it is done.
    const fd = openSync(fifo, constants.O_RDWR);
    try {
      const r = await cli(['export', '--pack-id', pack.packId, '-o', fifo], env, dir);
      expect(r.stderr).toMatch(/^exported Buyer Lead Starter 1\.0\.0 \(.*\): 11 items, \d+ requests to pack\.pipe\n$/);
      expect(r.code).toBe(0);
      // Before: the temporary file was renamed over the FIFO (as root, over /dev/stdout or
      // /dev/null themselves), and nothing went into the pipe.
      expect(lstatSync(fifo).isFIFO()).toBe(true);
      const buf = Buffer.alloc(1 << 16);
      const n = readSync(fd, buf);
      expect(JSON.parse(buf.subarray(0, n).toString('utf8')).packId).toBe(pack.packId);
    } finally {
      closeSync(fd);
    }
    expect(readdirSync(dir)).toEqual(['pack.pipe']);
  });

  it('says in one line when it cannot write the pack file or folder, and leaves nothing behind (exit 2)', async () => {
    const ws = await server().workspace();
    const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };
    const dir = mkdtempSync(join(tmpdir(), 'sp-export-'));
    writeFileSync(join(dir, 'afile'), '');
    for (const out of ['afile/pack.json', 'afile/src/']) {
      const r = await cli(['export', '--all', '-o', out], env, dir);
      // A folder below a file is named so before anything is read (the target check); a pack file
      // below one fails when it is written.
      const why = out.endsWith('/')
        ? `'${out}' is below 'afile', which is a file, not a folder`
        : `cannot write '${out}': a part of the path is not a directory`;
      expect(r.stderr).toBe(`setup-pack export: ${why}\n`);
      expect(r.code).toBe(2);
    }
    expect(readdirSync(dir)).toEqual(['afile']);
  });

  it('refuses bad usage, an unknown pack, and a workspace that does not make a valid pack (writing nothing)', async () => {
    const ws = await server().workspace();
    const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };
    const dir = mkdtempSync(join(tmpdir(), 'sp-export-'));
    expect((await cli(['export'], env, dir)).stderr).toContain('exactly one of --pack-id <id> and --all');
    expect((await cli(['export', '--pack-id', 'nope'], env, dir)).code).toBe(2);
    const missing = await cli(['export', '--pack-id', '11111111-2222-4333-8444-555555555555'], env, dir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/not installed.*\[pack_id\]/);

    // A template name longer than a pack allows (the API takes 200 characters, a pack 120).
    const c = clientFor(server(), ws.key);
    await c.post('/v1/message-templates', { name: 'x'.repeat(150), channel: 'sms', body: 'Hi' });
    const bad = await cli(['export', '--all', '-o', 'snap.json'], env, dir);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/would not be valid.*nothing was written/);
    expect(bad.stderr).toMatch(/\/messageTemplates\/0\/name/);
    expect(() => readFileSync(join(dir, 'snap.json'))).toThrow();
  });
});
