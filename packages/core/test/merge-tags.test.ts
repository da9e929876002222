// The merge-tag list is what editors offer; it must cover what our own packs write, and it is never
// a rule (the spec shows no tags, so a workspace may have more).
import { describe, expect, it } from 'vitest';
import { MERGE_TAGS, MERGE_TAG_PATTERN, MERGE_TAG_SCOPES, mergeTagInfo, validatePack } from '@setup-pack/core';
import { listFixtures, readFixture } from './helpers.js';

const tagsIn = (text: string) => [...text.matchAll(MERGE_TAG_PATTERN)].map((m) => m[1]);

describe('merge tags', () => {
  it('are unique, each in a scope that says where its value comes from', () => {
    expect(new Set(MERGE_TAGS.map((t) => t.tag)).size).toBe(MERGE_TAGS.length);
    for (const t of MERGE_TAGS) {
      expect(t.tag.startsWith(`${t.scope}.`)).toBe(true);
      expect(MERGE_TAG_SCOPES[t.scope]).toMatch(/\.$/);
      expect(t.description).toMatch(/\.$/);
    }
  });

  it('cover every tag the valid fixtures and releases write in their templates', () => {
    const used = new Set<string>();
    for (const dir of ['valid', 'releases'] as const) {
      for (const file of listFixtures(dir)) {
        const pack = JSON.parse(readFixture(`${dir}/${file}`)) as { messageTemplates?: { body?: string; subject?: string }[] };
        for (const t of pack.messageTemplates ?? []) for (const tag of tagsIn(`${t.subject ?? ''} ${t.body ?? ''}`)) used.add(tag);
      }
    }
    expect(used.size).toBeGreaterThan(3);
    expect([...used].filter((t) => !mergeTagInfo(t))).toEqual([]);
  });

  it('read a tag with spaces inside the braces, and no tag in single braces', () => {
    expect(tagsIn('Hi {{ contact.first_name }}, {contact.last_name} {{owner.signature}}')).toEqual([
      'contact.first_name',
      'owner.signature',
    ]);
    expect(mergeTagInfo(' contact.first_name ')?.label).toBe('First name');
  });

  it('are not checked: a tag the list lacks gives no finding', () => {
    const text = readFixture('valid/buyer-lead-starter.json');
    const pack = JSON.parse(text) as { messageTemplates: { body: string }[] };
    pack.messageTemplates[0].body += ' {{contact.favourite_colour}}';
    const codes = (t: string) => validatePack(t).diagnostics.map((f) => f.code);
    expect(codes(JSON.stringify(pack, null, 2))).toEqual(codes(text));
    expect(validatePack(pack).pack).toBeDefined();
  });
});
