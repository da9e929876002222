import { describe, expect, it } from 'vitest';
import { countItems, ITEM_KINDS, KEYED_ITEM_KINDS } from './types.js';

describe('item kinds', () => {
  it('counts the items of every kind, and what is not a list as none', () => {
    expect(countItems({})).toBe(0);
    expect(countItems({ automations: [1, 2], assets: [1], pipelines: 'x', resources: null, name: [1, 2, 3] })).toBe(3);
    expect(countItems(Object.fromEntries(ITEM_KINDS.map((k) => [k, [k]])))).toBe(ITEM_KINDS.length);
  });

  it('lists by key every kind but the assets', () => {
    expect([...KEYED_ITEM_KINDS, 'assets'].sort()).toEqual([...ITEM_KINDS].sort());
  });
});
