import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { nodeHasher } from './hasher.js';

// The reference verdict: strict base64 is exactly what re-encodes to itself.
const strict = (s: string) => Buffer.from(s, 'base64').toString('base64') === s;

describe('nodeHasher', () => {
  it('hashes strict base64 like node:crypto over the decoded bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const data = Buffer.from(bytes).toString('base64');
        expect(nodeHasher(data)).toEqual({ byteSize: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
      }),
    );
  });

  it('refuses exactly what does not re-encode to itself: stray characters, base64url, bad padding, stray bits', () => {
    const alphabet = fc.constantFrom(...'ABQgwz09+/=-_ \n*'.split(''));
    const text = fc.oneof(
      fc.string({ unit: alphabet, maxLength: 16 }),
      // Valid texts with one character changed, removed or added.
      fc
        .tuple(fc.uint8Array({ minLength: 1, maxLength: 12 }), fc.nat(), alphabet, fc.constantFrom('replace', 'delete', 'insert'))
        .map(([bytes, at, c, op]) => {
          const s = Buffer.from(bytes).toString('base64');
          const i = at % s.length;
          return op === 'replace'
            ? s.slice(0, i) + c + s.slice(i + 1)
            : op === 'delete'
              ? s.slice(0, i) + s.slice(i + 1)
              : s.slice(0, i) + c + s.slice(i);
        }),
    );
    fc.assert(
      fc.property(text, (s) => void expect(nodeHasher(s) !== undefined, JSON.stringify(s)).toBe(strict(s))),
      { numRuns: 2000 },
    );
    for (const s of ['QQ==', 'QR==', 'QUE=', 'QUF=', 'QQ==QUFB', 'QUFB\n', 'QU-B', 'QU_B', 'QUFB====', ''])
      expect(nodeHasher(s) !== undefined, s).toBe(strict(s));
  });
});
