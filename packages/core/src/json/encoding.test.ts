// Which encoding a file is in when it is not UTF-8, named from its first bytes: any JSON text
// written in UTF-16 or UTF-32, with or without a byte order mark, is named; UTF-8 never is.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { encodingProblem, utf8Problem } from './encoding.js';

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
    [
      'UTF-16LE with its mark',
      (t) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(t, 'utf16le')]),
      /^it is UTF-16LE text \(it starts with the byte order mark FF FE\)/,
    ],
    [
      'UTF-16BE with its mark',
      (t) => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(t, 'utf16le').swap16()]),
      /^it is UTF-16BE text \(it starts with the byte order mark FE FF\)/,
    ],
    ['UTF-16LE', (t) => Buffer.from(t, 'utf16le'), /^it is UTF-16LE text, /],
    ['UTF-16BE', (t) => Buffer.from(t, 'utf16le').swap16(), /^it is UTF-16BE text, /],
    [
      'UTF-32LE with its mark',
      (t) => Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), utf32(t, true)]),
      /^it is UTF-32LE text \(it starts with the byte order mark FF FE 00 00\)/,
    ],
    [
      'UTF-32BE with its mark',
      (t) => Buffer.concat([Buffer.from([0, 0, 0xfe, 0xff]), utf32(t, false)]),
      /^it is UTF-32BE text \(it starts with the byte order mark 00 00 FE FF\)/,
    ],
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

  it('utf8Problem passes any UTF-8 text and names the first line of bytes that are not UTF-8', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (t) => {
        expect(utf8Problem(Buffer.from(t, 'utf8'))).toBeUndefined();
      }),
    );
    expect(utf8Problem(Buffer.from('{\n"name": "Caf\u00e9"\n}', 'latin1'))).toBe(
      'it is not UTF-8 text: line 2 has bytes that are not UTF-8 (Latin-1 or Windows-1252 write such bytes), which reading would replace: save it as UTF-8',
    );
    expect(utf8Problem(new Uint8Array([0x7b, 0xc3]))).toMatch(/^it is not UTF-8 text: line 1 /); // cut inside a character
    // Lines as editors count them: a lone CR (classic Mac OS) ends one, as CR LF does.
    expect(utf8Problem(Buffer.from('{\r"a": 1,\r\n"name": "Caf\u00e9"\r}', 'latin1'))).toMatch(/^it is not UTF-8 text: line 3 /);
  });
});
