// Findings sorted in document order from the parsed value must come out exactly as placing every
// one (the Locator) and sorting by line and column does: that order is the oracle.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sortDiagnostics, type Diagnostic, type Severity } from '../diagnostics.js';
import { Locator } from './positions.js';
import { sortInDocumentOrder } from './order.js';
import { toPointer } from './pointer.js';

function allPaths(v: unknown, path: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(path);
  if (Array.isArray(v)) v.forEach((c, i) => allPaths(c, [...path, i], out));
  else if (v && typeof v === 'object') for (const k of Object.keys(v)) allPaths((v as Record<string, unknown>)[k], [...path, k], out);
  return out;
}

const CODES = ['schema/unknown-field', 'rule/b', 'rule/a'];
const placesKey = (d: Diagnostic) => d.code === 'schema/unknown-field';

function finding(pointer: string, code: string, severity: Severity, n: number): Diagnostic {
  return {
    code,
    severity,
    message: `finding ${n}`,
    pointer,
    line: undefined,
    column: undefined,
    endLine: undefined,
    endColumn: undefined,
    related: undefined,
    hint: undefined,
  };
}

/** The order placing every finding and sorting gives (what validatePack does by default). */
function byPosition(text: string, list: Diagnostic[]): string[] {
  const copy = list.map((d) => ({ ...d }));
  const locator = new Locator(text);
  const spots = copy.map((d) => locator.want(d.pointer));
  locator.scan();
  copy.forEach((d, i) => locator.place(spots[i], placesKey(d), d));
  return sortDiagnostics(copy).map((d) => d.message);
}

// Property names JSON.parse keeps in text order (no array-index names).
const name = fc.oneof(
  fc.constantFrom('a', 'b', 'z', 'a/b', '~', 'x~1', 'ab', '', '01', '-1'),
  fc.string({ maxLength: 3 }).filter((s) => !/^(0|[1-9][0-9]*)$/.test(s)),
);
const value = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc.integer(),
    fc.string({ maxLength: 4 }),
    fc.constant(null),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(name, tie('node'), { maxKeys: 5 }),
  ),
})).node;

describe('sortInDocumentOrder', () => {
  it('orders findings (values, property names, missing places) as their positions do', () => {
    fc.assert(
      fc.property(
        value,
        fc.constantFrom<number | undefined>(undefined, 2),
        fc.array(
          fc.tuple(
            fc.nat(),
            fc.constantFrom('', '', '/missing', '/0', '/7', '/a/b'),
            fc.nat(2),
            fc.constantFrom<Severity>('error', 'warning', 'info'),
          ),
          { minLength: 1, maxLength: 40 },
        ),
        (v, indent, picks) => {
          const text = JSON.stringify(v, null, indent);
          const paths = allPaths(v);
          const list = picks.map(([i, tail, c, severity], n) => finding(toPointer(paths[i % paths.length]) + tail, CODES[c], severity, n));
          const parsed = JSON.parse(text);
          const sorted = list.slice();
          expect(sortInDocumentOrder(parsed, sorted, placesKey)).toBe(true);
          expect(sorted.map((d) => d.message)).toEqual(byPosition(text, list));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a property name comes before its value and everything in it', () => {
    const text = JSON.stringify({ b: 1, a: { c: [1, 2] } }, null, 2);
    const list = [
      finding('/a/c/1', 'rule/a', 'error', 0),
      finding('/a', 'rule/a', 'error', 1),
      finding('/a', 'schema/unknown-field', 'info', 2),
      finding('/b', 'rule/a', 'info', 3),
      finding('/a/missing', 'rule/b', 'info', 4),
    ];
    const sorted = list.slice();
    expect(sortInDocumentOrder(JSON.parse(text), sorted, placesKey)).toBe(true);
    expect(sorted.map((d) => d.message)).toEqual(['finding 3', 'finding 2', 'finding 1', 'finding 4', 'finding 0']);
    expect(sorted.map((d) => d.message)).toEqual(byPosition(text, list));
  });

  it('a pointer that goes below the last one reads the value that one named (looked up only then)', () => {
    const text = JSON.stringify({ a: { c: [{ x: 1 }, { y: [2, 3] }] }, b: [[4], { z: 5 }] }, null, 2);
    const pointers = [
      '/a/c',
      '/a/c/1',
      '/a/c/1/y/1',
      '/a/c/0',
      '/a/c/0/x',
      '/b/1',
      '/b/1/z',
      '/b/0',
      '/b/0/0',
      '/a',
      '/a/c/1/y',
      '/a/c/1/y/0',
      '/b/1/missing',
      '/b/1/z',
    ];
    const list = pointers.map((p, n) => finding(p, 'rule/a', 'error', n));
    const sorted = list.slice();
    expect(sortInDocumentOrder(JSON.parse(text), sorted, placesKey)).toBe(true);
    expect(sorted.map((d) => d.message)).toEqual(byPosition(text, list));
  });

  it('declines objects with array-index names (JSON.parse moves them first) and findings already placed', () => {
    const text = '{"b": {"10": 1, "2": 2}}';
    const list = [finding('/b/10', 'rule/a', 'error', 0), finding('/b/2', 'rule/a', 'error', 1)];
    expect(sortInDocumentOrder(JSON.parse(text), list, placesKey)).toBe(false);
    expect(list.map((d) => d.message)).toEqual(['finding 0', 'finding 1']);
    const placed = [finding('/b', 'rule/a', 'error', 0)];
    placed[0].line = 1;
    expect(sortInDocumentOrder(JSON.parse(text), placed, placesKey)).toBe(false);
  });
});
