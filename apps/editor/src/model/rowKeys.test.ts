import { describe, expect, it } from 'vitest';
import { followKeys } from './rowKeys.js';

describe('followKeys', () => {
  const a = { field: 'a' };
  const b = { field: 'b', value: '' };
  const c = { field: 'c', value: '' };
  let n = 100;
  const fresh = () => ++n;

  it("keeps each item's key wherever it goes: removed before it, moved, added after", () => {
    expect(followKeys([a, b, c], [1, 2, 3], [b, c], fresh)).toEqual([2, 3]);
    expect(followKeys([a, b, c], [1, 2, 3], [a, c, b], fresh)).toEqual([1, 3, 2]);
    const d = { field: 'd' };
    expect(followKeys([a, b], [1, 2], [a, b, d], fresh)).toEqual([1, 2, 101]);
  });

  it("keeps an edited item's key by its place (the items around it are the same), and gives a removed item's key to no other", () => {
    const b2 = { ...b, value: 'x' };
    expect(followKeys([a, b, c], [1, 2, 3], [a, b2, c], fresh)).toEqual([1, 2, 3]);
    // b removed and c edited in one step (an undo across both): c's place is not known, so it is new; a keeps its key.
    const c2 = { ...c, value: 'y' };
    expect(followKeys([a, b, c], [1, 2, 3], [a, c2], fresh)).toEqual([1, 102]);
    // An item that comes back (undo of a removal) is a new row: its old key is not reused.
    expect(followKeys([a, c], [1, 3], [a, b, c], fresh)).toEqual([1, 103, 3]);
  });

  it('gives every item a key of its own, the same object twice included', () => {
    expect(followKeys([a], [1], [a, a], fresh)).toEqual([1, 104]);
    expect(followKeys([], [], [a, b], fresh)).toEqual([105, 106]);
  });
});
