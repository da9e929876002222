// Keys handed out by export: the smallest free suffix of a name, whatever was reserved before.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { KeyAllocator, slugify } from './keys.js';

/** What take() promised before it remembered suffixes: -2, -3, … tried from the start each time. */
function smallestFree(used: Set<string>, base: string): string {
  let key = base;
  for (let n = 2; used.has(key); n++) key = `${base}-${n}`;
  used.add(key);
  return key;
}

describe('KeyAllocator', () => {
  it('gives the smallest free suffix, among reserved keys and names that look like suffixes', () => {
    const name = fc.constantFrom('hot', 'Hot', 'hot 2', 'hot-3', 'cold', 'hot 2 2');
    const op = fc.oneof(
      fc.record({ take: name }),
      fc.record({ reserve: fc.constantFrom('tag-hot', 'tag-hot-2', 'tag-hot-4', 'tag-hot-2-2', 'tag-cold-2') }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const keys = new KeyAllocator();
        const used = new Set<string>();
        for (const o of ops) {
          if ('reserve' in o) {
            keys.reserve(o.reserve);
            used.add(o.reserve);
          } else {
            expect(keys.take('tag', o.take)).toBe(smallestFree(used, `tag-${slugify(o.take)}`));
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('numbers thousands of one name in order', () => {
    const keys = new KeyAllocator();
    const got = Array.from({ length: 5000 }, () => keys.take('', 'image.png'));
    expect(got[0]).toBe('image-png');
    expect(got[1]).toBe('image-png-2');
    expect(got[4999]).toBe('image-png-5000');
    expect(new Set(got).size).toBe(5000);
  });
});
