import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { forEachRepeat, forEachRepeatedField, forEachRepeatedValue } from './util.js';

describe('forEachRepeatedField', () => {
  it('reports each repeat with the first element that had the value, for short and long lists alike', () => {
    const element = fc.oneof(fc.record({ key: fc.constantFrom('a', 'b', 'c', 'd') }), fc.constant(null), fc.record({ key: fc.integer() }));
    fc.assert(
      fc.property(fc.array(element, { maxLength: 150 }), (list) => {
        const got: [number, number][] = [];
        forEachRepeatedField(list, 'key', (i, first) => got.push([i, first]));
        const want: [number, number][] = [];
        const seen = new Map<string, number>();
        list.forEach((v, i) => {
          const k = v && typeof v.key === 'string' ? v.key : undefined;
          if (k === undefined) return;
          if (seen.has(k)) want.push([i, seen.get(k)!]);
          else seen.set(k, i);
        });
        expect(got).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });
});

describe('forEachRepeatedValue', () => {
  it('reports exactly what forEachRepeat over [value, index] pairs reports (settings/duplicate-day did that), for short and long lists alike', () => {
    const shared = { day: 1 };
    const value = fc.oneof(
      fc.integer({ min: -1, max: 7 }),
      fc.constantFrom(null, 'x', true, NaN, -0, 0, shared),
      fc.record({ day: fc.nat(2) }),
    );
    fc.assert(
      fc.property(fc.array(value, { maxLength: 150 }), (list) => {
        const got: [number, number][] = [];
        forEachRepeatedValue(list, (i, first) => got.push([i, first]));
        const want: [number, number][] = [];
        forEachRepeat(
          list.map((d, i) => [d, i] as const),
          ([d]) => d,
          ([, i], [, first]) => want.push([i, first]),
        );
        expect(got).toEqual(want);
      }),
      { numRuns: 500 },
    );
  });
});
