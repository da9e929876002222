// The generators of what follows a first install are honest too: a next release of a valid pack,
// and a second pack sharing objects with it, are valid packs; and they make what the installer's
// edits suite needs (items changed, dropped and added; copies under other keys; references by name).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validatePack, type Pack } from '@setup-pack/core';
import { fuzzConfig, nextRelease, NEXT_VERSION, sharingPack, validPack } from '../src/index.js';

const { numRuns, seed, timeoutMs } = fuzzConfig('testkit nextRelease and sharingPack', 30);
const errorsOf = (pack: Pack) =>
  validatePack(pack)
    .diagnostics.filter((d) => d.severity === 'error')
    .map((d) => `${d.code} ${d.pointer}: ${d.message}`);
const keys = (pack: Pack) =>
  ['resources', 'pipelines', 'messageTemplates', 'smartLists', 'automations'].flatMap((l) =>
    ((pack as unknown as Record<string, { key: string }[]>)[l] ?? []).map((x) => `${l}/${x.key}`),
  );

describe('nextRelease() and sharingPack()', () => {
  it(
    'make valid packs: the next release keeps the packId and moves the version on',
    () => {
      fc.assert(
        fc.property(
          validPack({ maxItems: 2 }).chain((p) => fc.tuple(fc.constant(p), nextRelease(p), sharingPack(p))),
          ([pack, next, second]) => {
            expect(errorsOf(next)).toEqual([]);
            expect(errorsOf(second)).toEqual([]);
            expect({ packId: next.packId, version: next.version }).toEqual({ packId: pack.packId, version: NEXT_VERSION });
          },
        ),
        { numRuns, seed },
      );
    },
    timeoutMs(40),
  );

  it('over a sample: releases change, drop and add items; second packs copy items and name resources', () => {
    const seen = new Set<string>();
    for (const [pack, next, second] of fc.sample(
      validPack({ maxItems: 2 }).chain((p) => fc.tuple(fc.constant(p), nextRelease(p), sharingPack(p))),
      { numRuns: 60, seed: 42 },
    )) {
      const before = new Set(keys(pack));
      const after = new Set(keys(next));
      if ([...before].some((k) => !after.has(k))) seen.add('dropped');
      if ([...after].some((k) => !before.has(k))) seen.add('added');
      if (
        JSON.stringify(next.smartLists) !== JSON.stringify(pack.smartLists) &&
        next.smartLists?.some((l) => l.description === 'Changed in the release')
      )
        seen.add('changed');
      if (keys(second).some((k) => k.includes('/shared '))) seen.add('copied');
      if (second.automations?.some((a) => a.key === 'shared by name')) seen.add('by name');
    }
    expect([...seen].sort()).toEqual(['added', 'by name', 'changed', 'copied', 'dropped']);
  });
});
