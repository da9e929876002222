import { describe, expect, it } from 'vitest';
import { NODE_CATALOG } from '@setup-pack/core';
import { paletteSections } from './palette.js';

const catalog = [...NODE_CATALOG.values()];

describe('paletteSections', () => {
  it('groups the whole catalog as triggers, actions, controls, every block once', () => {
    const sections = paletteSections(catalog, '', true);
    expect(sections.map((s) => s.title)).toEqual(['Triggers', 'Actions', 'Controls']);
    for (const s of sections) expect(s.blocks.every((k) => k.group === s.group)).toBe(true);
    expect(sections.flatMap((s) => s.blocks.map((k) => k.kind)).sort()).toEqual(catalog.map((k) => k.kind).sort());
  });

  it('leaves triggers out where a trigger cannot go, and empty groups out of a search', () => {
    expect(paletteSections(catalog, '', false).map((s) => s.group)).toEqual(['action', 'control']);
    const tag = paletteSections(catalog, 'add tag', true);
    expect(tag.map((s) => s.group)).toEqual(['action']);
    expect(tag[0]!.blocks.map((k) => k.label)).toContain('Add tag');
    expect(paletteSections(catalog, 'zzz-no-such-block', true)).toEqual([]);
  });
});
