// displayPath answers the common case (a file below the working directory) without
// path.relative; whatever the paths, its answer must be the one path.relative gives.
import { isAbsolute, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { displayPath, encodingProblem } from './files.js';

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

describe('encodingProblem', () => {
  // JSON text as a pack starts: whitespace or an opening brace, then anything.
  const json = fc.tuple(fc.constantFrom('{', ' {', '\n{', '\t{', '['), fc.string({ maxLength: 20 })).map(([a, b]) => a + b);
  const utf32 = (text: string, le: boolean) => {
    const points = [...text].map((c) => c.codePointAt(0)!);
    const out = Buffer.alloc(points.length * 4);
    points.forEach((p, i) => (le ? out.writeUInt32LE(p, i * 4) : out.writeUInt32BE(p, i * 4)));
    return out;
  };
  const cases: [string, (t: string) => Buffer, RegExp][] = [
    ['UTF-16LE with its mark', (t) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(t, 'utf16le')]), /^it is UTF-16LE text \(it starts with the byte order mark FF FE\)/],
    ['UTF-16BE with its mark', (t) => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(t, 'utf16le').swap16()]), /^it is UTF-16BE text \(it starts with the byte order mark FE FF\)/],
    ['UTF-16LE', (t) => Buffer.from(t, 'utf16le'), /^it is UTF-16LE text, /],
    ['UTF-16BE', (t) => Buffer.from(t, 'utf16le').swap16(), /^it is UTF-16BE text, /],
    ['UTF-32LE with its mark', (t) => Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), utf32(t, true)]), /^it is UTF-32LE text \(it starts with the byte order mark FF FE 00 00\)/],
    ['UTF-32BE with its mark', (t) => Buffer.concat([Buffer.from([0, 0, 0xfe, 0xff]), utf32(t, false)]), /^it is UTF-32BE text \(it starts with the byte order mark 00 00 FE FF\)/],
    ['UTF-32LE', (t) => utf32(t, true), /^it is UTF-32LE text, /],
    ['UTF-32BE', (t) => utf32(t, false), /^it is UTF-32BE text, /],
  ];
  for (const [name, encode, says] of cases)
    it(`names JSON text in ${name} from its first bytes`, () => {
      fc.assert(
        fc.property(json, (t) => {
          expect(encodingProblem(encode(t).subarray(0, 4))).toMatch(says);
        }),
      );
    });

  it('finds nothing wrong with JSON text in UTF-8, with or without its byte order mark', () => {
    fc.assert(
      fc.property(json, fc.boolean(), (t, bom) => {
        expect(encodingProblem(Buffer.from(bom ? `\ufeff${t}` : t, 'utf8').subarray(0, 4))).toBeUndefined();
      }),
    );
  });
});
