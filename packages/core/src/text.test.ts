// Counts in messages: count writes what toLocaleString('en-US') writes without loading ICU, and
// plural is the one statement of "1 thing, 2 things" every package's messages use.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { count, Needles, occurringIn, plural, pluralWord, printable, printableLine } from './text.js';

describe('count', () => {
  it('writes thousands separators as toLocaleString("en-US") does', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.nat(), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: Number.MIN_SAFE_INTEGER, max: 0 })),
        (n) => {
          expect(count(n)).toBe(n.toLocaleString('en-US'));
        },
      ),
    );
    expect(count(39_799)).toBe('39,799');
    expect(count(-1_000)).toBe('-1,000');
  });

  it('separates only the whole part of a fraction, keeping its digits', () => {
    expect(count(1500.25)).toBe('1,500.25');
    expect(count(0.0001234)).toBe('0.0001234');
    expect(count(-1234.5678)).toBe('-1,234.5678');
  });
});

describe('plural', () => {
  it('uses the singular for exactly one and the plural for any other count', () => {
    expect(plural(1, 'error')).toBe('1 error');
    expect(plural(0, 'error')).toBe('0 errors');
    expect(plural(2, 'error')).toBe('2 errors');
    expect(plural(1.5, 'hour')).toBe('1.5 hours');
  });

  it('writes the count with its separators', () => {
    expect(plural(1234, 'item')).toBe('1,234 items');
    expect(plural(50_000, 'info')).toBe('50,000 infos');
  });

  it('takes an irregular plural', () => {
    expect(plural(1, 'entry', 'entries')).toBe('1 entry');
    expect(plural(12_000, 'entry', 'entries')).toBe('12,000 entries');
    expect(pluralWord(1, 'it', 'them')).toBe('it');
    expect(pluralWord(3, 'it', 'them')).toBe('them');
    expect(pluralWord(0, 'file')).toBe('files');
  });
});

// What a terminal or a CI log would act on: escapes, line breaks (a line starting `::` is a
// GitHub workflow command), C1 controls and the bidirectional overrides of "Trojan Source".
const unsafe = (c: number) =>
  c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029 || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);

describe('printable', () => {
  it('writes what a terminal would act on as JSON escapes it, and leaves everything else', () => {
    expect(printable('\u001b]0;pwned\u0007')).toBe('\\u001b]0;pwned\\u0007');
    expect(printable('a\nb\r\tc')).toBe('a\\nb\\r\\tc');
    expect(printable('evil\u202eexe.pdf')).toBe('evil\\u202eexe.pdf');
    expect(printable('x\u0085\u2028\u2066y')).toBe('x\\u0085\\u2028\\u2066y');
    // Right-to-left text keeps its marks; other scripts and emoji are untouched.
    expect(printable('שלום\u200f עולם, Grüße 🏡')).toBe('שלום\u200f עולם, Grüße 🏡');
    const plain = 'config.tag_id is not in our catalog';
    expect(printable(plain)).toBe(plain);
  });

  it('leaves no character a terminal acts on, and loses nothing: JSON reads the escapes back', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const out = printable(s);
        // One expect per string, not per character: a thousand expect calls a run took this
        // property past vitest's 5 s on a loaded machine.
        let firstUnsafe = -1;
        for (let i = 0; i < out.length && firstUnsafe < 0; i++) if (unsafe(out.charCodeAt(i))) firstUnsafe = i;
        expect(firstUnsafe).toBe(-1);
        // Backslashes the input had are kept as they are, so compare after escaping them too.
        expect(JSON.parse(`"${printable(s.replace(/\\/g, '\\\\').replace(/"/g, '\\"'))}"`)).toBe(s);
        if (![...s].some((ch) => unsafe(ch.charCodeAt(0)))) expect(out).toBe(s);
      }),
    );
  });
});

describe('printableLine', () => {
  it('replaces each such character by one visible one, so columns line up', () => {
    expect(printableLine('"x": "\u001b[31mRED\u0007"')).toBe('"x": "␛[31mRED␇"');
    expect(printableLine('\tkey\u007f\u202e')).toBe(' key␡\ufffd');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const out = printableLine(s);
        expect(out.length).toBe(s.length);
        let wrong = -1;
        for (let i = 0; i < out.length && wrong < 0; i++)
          if (unsafe(out.charCodeAt(i)) || (!unsafe(s.charCodeAt(i)) && out[i] !== s[i])) wrong = i;
        expect(wrong).toBe(-1);
      }),
    );
  });
});

describe('occurringIn', () => {
  it('finds exactly the needles that text.includes finds', () => {
    // Small alphabets, so needles share heads, overlap and repeat.
    const str = (max: number) => fc.string({ unit: fc.constantFrom('a', 'b', '/', ':', 'h'), maxLength: max });
    fc.assert(
      fc.property(str(60), fc.array(str(12), { maxLength: 12 }), (text, needles) => {
        const want = new Set(needles.filter((n) => n !== '' && text.includes(n)));
        expect(occurringIn(text, needles)).toEqual(want);
      }),
      { numRuns: 500 },
    );
  });

  it('answers each text on its own when one set of needles is asked of many', () => {
    const str = (max: number) => fc.string({ unit: fc.constantFrom('a', 'b', '/', 'h'), maxLength: max });
    fc.assert(
      fc.property(fc.array(str(40), { maxLength: 6 }), fc.array(str(10), { maxLength: 10 }), (texts, needles) => {
        const set = new Needles(needles);
        for (const text of texts) expect(set.in(text)).toEqual(new Set(needles.filter((n) => n !== '' && text.includes(n))));
      }),
      { numRuns: 300 },
    );
  });

  it('finds addresses inside JSON text, long and short, sharing one host', () => {
    const urls = ['https://cdn.example.com/m/1.png', 'https://cdn.example.com/m/10.png', 'https://cdn.example.com/m/2.png', 'x'];
    const text = JSON.stringify({ html: `<img src="${urls[1]}"><img src="${urls[2]}">` });
    expect(occurringIn(text, urls)).toEqual(new Set([urls[1], urls[2], 'x']));
    expect(occurringIn(text, ['', 'https://other.example/'])).toEqual(new Set());
  });
});
