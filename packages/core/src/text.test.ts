// Counts in messages: count writes what toLocaleString('en-US') writes without loading ICU, and
// plural is the one statement of "1 thing, 2 things" every package's messages use.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { count, plural, pluralWord } from './text.js';

describe('count', () => {
  it('writes thousands separators as toLocaleString("en-US") does', () => {
    fc.assert(
      fc.property(fc.oneof(fc.nat(), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: Number.MIN_SAFE_INTEGER, max: 0 })), (n) => {
        expect(count(n)).toBe(n.toLocaleString('en-US'));
      }),
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
