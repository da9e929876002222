import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describePointer, resolvePointer, tokenIndex } from './pointer.js';

describe('tokenIndex: the one reading of an array index token', () => {
  it('reads 0 and digits without a leading zero, and nothing else', () => {
    expect([tokenIndex('0'), tokenIndex('7'), tokenIndex('42'), tokenIndex('999999999')]).toEqual([0, 7, 42, 999999999]);
    for (const t of ['', '01', '00', '-1', '1.0', '1e3', ' 1', '1 ', 'x', '0x1', '1234567890']) expect(tokenIndex(t), t).toBe(-1);
  });

  it('agrees with RFC 6901 array-index syntax for any token', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.nat().map(String), fc.stringMatching(/^[0-9]{1,12}$/)), (t) => {
        const isIndex = /^(0|[1-9][0-9]*)$/.test(t) && t.length <= 9;
        expect(tokenIndex(t)).toBe(isIndex ? Number(t) : -1);
      }),
    );
  });

  it('is what resolving and describing pointers use', () => {
    const doc = { list: ['a', 'b'] };
    expect(resolvePointer(doc, '/list/1')).toEqual({ found: true, value: 'b' });
    expect(resolvePointer(doc, '/list/01')).toEqual({ found: false });
    expect(resolvePointer(doc, '/list/2')).toEqual({ found: false });
    expect(describePointer('/automations/2/document/graph/nodes/05')).toBe('automations[2].document.graph.nodes["05"]');
  });
});
