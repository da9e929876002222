// Test support: lists of findings as successive validations change them — each edit replaces a
// run with new findings and keeps the rest as the same objects, as the page holds them
// (findingsDelta.ts). Used by the property tests of the findings index and the panel's groups.
import fc from 'fast-check';
import type { Diagnostic } from '@setup-pack/core';

export interface FindingEdit {
  at: number;
  drop: number;
  add: Diagnostic[];
}

/** A first list of findings and the edits that follow it. */
export const findingEdits = (finding: fc.Arbitrary<Diagnostic>, minLength: number) =>
  fc.tuple(
    fc.array(finding, { minLength, maxLength: 20 }),
    fc.array(fc.record({ at: fc.nat(), drop: fc.nat({ max: 4 }), add: fc.array(finding, { maxLength: 4 }) }), {
      minLength: 1,
      maxLength: 6,
    }),
  );

/** The list after one edit: `drop` findings from `at` (wrapped to the list) replaced by `add`. */
export function applyEdit(list: readonly Diagnostic[], { at, drop, add }: FindingEdit): Diagnostic[] {
  const from = at % (list.length + 1);
  return [...list.slice(0, from), ...add, ...list.slice(from + drop)];
}
