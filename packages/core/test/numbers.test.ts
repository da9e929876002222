// Numbers JSON.parse does not read as written: one that is not finite (json/number-range, an error:
// installed, it would be null) and an integer beyond 2^53 that reads as another (json/number-precision,
// a warning). Found by the walk parse.ts makes anyway; placed and named as written.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { NOT_AS_WRITTEN, parseJsonText, validatePack, validateAutomationDocument, type Diagnostic } from '@setup-pack/core';
import { readFixture } from './helpers.js';

const base = readFixture('valid/listing-marketing.json');
const brandAt = base.indexOf('"tagline": "Home starts here"');

/** The fixture with `"extra": <literal>` added to its brand (open: no other finding), and where the literal starts. */
function withBrandNumber(literal: string): { text: string; line: number; column: number } {
  const text = `${base.slice(0, brandAt)}"extra": ${literal},\n    ${base.slice(brandAt)}`;
  const before = text.slice(0, brandAt + '"extra": '.length).split('\n');
  return { text, line: before.length, column: before.at(-1)!.length + 1 };
}

const numberFindings = (ds: Diagnostic[]) => ds.filter((d) => d.code.startsWith('json/number-'));

/** An integer's value, exactly, from decimal text of the form JSON.stringify writes (digits, optional fraction and exponent). */
function exactInteger(s: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e\+?(\d+))?$/.exec(s)!;
  const fraction = m[3] ?? '';
  const shift = Number(m[4] ?? 0) - fraction.length;
  const digits = BigInt(m[2] + fraction);
  const value = shift >= 0 ? digits * 10n ** BigInt(shift) : digits / 10n ** BigInt(-shift);
  return m[1] ? -value : value;
}

describe('json/number-range', () => {
  for (const literal of ['1e400', '-1e400', '1E+309', '-2e308', `1${'0'.repeat(309)}`]) {
    it(`${literal.length > 20 ? 'a 310-digit integer' : literal} in an open field is an error, placed and named as written`, () => {
      const { text, line, column } = withBrandNumber(literal);
      const r = validatePack(text);
      expect(r.diagnostics).toEqual([
        {
          code: 'json/number-range',
          severity: 'error',
          message: `brand.extra is the number ${literal}, beyond what a JSON number can hold here (a 64-bit float); it would be read as ${literal.startsWith('-') ? '-' : ''}Infinity and installed as null.`,
          pointer: '/brand/extra',
          hint: 'Write it as a string if it is an identifier, or a number of at most 1.7976931348623157e308 in size.',
          line,
          column,
          endLine: line,
          endColumn: column + literal.length,
        },
      ]);
      expect(r.pack).toBeUndefined();
      // place: false gives the same finding, already placed.
      expect(validatePack(text, { place: false }).diagnostics).toEqual(r.diagnostics);
    });
  }

  it('is the one finding where the schema or a rule would have said more about the value', () => {
    const text = base.replace('"daily_send_limit": 200', '"daily_send_limit": 1e400');
    expect(text).not.toBe(base);
    // The schema alone said "must be an integer, not a number".
    expect(validatePack(text).diagnostics.map((d) => `${d.code} ${d.pointer}`)).toEqual([
      'json/number-range /automations/0/document/settings/daily_send_limit',
    ]);
    const config = base.replace('"max_iterations": 5', '"max_iterations": -1e999');
    expect(config).not.toBe(base);
    expect(validatePack(config).diagnostics.map((d) => d.code)).toEqual(['json/number-range']);
  });

  it('finds every one, in document order, among repeated property names and array-index names', () => {
    const text = base.replace(
      '"tagline": "Home starts here"',
      '"tagline": "Home starts here", "2": [1, 1e400, {"x": -1e400}], "tagline": "x", "1": 1e999, "a/b~c\\u0022": 1e400',
    );
    const r = validatePack(text);
    expect(r.diagnostics.map((d) => `${d.code} ${d.pointer}`)).toEqual([
      'json/number-range /brand/2/1',
      'json/number-range /brand/2/2/x',
      'json/duplicate-key /brand/tagline',
      'json/number-range /brand/1',
      'json/number-range /brand/a~1b~0c"',
    ]);
    for (const d of numberFindings(r.diagnostics))
      expect(text.split('\n')[d.line! - 1].slice(d.column! - 1, d.endColumn! - 1)).toMatch(/^-?1e(400|999)$/);
  });

  it('a value handed in as an object: Infinity and NaN are found by pointer, without a position', () => {
    const pack = JSON.parse(base);
    pack.brand.size = Infinity;
    pack.resources[0].data = { limit: -Infinity, ratio: NaN };
    const found = numberFindings(validatePack(pack).diagnostics);
    expect(found.map((d) => [d.pointer, d.message])).toEqual([
      ['/brand/size', 'brand.size is Infinity, beyond what a JSON number can hold (a 64-bit float); it would be installed as null.'],
      [
        '/resources/0/data/limit',
        'resources[0].data.limit is -Infinity, beyond what a JSON number can hold (a 64-bit float); it would be installed as null.',
      ],
      ['/resources/0/data/ratio', 'resources[0].data.ratio is NaN (not a number), which JSON cannot write; it would be installed as null.'],
    ]);
    expect(found.every((d) => d.line === undefined && d.severity === 'error')).toBe(true);
    // What the server checks: an automation document on its own.
    const doc = JSON.parse(base).automations[0].document;
    doc.graph.nodes[0].config.limit = Infinity;
    expect(validateAutomationDocument(doc).diagnostics.map((d) => `${d.code} ${d.pointer}`)).toEqual([
      'json/number-range /graph/nodes/0/config/limit',
    ]);
  });

  it('a whole document that is such a number', () => {
    expect(validatePack('1e400').diagnostics.map((d) => `${d.code} ${d.pointer} ${d.line}:${d.column}`)).toEqual([
      'json/number-range  1:1',
      'schema/type  1:1',
    ]);
  });

  it('numbers JSON.stringify wrote are never flagged', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (v) => {
        const { text } = withBrandNumber(JSON.stringify(v));
        expect(numberFindings(validatePack(text).diagnostics)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('any literal past the largest float is found', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.stringMatching(/^[1-9]\d{0,20}(\.\d{1,20})?$/),
        fc.integer({ min: 309, max: 100_000 }),
        fc.constantFrom('e', 'E', 'e+', 'E+'),
        (negative, mantissa, exponent, e) => {
          const literal = `${negative ? '-' : ''}${mantissa}${e}${exponent}`;
          const { text, line, column } = withBrandNumber(literal);
          const found = numberFindings(validatePack(text).diagnostics);
          expect(found.map((d) => [d.code, d.pointer, d.line, d.column, d.endColumn])).toEqual([
            ['json/number-range', '/brand/extra', line, column, column + literal.length],
          ]);
          expect(found[0].message).toContain(`is the number ${literal}, beyond`);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('json/number-precision', () => {
  it('an integer beyond 2^53 that reads as another number is a warning naming both', () => {
    const { text, line, column } = withBrandNumber('12345678901234567890');
    const r = validatePack(text);
    expect(r.diagnostics).toEqual([
      {
        code: 'json/number-precision',
        severity: 'warning',
        message:
          'brand.extra is the number 12345678901234567890, with more digits than a JSON number keeps here (a 64-bit float holds every integer only up to 2^53, 9007199254740992); it reads as 12345678901234567000, and would be installed and exported so.',
        pointer: '/brand/extra',
        hint: 'Write it as a string if it is an identifier (an id, an account or phone number); else write 12345678901234567000.',
        line,
        column,
        endLine: line,
        endColumn: column + 20,
      },
    ]);
    expect(r.pack).toBeDefined(); // a warning: the pack still validates
  });

  it('is said only when the number read is not the number written', () => {
    // 1e23 is no float (10^23 is not a sum of 53 bits' powers of two) but reads as the float
    // JSON.stringify writes back as 1e+23: the same number.
    for (const same of [
      '9007199254740992',
      '-9007199254740992',
      '1152921504606847000',
      '1e23',
      '1E23',
      '1.0e16',
      '100000000000000000000',
      '1.7976931348623157e308',
      '12345678901234567e3',
    ]) {
      expect(numberFindings(validatePack(withBrandNumber(same).text).diagnostics), same).toEqual([]);
    }
    // 2^60 is a float, exactly, but JSON.stringify writes it back as 1152921504606847000 (the
    // shortest digits that read as it): the pack would say another number.
    for (const lost of [
      '1152921504606846976',
      '9007199254740993',
      '-9007199254740993',
      '12345678901234567890.0',
      '9007199254740992.5',
      '0.9007199254740993e16',
      '18446744073709551615',
      '123456789012345678e2',
    ]) {
      expect(
        numberFindings(validatePack(withBrandNumber(lost).text).diagnostics).map((d) => d.code),
        lost,
      ).toEqual(['json/number-precision']);
    }
  });

  it('is not told of a value handed in as an object: a float is what it is, and is written back exactly', () => {
    const pack = JSON.parse(withBrandNumber('12345678901234567890').text);
    expect(validatePack(pack).diagnostics).toEqual([]);
  });

  it('agrees with exact integer arithmetic for every integer written out in full', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), (n) => {
        const literal = n.toString();
        const value = Number(literal);
        const lost = exactInteger(JSON.stringify(value)) !== n;
        const found = numberFindings(validatePack(withBrandNumber(literal).text).diagnostics);
        expect(found.map((d) => d.code)).toEqual(lost ? ['json/number-precision'] : []);
        if (lost) expect(found[0].message).toContain(`it reads as ${value}`);
      }),
      { numRuns: 500 },
    );
  });
});

describe('NOT_AS_WRITTEN', () => {
  it('names each parser finding whose text the parsed value does not keep, and whether checking the value still finds it', () => {
    const examples: Record<string, { text: string; rewritten: string }> = {
      'json/duplicate-key': { text: '{"a":1,"a":2}', rewritten: '{"a":2}' },
      'json/number-range': { text: '{"a":1e400}', rewritten: '{"a":null}' },
      'json/number-precision': { text: '{"a":12345678901234567890}', rewritten: '{"a":12345678901234567000}' },
    };
    expect([...NOT_AS_WRITTEN.keys()].sort()).toEqual(Object.keys(examples).sort());
    for (const [code, { text, rewritten }] of Object.entries(examples)) {
      const parsed = parseJsonText(text);
      expect(parsed.diagnostics.map((d) => d.code)).toContain(code);
      // Written again, the value says something else than the text.
      expect(JSON.stringify(parsed.value)).toBe(rewritten);
      // valueShows: a check of the value (what the editor holds) finds it again, or never can.
      expect(validatePack(parsed.value).diagnostics.some((d) => d.code === code)).toBe(NOT_AS_WRITTEN.get(code)!.valueShows);
    }
  });
});
