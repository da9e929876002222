import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '@setup-pack/core';
import { flattenRows, groupId, groupRows } from './findingRows.js';

const info = (node: string): Diagnostic => ({ code: 'catalog/unknown-config-field', severity: 'info', message: `config.x of action.add_note node "${node}" is not in our catalog; it is kept as it is.`, pointer: `/automations/0/document/graph/nodes/${node}` });
const error: Diagnostic = { code: 'graph/cycle', severity: 'error', message: 'The graph has a cycle: a → b → a.', pointer: '/automations/1' };

describe('finding rows', () => {
  it('folds repeats of one message shape into one group row, errors first, and lists a group when it is opened', () => {
    const diagnostics = [...Array.from({ length: 50000 }, (_, i) => info(`n${i}`)), error];
    const groups = groupRows(diagnostics);
    expect(groups.map((g) => [g.code, g.items.length])).toEqual([['graph/cycle', 1], ['catalog/unknown-config-field', 50000]]);
    const closed = flattenRows(groups, new Set());
    expect(closed.map((r) => r.type)).toEqual(['item', 'group']);
    const opened = flattenRows(groups, new Set([groupId(groups[1])]));
    expect(opened).toHaveLength(2 + 50000);
    expect(opened[2]).toMatchObject({ type: 'item', nested: true, finding: { message: expect.stringContaining('"n0"') } });
  });
});
