import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '@setup-pack/core';
import fc from 'fast-check';
import { flattenRows, groupId, groupRows, regroupRows } from './findingRows.js';
import { applyEdit, findingEdits } from './edits.testing.js';

const info = (node: string): Diagnostic => ({
  code: 'catalog/unknown-config-field',
  severity: 'info',
  message: `config.x of action.add_note node "${node}" is not in our catalog; it is kept as it is.`,
  pointer: `/automations/0/document/graph/nodes/${node}`,
});
const error: Diagnostic = {
  code: 'graph/cycle',
  severity: 'error',
  message: 'The graph has a cycle: a → b → a.',
  pointer: '/automations/1',
};

describe('finding rows', () => {
  it('folds repeats of one message shape into one group row, errors first, and lists a group when it is opened', () => {
    const diagnostics = [...Array.from({ length: 50000 }, (_, i) => info(`n${i}`)), error];
    const groups = groupRows(diagnostics);
    expect(groups.map((g) => [g.code, g.items.length])).toEqual([
      ['graph/cycle', 1],
      ['catalog/unknown-config-field', 50000],
    ]);
    const closed = flattenRows(groups, new Set());
    expect(closed.map((r) => r.type)).toEqual(['item', 'group']);
    const opened = flattenRows(groups, new Set([groupId(groups[1])]));
    expect(opened).toHaveLength(2 + 50000);
    expect(opened[2]).toMatchObject({ type: 'item', nested: true, finding: { message: expect.stringContaining('"n0"') } });
  });

  it('regroups only what a changed run of findings touched, and ends where grouping from scratch does', () => {
    const finding = fc.record({
      code: fc.constantFrom('a', 'b'),
      severity: fc.constantFrom('error', 'warning', 'info'),
      message: fc.constantFrom('x "1" y', 'x "2" y', 'z'),
      pointer: fc.constant('/p'),
    }) as fc.Arbitrary<Diagnostic>;
    const plain = (groups: readonly { code: string; severity: string; shape: string; items: readonly Diagnostic[] }[]) =>
      groups.map((g) => ({ code: g.code, severity: g.severity, shape: g.shape, items: [...g.items] }));
    fc.assert(
      fc.property(findingEdits(finding, 6), ([start, edits]) => {
        let list = start;
        let grouped = regroupRows(undefined, list);
        for (const e of edits) {
          const before = grouped;
          const snapshot = plain(before.groups);
          list = applyEdit(list, e);
          grouped = regroupRows(grouped, list);
          const want = groupRows(list);
          expect(plain(grouped.groups)).toEqual(plain(want));
          grouped.groups.forEach((g, i) => g.items.forEach((d, k) => expect(d).toBe(want[i]!.items[k])));
          expect(plain(before.groups)).toEqual(snapshot); // the groups before are left as they were
        }
      }),
      { numRuns: 500 },
    );
    // One finding changed in 50,000: the other group is the object it was.
    const many = [error, ...Array.from({ length: 50000 }, (_, i) => info(`n${i}`))];
    const first = regroupRows(undefined, many);
    const next = regroupRows(first, [{ ...error, message: 'The graph has a cycle: b → a → b.' }, ...many.slice(1)]);
    expect(next.groups[1]).toBe(first.groups[1]);
    expect(next.groups[0]!.items[0]!.message).toContain('b → a → b');
  });
});
