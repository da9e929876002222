import { describe, expect, it } from 'vitest';
import { newId } from '../src/shared/ids.js';

describe('newId', () => {
  it('writes the prefix and the asked number of random bytes as hex, never the same twice across pool refills', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => newId('con', i % 2 ? 12 : 8)); // ~20 kB: several refills of the 4 kB pool
    for (const [i, id] of ids.entries()) expect(id).toMatch(i % 2 ? /^con_[0-9a-f]{24}$/ : /^con_[0-9a-f]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(() => newId('x', 5000)).toThrow(RangeError);
  });
});
