// displayPath answers the common case (a file below the working directory) without
// path.relative; whatever the paths, its answer must be the one path.relative gives.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { displayPath, isSourceFolder } from './files.js';

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
        for (const abs of [other, `${cwd}/${below.join('/')}`, `${cwd.replace(/\/$/, '')}/${below.join('/')}`]) expect(displayPath(abs, cwd)).toBe(byRelative(abs, cwd));
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
