import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { getOwn, setOwn } from './own.js';

describe('setOwn', () => {
  it('makes every key an own enumerable data property, the prototype\'s names and "__proto__" included', () => {
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__', 'plain'];
    const rec: Record<string, unknown> = {};
    names.forEach((k, i) => setOwn(rec, k, i));
    expect(Object.keys(rec)).toEqual(names);
    names.forEach((k, i) => expect(getOwn(rec, k)).toBe(i));
    expect(Object.getPrototypeOf(rec)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(rec))).toEqual(JSON.parse(`{${names.map((k, i) => `"${k}":${i}`).join(',')}}`));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('gives what JSON.parse gives for any object (property: same keys, order and values)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'toString')), fc.jsonValue()), (dict) => {
        const text = JSON.stringify(Object.fromEntries(Object.entries(dict)));
        const parsed = JSON.parse(text) as Record<string, unknown>;
        const copy: Record<string, unknown> = {};
        for (const k of Object.keys(parsed)) setOwn(copy, k, parsed[k]);
        expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
        expect(JSON.stringify(copy)).toBe(text);
      }),
    );
  });
});
