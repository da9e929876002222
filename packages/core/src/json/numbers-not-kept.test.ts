// numbersNotKept reads a JSON text by hand (strings skipped, the path kept as it goes): every number
// it names must be at the pointer and place it says, whatever the strings and keys around it hold,
// and a number JSON.stringify would write back as the same one is never named.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSourceText, numbersNotKept } from './parse.js';
import { parsePointer, toPointer } from './pointer.js';

const found = (text: string) =>
  numbersNotKept(createSourceText(text, true)).map((d) => ({ pointer: d.pointer, line: d.line, column: d.column, endColumn: d.endColumn }));

describe('numbersNotKept', () => {
  it('names each number a float does not keep as written, at its pointer and place, past strings that look like JSON', () => {
    const text =
      '{"a\\"}[,": "x\\\\", "k/~": [1, {"z": 0.1000000000000000055511151231257827}],\n "s": "1e-400 , ]", "t": [true, false, null, -1e-400], "": {"": 1.00000000000000000001}}';
    const [one, two] = text.split('\n');
    const at = (line: string, literal: string) => ({
      column: line.indexOf(literal) + 1,
      endColumn: line.indexOf(literal) + 1 + literal.length,
    });
    expect(found(text)).toEqual([
      { pointer: '/k~1~0/1/z', line: 1, ...at(one, '0.1000000000000000055511151231257827') },
      { pointer: '/t/3', line: 2, ...at(two, '-1e-400') },
      { pointer: '//', line: 2, ...at(two, '1.00000000000000000001') },
    ]);
  });

  it('leaves alone what JSON.stringify writes back as the same number, and what core tells (out of range, integers past 2^53)', () => {
    for (const literal of [
      '1.0',
      '1e2',
      '1E+2',
      '0.50',
      '-0.0',
      '0',
      '5e-324',
      '1e-320',
      '0.1',
      '123456789012345.6',
      '1.7976931348623157e308',
      '1e23',
      '1e400',
      '12345678901234567890',
      '9007199254740993',
      '-0.000000000000001',
    ])
      expect(found(`[${literal}]`), literal).toEqual([]);
    for (const literal of [
      '1e-400',
      '-2.5e-324',
      '1.23456789e-320',
      '0.1000000000000000055511151231257827',
      '0.12345678901234567891',
      '1.5000000000000000001e-10',
    ])
      expect(found(`[${literal}]`), literal).toHaveLength(1);
  });

  it('finds a number put anywhere in any JSON, at the pointer of the place it was put', () => {
    const key = fc.string({ unit: fc.constantFrom('a', '"', '\\', '/', '~', '{', '[', ',', ':', ' ', '1', 'é', '\n'), maxLength: 4 });
    const value = fc.letrec((tie) => ({
      any: fc.oneof(
        { depthSize: 'small' },
        fc.constant('HERE'),
        fc.string({ maxLength: 6 }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.boolean(),
        fc.constant(null),
        tie('array'),
        tie('object'),
      ),
      array: fc.array(tie('any'), { maxLength: 4 }),
      object: fc.dictionary(key, tie('any'), { maxKeys: 4 }),
    })).any;
    fc.assert(
      fc.property(value, fc.constantFrom(0, 2), (v, indent) => {
        const text = JSON.stringify(v, null, indent);
        // Every "HERE" string that is a value (not a key) becomes a number a float does not keep.
        const places: string[] = [];
        const walk = (x: unknown, path: (string | number)[]) => {
          if (x === 'HERE') places.push(toPointer(path));
          else if (Array.isArray(x)) x.forEach((c, i) => walk(c, [...path, i]));
          else if (x && typeof x === 'object') for (const [k, c] of Object.entries(x)) walk(c, [...path, k]);
        };
        walk(v, []);
        const bad = text.replace(/(?<=[[:,]\s*|^)"HERE"/g, '0.1000000000000000055511151231257827');
        const hits = numbersNotKept(createSourceText(bad, true));
        expect(hits.map((d) => d.pointer).sort()).toEqual(places.sort());
        for (const d of hits) {
          const line = bad.split('\n')[d.line! - 1];
          expect(line.slice(d.column! - 1, d.endColumn! - 1)).toBe('0.1000000000000000055511151231257827');
          expect(parsePointer(d.pointer)).toBeDefined();
        }
        // And JSON.stringify's own numbers are never named.
        expect(numbersNotKept(createSourceText(text, true))).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });
});
