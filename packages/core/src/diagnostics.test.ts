import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  compareAtOnePlace,
  groupFindings,
  groupFindingsAt,
  messageShape,
  quotedParts,
  type Diagnostic,
  type FindingGroup,
  type Severity,
} from './diagnostics.js';
import { RULE_METADATA } from './rules/metadata.js';

const sign = (n: number) => (n > 0 ? 1 : n < 0 ? -1 : 0);

/** groupFindings as it was (one key string per finding): the oracle for the nested maps. */
function groupFindingsByKey(list: readonly Diagnostic[]): FindingGroup[] {
  const groups = new Map<string, FindingGroup>();
  for (const d of list) {
    const shape = messageShape(d.message);
    const id = `${d.severity}\u0000${d.code}\u0000${shape}`;
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { code: d.code, severity: d.severity, shape, items: [] }));
    g.items.push(d);
  }
  return [...groups.values()];
}

describe('compareAtOnePlace', () => {
  const finding = (code: string, severity: Severity = 'info'): Diagnostic => ({ code, severity, message: '', pointer: '' });
  it('orders codes as localeCompare did: every pair of the rule codes, and random codes of lowercase letters, digits, / and -', () => {
    const codes = [
      ...RULE_METADATA.map((m) => m.code),
      'json/syntax',
      'json/too-deep',
      'json/duplicate-key',
      'schema/type',
      'schema/unknown-field',
      'schema/too-long',
      'internal/error',
    ];
    for (const a of codes) for (const b of codes) expect(sign(compareAtOnePlace(finding(a), finding(b)))).toBe(sign(a.localeCompare(b)));
    const code = fc.array(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789/-'.split('')), { maxLength: 12 }).map((c) => c.join(''));
    fc.assert(
      fc.property(
        code,
        code,
        fc.constantFrom<Severity>('error', 'warning', 'info'),
        fc.constantFrom<Severity>('error', 'warning', 'info'),
        (a, b, s, t) => {
          const old = { error: 0, warning: 1, info: 2 };
          expect(sign(compareAtOnePlace(finding(a, s), finding(b, t)))).toBe(sign(old[s] - old[t] || a.localeCompare(b)));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('messageShape', () => {
  it('replaces every double-quoted part with "…" and every [digits] with […], as /"[^"]*"|\\[\\d+\\]/g does, an unclosed quote left as it is', () => {
    fc.assert(
      fc.property(
        fc
          .array(fc.constantFrom('"', 'a', ' ', 'é', '…', 'x"y', '[', ']', '1', '[12]', '[x]', '[]', '"[3]"'), { maxLength: 30 })
          .map((parts) => parts.join('')),
        (message) => {
          expect(messageShape(message)).toBe(message.replace(/"[^"]*"|\[\d+\]/g, (m) => (m.startsWith('"') ? '"…"' : '[…]')));
        },
      ),
      { numRuns: 2000 },
    );
    expect(messageShape('config.x of action.notify node "n1" is not in our catalog')).toBe(
      'config.x of action.notify node "…" is not in our catalog',
    );
    expect(messageShape('automations[12].document.graph.nodes[3].kind is "action.nope", which is not one of the allowed values')).toBe(
      'automations[…].document.graph.nodes[…].kind is "…", which is not one of the allowed values',
    );
  });

  it('leaves out exactly the quotedParts (messages without indexes): the shape with each "…" put back from them is the message', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('"', 'a', ' ', 'é', '…', 'x"y', '"…"'), { maxLength: 30 }).map((parts) => parts.join('')),
        (message) => {
          const parts = quotedParts(message);
          let i = 0;
          // The shape's own "…" stand where messageShape replaced a part, in order.
          const shape = messageShape(message);
          let rebuilt = '';
          let from = 0;
          for (let at = shape.indexOf('"…"'); at >= 0 && i < parts.length; at = shape.indexOf('"…"', from)) {
            rebuilt += shape.slice(from, at) + parts[i++];
            from = at + 3;
          }
          expect(rebuilt + shape.slice(from)).toBe(message);
          expect(i).toBe(parts.length);
          expect(parts.every((p) => p.length >= 2 && p.startsWith('"') && p.endsWith('"') && !p.slice(1, -1).includes('"'))).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
    expect(quotedParts('The pack is missing the required field "packId".')).toEqual(['"packId"']);
  });

  it("groups findings by severity, code and shape, in order of each group's first finding", () => {
    const d = (code: string, node: string, severity: Diagnostic['severity'] = 'info'): Diagnostic => ({
      code,
      severity,
      message: `block "${node}" is odd`,
      pointer: `/n/${node}`,
    });
    const groups = groupFindings([d('a', 'n1'), d('b', 'n1'), d('a', 'n2'), d('a', 'n3', 'warning')]);
    expect(groups.map((g) => [g.code, g.severity, g.shape, g.items.length])).toEqual([
      ['a', 'info', 'block "…" is odd', 2],
      ['b', 'info', 'block "…" is odd', 1],
      ['a', 'warning', 'block "…" is odd', 1],
    ]);
  });

  it('groups random findings exactly as one key string per finding did: the same groups, in the same order, holding the same findings', () => {
    const finding = fc.record({
      code: fc.constantFrom('a', 'b', 'a/b', 'ab', 'catalog/unknown-config-field'),
      severity: fc.constantFrom<Severity>('error', 'warning', 'info'),
      message: fc.array(fc.constantFrom('"', 'n1', 'n2', ' odd ', 'x', '\u0000'), { maxLength: 8 }).map((p) => p.join('')),
      pointer: fc.constant(''),
    });
    fc.assert(
      fc.property(fc.array(finding, { maxLength: 60 }), (list) => {
        const got = groupFindings(list);
        const want = groupFindingsByKey(list);
        expect(got.map((g) => [g.code, g.severity, g.shape, g.items.length])).toEqual(
          want.map((g) => [g.code, g.severity, g.shape, g.items.length]),
        );
        got.forEach((g, i) => g.items.forEach((d, k) => expect(d).toBe(want[i].items[k])));
        // Where each finding went: its group, by index.
        const { groups, at } = groupFindingsAt(list);
        expect(at).toHaveLength(list.length);
        list.forEach((d, i) => expect(groups[at[i]].items).toContain(d));
      }),
      { numRuns: 1000 },
    );
  });
});
