// Where the search for the source folder holding a file stops: at the repository holding the file
// (the nearest folder with a .git, itself searched), or, outside any repository, at the working
// directory (or the folder it shares with the file). A manifest.json above that is no part of the
// file's project, and must not turn a pack into "a file of a source folder".
import { beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { formatPack } from '@setup-pack/core';
import { BIN, ensureBuilt, ROOT, run, tempDir } from './helpers.js';

beforeAll(() => ensureBuilt());

const PACK = formatPack(JSON.parse(readFileSync(join(ROOT, 'fixtures/valid/buyer-lead-starter.json'), 'utf8')));
/** A manifest.json of ours, left in a folder above a project (a download, a scratch folder, a home directory). */
const STRAY = JSON.stringify({ format: 'service.setup-pack', name: 'Stray' });

/** Every command that asks which source folder holds a file it is given, run on `file` from `cwd`: each takes it for the pack it is. */
function readAsPack(cwd: string, file: string): void {
  const v = run(['validate', '--format', 'json', file], { cwd });
  expect(v.code, v.stdout + v.stderr).toBe(0);
  expect(JSON.parse(v.stdout).files.map((f: { path: string }) => f.path)).toEqual([file]);
  const f = run(['fmt', '--check', file], { cwd });
  expect(f, 'fmt --check').toMatchObject({ code: 0, stdout: '✔ 1 file already formatted\n' });
  const x = run(['fix', '--dry-run', file], { cwd });
  expect(x, 'fix --dry-run').toMatchObject({ code: 0, stdout: 'nothing to fix in 1 file\n' });
  const d = run(['diff', '--exit-code', file, file], { cwd });
  expect(d.code, `diff: ${d.stderr}`).toBe(0);
}

describe('the search for the source folder holding a file', () => {
  it('stops at the repository holding the file: a manifest.json above the repository does not capture its packs', () => {
    const top = tempDir();
    writeFileSync(join(top, 'manifest.json'), STRAY);
    // A repository checked out below a folder named as one of the layout's (templates/), below the stray manifest.
    const repo = join(top, 'templates', 'work');
    mkdirSync(join(repo, '.git'), { recursive: true });
    writeFileSync(join(repo, 'pack.json'), PACK);
    readAsPack(repo, 'pack.json');
    readAsPack(top, 'templates/work/pack.json');
  });

  it('outside any repository, stops at the working directory: a manifest.json above it does not capture the packs below it', () => {
    const top = tempDir();
    writeFileSync(join(top, 'manifest.json'), STRAY);
    const work = join(top, 'assets', 'site');
    mkdirSync(work, { recursive: true });
    writeFileSync(join(work, 'pack.json'), PACK);
    readAsPack(work, 'pack.json');
  });

  it("still finds a source folder above the working directory inside the repository, the repository's root included", () => {
    const repo = tempDir();
    mkdirSync(join(repo, '.git'));
    const src = join(repo, 'packs', 'buyer');
    expect(run(['unpack', join(ROOT, 'fixtures/valid/buyer-lead-starter.json'), src]).code).toBe(0);
    const v = run(['validate', '--format', 'json', 'new-lead-welcome.json'], { cwd: join(src, 'automations') });
    expect(v.code, v.stdout + v.stderr).toBe(0);
    expect(JSON.parse(v.stdout).files.map((f: { path: string }) => f.path)).toEqual([`${src}/`]);
    // The repository's root is a source folder itself.
    const root = tempDir();
    mkdirSync(join(root, '.git'));
    expect(run(['unpack', join(ROOT, 'fixtures/valid/buyer-lead-starter.json'), root, '--force']).code).toBe(0);
    const w = run(['validate', '--format', 'json', 'new-lead-welcome.json'], { cwd: join(root, 'automations') });
    expect(w.code, w.stdout + w.stderr).toBe(0);
    expect(JSON.parse(w.stdout).files.map((f: { path: string }) => f.path)).toEqual([`${root}/`]);
  });
});

describe('a path named that is not a plain file or folder', () => {
  it('a pipe (`validate <(…)`, a FIFO) is read as the file it streams, not said not to exist', () => {
    // Before: "cannot read '/dev/fd/63': no such file or directory" (exit 2), while diff read it.
    const dir = tempDir();
    writeFileSync(join(dir, 'pack.json'), PACK);
    const sh = (script: string) =>
      spawnSync('bash', ['-c', script], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    const v = sh(`"${process.execPath}" "${BIN}" validate <(cat pack.json)`);
    expect(v.stderr).toBe('');
    expect(v.stdout).toMatch(/^✔ 0 errors, 0 warnings in 1 file$/m);
    expect(v.status).toBe(0);
    const f = sh(`"${process.execPath}" "${BIN}" fmt --check <(cat pack.json)`);
    expect(f).toMatchObject({ status: 0, stdout: '✔ 1 file already formatted\n' });
  });

  it('a link that leads nowhere, or round in a loop, is said to be one (exit 2)', () => {
    const dir = tempDir();
    symlinkSync('missing.json', join(dir, 'broken.json'));
    symlinkSync('loop.json', join(dir, 'loop.json'));
    for (const command of ['validate', 'fmt', 'fix']) {
      expect(run([command, 'broken.json'], { cwd: dir })).toMatchObject({
        code: 2,
        stderr: `setup-pack ${command}: cannot read 'broken.json': it is a symbolic link to 'missing.json', which does not exist\n`,
      });
      expect(run([command, 'loop.json'], { cwd: dir })).toMatchObject({
        code: 2,
        stderr: `setup-pack ${command}: cannot read 'loop.json': it is a symbolic link that leads round in a loop\n`,
      });
    }
  });

  it('a link to nothing, or a loop, that a directory walk or a glob meets is reported as a file that cannot be read (exit 2), not left out', () => {
    // Before: `validate packs` and `validate "packs/*.json"` checked the one readable pack and exited 0.
    const dir = tempDir();
    mkdirSync(join(dir, 'packs'));
    writeFileSync(join(dir, 'packs', 'ok.json'), PACK);
    symlinkSync('gone.json', join(dir, 'packs', 'broken.json'));
    symlinkSync('loop.json', join(dir, 'packs', 'loop.json'));
    symlinkSync('gone.txt', join(dir, 'packs', 'notes.txt'));
    for (const input of ['packs', 'packs/*.json']) {
      const r = run(['validate', '--format', 'json', input], { cwd: dir });
      expect(r.code, input).toBe(2);
      const files = JSON.parse(r.stdout).files.map((f: { path: string; readError?: string }) => [f.path, f.readError]);
      expect(files, input).toEqual([
        ['packs/broken.json', "cannot read the file: it is a symbolic link to 'gone.json', which does not exist"],
        ['packs/loop.json', 'cannot read the file: it is a symbolic link that leads round in a loop'],
        ['packs/ok.json', undefined],
      ]);
      expect(run(['fmt', '--check', input], { cwd: dir }).code, input).toBe(2);
    }
    // What --ignore leaves out is left out.
    expect(run(['validate', 'packs', '--ignore', 'packs/broken.json', '--ignore', 'packs/loop.json'], { cwd: dir }).code).toBe(0);
  });

  it('a pipe, or a link to one, that a directory walk or a glob meets is a file that cannot be read (exit 2), not waited on for ever; one named is read', () => {
    // Before: `validate packs`, `fmt --check packs` and `fix packs` hung, reading a FIFO no program writes.
    const dir = tempDir();
    mkdirSync(join(dir, 'packs'));
    writeFileSync(join(dir, 'packs', 'ok.json'), PACK);
    expect(spawnSync('mkfifo', [join(dir, 'packs', 'feed.json')]).status).toBe(0);
    expect(spawnSync('mkfifo', [join(dir, 'pipe')]).status).toBe(0);
    symlinkSync('../pipe', join(dir, 'packs', 'to-pipe.json'));
    const tail = 'a named pipe (FIFO), and a directory or a glob reads only files; name it to read what it streams';
    const why = `cannot read the file: it is ${tail}`;
    for (const input of ['packs', 'packs/*.json']) {
      const r = run(['validate', '--format', 'json', input], { cwd: dir, timeout: 30_000 });
      expect(r.code, input).toBe(2);
      const files = JSON.parse(r.stdout).files.map((f: { path: string; readError?: string }) => [f.path, f.readError]);
      expect(files, input).toEqual([
        ['packs/feed.json', why],
        ['packs/ok.json', undefined],
        ['packs/to-pipe.json', `cannot read the file: it is a symbolic link to '../pipe', ${tail}`],
      ]);
      for (const command of [
        ['fmt', '--check'],
        ['fix', '--dry-run'],
      ]) {
        const f = run([...command, input], { cwd: dir, timeout: 30_000 });
        expect(f.code, `${command[0]} ${input}`).toBe(2);
        expect(f.stdout + f.stderr, `${command[0]} ${input}`).toContain(why);
      }
    }
    // What --ignore leaves out is left out.
    expect(
      run(['validate', 'packs', '--ignore', 'packs/feed.json', '--ignore', 'packs/to-pipe.json'], { cwd: dir, timeout: 30_000 }).code,
    ).toBe(0);
    // Named, a pipe is read as the file it streams (`validate <(generate-pack)`).
    const named = spawnSync(
      'sh',
      ['-c', `cat packs/ok.json > packs/feed.json & exec "${process.execPath}" "${BIN}" validate packs/feed.json`],
      { cwd: dir, encoding: 'utf8', timeout: 30_000 },
    );
    expect(named.status, named.stderr).toBe(0);
  });
});
