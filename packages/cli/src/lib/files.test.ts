// displayPath answers the common case (a file below the working directory) without
// path.relative; whatever the paths, its answer must be the one path.relative gives.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { displayPath, expandEntries, isSourceFolder, mayBeSourceFolder, readText } from './files.js';
import { main } from '../main.js';
import { makeColors } from './color.js';

function byRelative(abs: string, cwd: string): string {
  const rel = relative(cwd, abs);
  return (rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs).split(sep).join('/');
}

const segment = fc.constantFrom('a', 'b', 'packs', '.', '..', '', '.hidden', 'p.json', 'x y', '..x');
const path = fc.array(segment, { minLength: 0, maxLength: 5 }).map((parts) => `/${parts.join('/')}`);

describe('displayPath', () => {
  it('is what path.relative makes of it, for any two absolute paths', () => {
    fc.assert(
      fc.property(path, path, fc.array(segment, { maxLength: 3 }), (cwd, other, below) => {
        for (const abs of [other, `${cwd}/${below.join('/')}`, `${cwd.replace(/\/$/, '')}/${below.join('/')}`])
          expect(displayPath(abs, cwd)).toBe(byRelative(abs, cwd));
      }),
      { numRuns: 2000 },
    );
  });

  it('shows a file below the working directory relative to it', () => {
    expect(displayPath('/work/packs/a.json', '/work')).toBe('packs/a.json');
    expect(displayPath('/a.json', '/')).toBe('a.json');
    expect(displayPath('/elsewhere/a.json', '/work')).toBe('/elsewhere/a.json');
  });
});

describe('isSourceFolder', () => {
  it('reads a manifest.json past a UTF-8 byte order mark, as build does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'setup-pack-files-'));
    const manifest = JSON.stringify({ format: 'service.setup-pack', name: 'N', automations: ['a'] });
    writeFileSync(join(dir, 'manifest.json'), `\uFEFF${manifest}`);
    expect(await isSourceFolder(dir)).toBe(true);
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ format: 'service.setup-pack', automations: [{ key: 'a' }] }));
    expect(await isSourceFolder(dir)).toBe(false);
  });
});

describe('mayBeSourceFolder', () => {
  it("takes a folder whose manifest.json does not parse yet, or is ours being edited, beside the layout's files; not a web app's manifest beside assets/", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'setup-pack-files-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'manifest.json'), '{ "format": "service.setup-pack", ');
    expect(await mayBeSourceFolder(dir)).toBe(true);
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ format: 'service.setup-pack', name: 'N', automations: 'a' }));
    expect(await mayBeSourceFolder(dir)).toBe(true);
    // A PWA's public/ folder: its packs below it are packs.
    writeFileSync(
      join(dir, 'manifest.json'),
      JSON.stringify({ name: 'Harbor', short_name: 'H', icons: [{ src: 'assets/icon.png', sizes: '192x192' }] }),
    );
    expect(await mayBeSourceFolder(dir)).toBe(false);
    mkdirSync(join(dir, 'packs'));
    writeFileSync(join(dir, 'packs', 'p.json'), '{}');
    const entries = await expandEntries(['packs/p.json'], dir, [], { sourceFolders: mayBeSourceFolder, wholeFolders: true });
    expect(entries).toEqual([{ type: 'file', abs: join(dir, 'packs', 'p.json') }]);
    writeFileSync(join(dir, 'manifest.json'), '[1, 2]');
    expect(await mayBeSourceFolder(dir)).toBe(false);
  });
});

describe('expandEntries with whole source folders (validate, fix)', () => {
  it('asks each folder once whether it is a source folder, however many files are in it or below it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'setup-pack-files-'));
    for (let i = 0; i < 200; i++) {
      mkdirSync(join(root, 'packs', `g${i % 4}`), { recursive: true });
      writeFileSync(join(root, 'packs', `g${i % 4}`, `p${i}.json`), '{}');
    }
    mkdirSync(join(root, 'packs', 'src', 'automations'), { recursive: true });
    writeFileSync(join(root, 'packs', 'src', 'manifest.json'), JSON.stringify({ format: 'service.setup-pack', automations: ['a'] }));
    writeFileSync(join(root, 'packs', 'src', 'automations', 'a.json'), '{}');
    const asked: string[] = [];
    const counting = (dir: string) => (asked.push(dir), mayBeSourceFolder(dir));
    const entries = await expandEntries(['packs/**/*.json', 'packs/g0/p0.json', 'packs'], root, [], {
      sourceFolders: counting,
      wholeFolders: true,
    });
    expect(entries.filter((e) => e.type === 'source-folder').map((e) => e.abs)).toEqual([join(root, 'packs', 'src')]);
    expect(entries.filter((e) => e.type === 'file')).toHaveLength(200);
    expect(asked.length).toBe(new Set(asked).size);
    // The four groups, the source folder's automations/ and the source folder, packs and the working
    // directory, where the search stops (no repository holds it): once each, and none above it.
    expect(new Set(asked)).toEqual(
      new Set([
        ...[0, 1, 2, 3].map((g) => join(root, 'packs', `g${g}`)),
        join(root, 'packs'),
        join(root, 'packs', 'src', 'automations'),
        join(root, 'packs', 'src'),
        root,
      ]),
    );
  });
});

describe('a pipe a directory walk or a glob meets', () => {
  const PACK = fileURLToPath(new URL('../../../../fixtures/valid/buyer-lead-starter.json', import.meta.url));
  const TAIL = 'a named pipe (FIFO), and a directory or a glob reads only files; name it to read what it streams';
  /** packs/ok.json, packs/feed.json (a FIFO) and packs/to-pipe.json (a link to the FIFO ../pipe). */
  function layout(): string {
    const dir = mkdtempSync(join(tmpdir(), 'setup-pack-files-'));
    mkdirSync(join(dir, 'packs'));
    copyFileSync(PACK, join(dir, 'packs', 'ok.json'));
    expect(spawnSync('mkfifo', [join(dir, 'packs', 'feed.json')]).status).toBe(0);
    expect(spawnSync('mkfifo', [join(dir, 'pipe')]).status).toBe(0);
    symlinkSync('../pipe', join(dir, 'packs', 'to-pipe.json'));
    return dir;
  }

  it.runIf(process.platform !== 'win32')(
    'comes back with the entry, saying why it is not read; named alone it carries nothing',
    async () => {
      const dir = layout();
      const entries = await expandEntries(['packs'], dir);
      expect(entries).toEqual([
        { type: 'file', abs: join(dir, 'packs', 'feed.json'), notAFile: `it is ${TAIL}` },
        { type: 'file', abs: join(dir, 'packs', 'ok.json') },
        { type: 'file', abs: join(dir, 'packs', 'to-pipe.json'), notAFile: `it is a symbolic link to '../pipe', ${TAIL}` },
      ]);
      // readText takes the reason from the entry, and never opens the pipe.
      expect(await readText(entries[0].abs, undefined, entries[0].notAFile)).toEqual({ error: `cannot read the file: it is ${TAIL}` });
      expect(await expandEntries(['packs/feed.json'], dir)).toEqual([{ type: 'file', abs: join(dir, 'packs', 'feed.json') }]);
      // Named and met by a walk, in either order: not read, as before.
      for (const inputs of [
        ['packs/feed.json', 'packs'],
        ['packs', 'packs/feed.json'],
      ]) {
        expect((await expandEntries(inputs, dir)).find((e) => e.abs.endsWith('feed.json'))?.notAFile, inputs.join(' ')).toBe(
          `it is ${TAIL}`,
        );
      }
    },
  );

  it.runIf(process.platform !== 'win32')('is not remembered by a later run in the same process (main called twice)', async () => {
    const dir = layout();
    let stdout = '';
    const ctx = {
      cwd: dir,
      env: {},
      stdout: { write: (t: string) => ((stdout += t), true) },
      stderr: { write: () => true },
      colors: () => makeColors(false),
    };
    expect(await main(['validate', '-f', 'json', 'packs'], ctx)).toBe(2);
    expect(JSON.parse(stdout).files.find((f: { path: string }) => f.path === 'packs/feed.json').readError).toBe(
      `cannot read the file: it is ${TAIL}`,
    );
    // The pipe is replaced by a pack: the next run reads it. A module-level record of the first
    // walk's pipes said it could not be read.
    rmSync(join(dir, 'packs', 'feed.json'));
    copyFileSync(PACK, join(dir, 'packs', 'feed.json'));
    stdout = '';
    expect(await main(['validate', '-f', 'json', 'packs/feed.json'], ctx)).toBe(0);
    expect(JSON.parse(stdout).files).toEqual([expect.objectContaining({ path: 'packs/feed.json', diagnostics: [] })]);
  });
});
