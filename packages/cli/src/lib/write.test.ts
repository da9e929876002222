// writeFiles with readAs (fmt and fix rewriting files in place): a file is replaced only while it
// holds what the command read; one changed since stops the whole write, which leaves every file as
// it is and no temporary file behind. Real files in a temporary folder.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHANGED_SINCE_READ, writeFiles, writeFileSafely } from './write.js';
import { WriteError } from './errors.js';

const folder = () => mkdtempSync(join(tmpdir(), 'setup-pack-write-'));

describe('writeFiles over files read before', () => {
  it('replaces files that still hold what was read (bytes, or text after a byte order mark)', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'a.json'), '{"a":1}');
    writeFileSync(join(dir, 'b.json'), '\uFEFF{"b":1}');
    await writeFiles([
      { abs: join(dir, 'a.json'), shown: 'a.json', content: '{ "a": 1 }\n', readAs: new TextEncoder().encode('{"a":1}') },
      { abs: join(dir, 'b.json'), shown: 'b.json', content: '{ "b": 1 }\n', readAs: '{"b":1}' },
    ]);
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('{ "a": 1 }\n');
    expect(readFileSync(join(dir, 'b.json'), 'utf8')).toBe('{ "b": 1 }\n');
  });

  it('writes none when one changed since it was read (or is gone), names it, and leaves no temporary file', async () => {
    for (const change of [(f: string) => writeFileSync(f, '{"b":2}'), (f: string) => writeFileSync(f, '{"b":1} ')]) {
      const dir = folder();
      writeFileSync(join(dir, 'a.json'), '{"a":1}');
      writeFileSync(join(dir, 'b.json'), '{"b":1}');
      change(join(dir, 'b.json')); // after the read, before the write
      const now = readFileSync(join(dir, 'b.json'), 'utf8');
      const failure = await writeFiles([
        { abs: join(dir, 'a.json'), shown: 'a.json', content: 'A', readAs: '{"a":1}' },
        { abs: join(dir, 'b.json'), shown: 'b.json', content: 'B', readAs: '{"b":1}' },
      ]).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(WriteError);
      expect(failure).toMatchObject({ shown: 'b.json', reason: CHANGED_SINCE_READ });
      expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('{"a":1}');
      expect(readFileSync(join(dir, 'b.json'), 'utf8')).toBe(now);
      expect(readdirSync(dir).sort()).toEqual(['a.json', 'b.json']);
    }
    const dir = folder();
    const gone = await writeFileSafely(join(dir, 'c.json'), 'c.json', 'C', { readAs: '{}' }).catch((e: unknown) => e);
    expect(gone).toMatchObject({ shown: 'c.json', reason: CHANGED_SINCE_READ });
    expect(readdirSync(dir)).toEqual([]); // not made again
  });
});
