// readNumber: one number as a form's number field holds it, read as the pack would read it. The
// same rule, in the same words, as a file's text gets (numberFindings, numbersNotKept): a number
// kept as written is its value; one that is not is core's finding, named by the field's pointer.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSourceText, numbersNotKept, parseJsonText, readNumber } from './parse.js';

describe('readNumber', () => {
  it('reads a number a float keeps as written as its value, however it is spelled', () => {
    for (const [text, value] of [
      ['0', 0],
      ['-3', -3],
      ['12.5', 12.5],
      ['1e2', 100],
      ['1E+2', 100],
      ['0.50', 0.5],
      ['-0.000000000000001', -1e-15],
      ['1e23', 1e23],
      ['9007199254740992', 9007199254740992],
      ['5e-324', 5e-324],
      ['1.7976931348623157e308', 1.7976931348623157e308],
    ] as const)
      expect(readNumber(text), text).toEqual({ value });
  });

  it('is undefined for text that is not a JSON number', () => {
    for (const text of ['', ' ', '-', '1e', '1.', '.5', '+1', '01', '0x10', 'Infinity', 'NaN', '1 ', ' 1', 'abc', '1,5', '--1'])
      expect(readNumber(text), JSON.stringify(text)).toBeUndefined();
  });

  it('gives the finding a file with the number gets, named by the pointer, for each number a float does not keep', () => {
    const cases: [string, string, string][] = [
      ['1e-400', 'json/number-precision', 'closer to 0 than a JSON number can hold here (a 64-bit float); it reads as 0,'],
      [
        '0.1000000000000000055511151231257827',
        'json/number-precision',
        'with more digits than a JSON number keeps here (a 64-bit float keeps 15 to 17 significant digits); it reads as 0.1,',
      ],
      ['-1.23456789e-320', 'json/number-precision', 'so close to 0 that a JSON number keeps only some of its digits here'],
      [
        '9007199254740993',
        'json/number-precision',
        'a 64-bit float holds every integer only up to 2^53, 9007199254740992); it reads as 9007199254740992,',
      ],
      [
        '1e400',
        'json/number-range',
        'beyond what a JSON number can hold here (a 64-bit float); it would be read as Infinity and installed as null.',
      ],
      ['-1e400', 'json/number-range', 'it would be read as -Infinity'],
    ];
    for (const [text, code, says] of cases) {
      const r = readNumber(text, '/stages/0/probability');
      expect(r?.value, text).toBeUndefined();
      expect(r?.finding?.code, text).toBe(code);
      expect(r?.finding?.pointer).toBe('/stages/0/probability');
      expect(r?.finding?.message, text).toContain(`stages[0].probability is the number ${text}, `);
      expect(r?.finding?.message, text).toContain(says);
      // As a file's text gets it: the same code, message and hint.
      const inFile = [
        ...parseJsonText(`{"stages":[{"probability":${text}}]}`).diagnostics,
        ...numbersNotKept(createSourceText(`{"stages":[{"probability":${text}}]}`, true)),
      ];
      expect(
        inFile.map(({ code, message, hint }) => ({ code, message, hint })),
        text,
      ).toEqual([{ code: r!.finding!.code, message: r!.finding!.message, hint: r!.finding!.hint }]);
    }
  });

  it('agrees with JSON.parse and JSON.stringify on any double: kept when it is written back as the same number', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
        const text = JSON.stringify(d);
        expect(readNumber(text)).toEqual({ value: JSON.parse(text) });
      }),
      { numRuns: 2000 },
    );
  });
});
