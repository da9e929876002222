import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Diagnostic } from '@setup-pack/core';
import { applyFindingsDelta, findingsDelta, sameFindings } from './findingsDelta.js';

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
/** A structured clone's copy: equal, never the same object. */
const copy = (d: Diagnostic): Diagnostic => structuredClone(d);

describe('findings sent from the worker', () => {
  it('tells two validations that found the same things from two that did not', () => {
    const a = [info('n1'), error];
    expect(sameFindings(a, a.map(copy))).toBe(true);
    expect(sameFindings(undefined, a)).toBe(false);
    expect(sameFindings(a, [info('n1')])).toBe(false);
    expect(sameFindings(a, [info('n2'), error])).toBe(false);
    expect(sameFindings(a, [info('n1'), { ...error, severity: 'warning' }])).toBe(false);
    expect(sameFindings(a, [info('n1'), { ...error, hint: 'Remove an edge.' }])).toBe(false);
    const rel = { ...error, related: [{ pointer: '/a', message: 'first' }] };
    expect(sameFindings([rel], [{ ...rel, related: [{ pointer: '/a', message: 'first' }] }])).toBe(true);
    expect(sameFindings([rel], [{ ...rel, related: [{ pointer: '/b', message: 'first' }] }])).toBe(false);
  });

  it('sends only what changed between the unchanged start and end of 50,000 findings, and the page keeps its own objects for those', () => {
    const before = Array.from({ length: 50000 }, (_, i) => info(`n${i}`));
    const page = before.map(copy); // what the page holds: the earlier clone
    const after = [...before.slice(0, 20000), { ...info('n20000'), severity: 'warning' as const }, ...before.slice(20001), error];
    const d = findingsDelta(before, after);
    expect(d).toEqual({ head: 20000, tail: 0, middle: after.slice(20000) });
    expect(d!.middle).toHaveLength(30001);
    const inserted = findingsDelta(before, [...before.slice(0, 10), error, ...before.slice(10)]);
    expect(inserted).toEqual({ head: 10, tail: 49990, middle: [error] });
    const got = applyFindingsDelta(page, inserted!);
    expect(got).toHaveLength(50001);
    expect(got[9]).toBe(page[9]);
    expect(got[10]).toEqual(error);
    expect(got[50000]).toBe(page[49999]);
    // Nothing sent yet (a new worker): everything.
    expect(findingsDelta(undefined, before.slice(0, 3))).toEqual({ head: 0, tail: 0, middle: before.slice(0, 3) });
    // The same findings again (equal, not the same objects): no delta, the worker says "same".
    expect(findingsDelta(before, before.map(copy))).toBeUndefined();
    expect(() => applyFindingsDelta(page.slice(0, 5), inserted!)).toThrow(/keeps 10 \+ 49990 of 5 findings/);
  });

  it('rebuilds every next list from the one before, whatever changed', () => {
    const finding = fc.record({
      code: fc.constantFrom('a', 'b'),
      severity: fc.constantFrom('error', 'warning', 'info'),
      message: fc.constantFrom('m', 'n'),
      pointer: fc.constantFrom('/x', '/y', '/z'),
    }) as fc.Arbitrary<Diagnostic>;
    fc.assert(
      fc.property(fc.array(fc.array(finding, { maxLength: 12 }), { minLength: 1, maxLength: 6 }), (lists) => {
        let sent: Diagnostic[] | undefined;
        let page: Diagnostic[] = [];
        for (const next of lists) {
          const d = structuredClone(findingsDelta(sent, next));
          // No delta exactly when the worker has sent these same findings (it then says "same").
          expect(d === undefined).toBe(sent !== undefined && JSON.stringify(sent) === JSON.stringify(next));
          if (d) {
            expect(d.middle.length).toBeLessThanOrEqual(next.length);
            page = applyFindingsDelta(page, d);
            sent = next;
          }
          expect(page).toEqual(next);
        }
      }),
    );
  });
});
