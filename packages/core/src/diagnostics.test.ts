import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { groupFindings, messageShape, type Diagnostic } from './diagnostics.js';

describe('messageShape', () => {
  it('replaces every double-quoted part with "…", as /"[^"]*"/g does, an unclosed quote left as it is', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('"', 'a', ' ', 'é', '…', 'x"y'), { maxLength: 30 }).map((parts) => parts.join('')), (message) => {
        expect(messageShape(message)).toBe(message.replace(/"[^"]*"/g, '"…"'));
      }),
      { numRuns: 500 },
    );
    expect(messageShape('config.x of action.notify node "n1" is not in our catalog')).toBe('config.x of action.notify node "…" is not in our catalog');
  });

  it('groups findings by severity, code and shape, in order of each group\'s first finding', () => {
    const d = (code: string, node: string, severity: Diagnostic['severity'] = 'info'): Diagnostic => ({ code, severity, message: `block "${node}" is odd`, pointer: `/n/${node}` });
    const groups = groupFindings([d('a', 'n1'), d('b', 'n1'), d('a', 'n2'), d('a', 'n3', 'warning')]);
    expect(groups.map((g) => [g.code, g.severity, g.shape, g.items.length])).toEqual([
      ['a', 'info', 'block "…" is odd', 2],
      ['b', 'info', 'block "…" is odd', 1],
      ['a', 'warning', 'block "…" is odd', 1],
    ]);
  });
});
