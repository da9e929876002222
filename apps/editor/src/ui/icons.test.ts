import { describe, expect, it } from 'vitest';
import { NODE_KINDS } from '@setup-pack/core';
import { blockIcon, GROUP_ICONS, KIND_ICONS } from './icons.js';

describe('block icons', () => {
  it('gives every kind of the catalog an icon of its own, and names no kind the catalog lacks', () => {
    expect(NODE_KINDS.filter((k) => !KIND_ICONS[k])).toEqual([]);
    expect(Object.keys(KIND_ICONS).filter((k) => !NODE_KINDS.includes(k))).toEqual([]);
  });
  it("falls back to the category's icon for a kind it does not know", () => {
    expect(blockIcon('action.not_yet', 'action')).toBe(GROUP_ICONS.action);
    expect(blockIcon('nonsense', 'whatever')).toBe(GROUP_ICONS.unknown);
  });
});
