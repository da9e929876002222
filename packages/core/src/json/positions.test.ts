// The one-pass scan must place every pointer exactly where jsonc-parser's tree walk (the old
// per-finding locate) places it: the tree is the oracle.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSourceText } from './parse.js';
import { createLineIndex, locateAll, Locator } from './positions.js';
import { toPointer } from './pointer.js';

function allPaths(v: unknown, path: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(path);
  if (Array.isArray(v)) v.forEach((c, i) => allPaths(c, [...path, i], out));
  else if (v && typeof v === 'object') for (const k of Object.keys(v)) allPaths((v as Record<string, unknown>)[k], [...path, k], out);
  return out;
}

const layout = fc.constantFrom<string | number | undefined>(undefined, 0, 1, 2, '\t', '\r\n  ', '\r  ', 'mixed');

/** Line ends as editors count them, the oracle for createLineIndex: LF, CR and CR LF, each one. */
const editorLines = (text: string) => text.split(/\r\n|\r|\n/);

function render(value: unknown, indent: string | number | undefined): string {
  if (indent === '\r\n  ') return JSON.stringify(value, null, 2).replace(/\n/g, '\r\n');
  // Lone CRs (classic Mac OS), and every kind of line end in one text, blank lines between.
  if (indent === '\r  ') return JSON.stringify(value, null, 2).replace(/\n/g, '\r');
  if (indent === 'mixed') {
    let n = 0;
    return JSON.stringify(value, null, 2).replace(/\n/g, () => ['\r', '\n', '\r\n', '\r\r\n', '\n\r'][n++ % 5]);
  }
  return JSON.stringify(value, null, indent);
}

describe('locateAll', () => {
  it('places every pointer (present, missing, keys) as the tree walk does', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 4 }),
        layout,
        fc.array(fc.tuple(fc.nat(), fc.constantFrom('', '/missing', '/0', '/99', '/a~1b', '/~0'), fc.boolean()), { maxLength: 30 }),
        (value, indent, picks) => {
          const text = render(value, indent);
          const paths = allPaths(JSON.parse(text));
          const requests = picks.map(([n, suffix, key]) => ({ pointer: toPointer(paths[n % paths.length]) + suffix, key }));
          const oracle = createSourceText(text);
          const got = locateAll(text, requests);
          expect(got).toEqual(requests.map((r) => oracle.locate(r.pointer, { key: r.key })));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('places every path of documents that mix escaped and plain property names, as the tree walk does', () => {
    // The scan looks for the next backslash only once it has passed the last one: names with
    // escapes (\", \\, \u0001) come before, between and after plain ones, at every depth, and
    // string values with backslashes lie between them.
    const name = fc.constantFrom('a', 'b', 'a"b', 'a\\b', '\u0001', 'x/y', 'k~', 'é');
    const leaf = fc.constantFrom<unknown>(1, 'plain', 'q"uote', 'back\\slash', null, [], {});
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.dictionary(name, tie('node'), { maxKeys: 5 }),
        fc.array(tie('node'), { maxLength: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(fc.dictionary(name, tree, { minKeys: 1, maxKeys: 6 }), layout, fc.boolean(), (value, indent, key) => {
        const text = render(value, indent);
        const requests = allPaths(JSON.parse(text)).map((path) => ({ pointer: toPointer(path), key }));
        const oracle = createSourceText(text);
        const expected = requests.map((r) => oracle.locate(r.pointer, { key: r.key }));
        expect(locateAll(text, requests)).toEqual(expected);
        // A scan that stops once it has found every wanted pointer (the text repeats no name):
        // the last one found may be an object or array, placed on its opening bracket.
        const last = requests.slice(-3);
        const locator = new Locator(text);
        const spots = last.map((r) => locator.want(r.pointer));
        locator.scan(true);
        const placed = last.map((r, i) => {
          const p = { line: 0, column: 0, endLine: 0, endColumn: 0 };
          return locator.place(spots[i], r.key === true, p) ? p : undefined;
        });
        expect(placed).toEqual(expected.slice(-3));
      }),
      { numRuns: 300 },
    );
  });

  it('handles escaped keys, escaped quotes in strings and repeated keys (the last one wins)', () => {
    const text = '{"a\\"b": "x\\\\", "k": "say \\"hi\\"", "k": [1, {"q": null}], "\\u0041": true}';
    const oracle = createSourceText(text);
    const requests = ['/a"b', '/k', '/k/1/q', '/A', '/k/2', '/nope'].flatMap((pointer) => [{ pointer }, { pointer, key: true }]);
    expect(locateAll(text, requests)).toEqual(requests.map((r) => oracle.locate(r.pointer, { key: r.key })));
    expect(locateAll(text, [{ pointer: '/k/1/q' }])[0]).toMatchObject({ line: 1, column: text.indexOf('null') + 1 });
  });

  it('forgets what an earlier copy of a repeated key held, and counts lines without an index', () => {
    const text =
      '{\n  "k": {"q": 1, "r": [0]},\r\n  "k": 2,\n  "many": {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8, "i": 9, "j": 10}\n}';
    const oracle = createSourceText(text);
    const requests = ['/k', '/k/q', '/k/r/0', '/many/j', '/many/a', '/many/zz'].flatMap((pointer) => [{ pointer }, { pointer, key: true }]);
    const got = locateAll(text, requests);
    expect(got).toEqual(requests.map((r) => oracle.locate(r.pointer, { key: r.key })));
    expect(got[2]).toMatchObject({ line: 3, column: 8 }); // /k/q: the 2 that replaced the object
    expect(got[6]).toMatchObject({ line: 4, column: text.split('\n')[3].indexOf('10') + 1 });
  });

  it('finds names among many wanted siblings, numeric names in objects, and pointers deeper than its first stack', () => {
    // More than SMALL_NAMES wanted children (looked up through a map), some numeric, some escaped,
    // in an object that is repeated (the later copy wins) and a path 40 levels deep.
    const names = Array.from({ length: 12 }, (_, i) =>
      i % 4 === 0 ? String(i) : i % 4 === 1 ? `k${i}` : i % 4 === 2 ? `e"${i}` : `t~/${i}`,
    );
    const object = Object.fromEntries(names.map((n, i) => [n, i]));
    let deep: unknown = 'bottom';
    for (let d = 0; d < 40; d++) deep = d % 2 ? [deep] : { ['d' + d]: deep };
    const text = `{"o": ${JSON.stringify({ ...object, k1: 'first' })},\n "o": ${JSON.stringify(object, null, 1)},\n "a": ${JSON.stringify(names)}, "deep": ${JSON.stringify(deep)}}`;
    const deepPath = toPointer(['deep', ...Array.from({ length: 40 }, (_, i) => ((39 - i) % 2 ? 0 : 'd' + (39 - i)))]);
    const pointers = [
      ...names.map((n) => toPointer(['o', n])),
      ...names.map((_, i) => toPointer(['a', i])),
      '/o/missing',
      '/o/12',
      '/a/12',
      deepPath,
      deepPath.slice(0, -3) + '/9',
      '/o/k1',
    ];
    const requests = pointers.flatMap((pointer) => [{ pointer }, { pointer, key: true }]);
    const oracle = createSourceText(text);
    const got = locateAll(text, requests);
    expect(got).toEqual(requests.map((r) => oracle.locate(r.pointer, { key: r.key })));
    expect(got.at(-2)).toMatchObject({ line: text.slice(0, text.indexOf('"k1": 1')).split('\n').length }); // /o/k1: in the second "o"
    expect(got[requests.findIndex((r) => r.pointer === deepPath)]).toMatchObject({
      column: text.indexOf('"bottom"') + 1 - text.lastIndexOf('\n', text.indexOf('"bottom"')) - 1,
    });
  });

  it('is linear: 40,000 pointers into a large document in one scan', () => {
    const nodes = Array.from({ length: 20000 }, (_, i) => ({
      id: `n${i}`,
      kind: 'action.send_sms',
      config: { tag_id: `t${i}`, body: 'x'.repeat(50) },
    }));
    const text = JSON.stringify({ graph: { nodes } }, null, 2);
    const requests = nodes.flatMap((_, i) => [
      { pointer: `/graph/nodes/${i}/config/tag_id` },
      { pointer: `/graph/nodes/${i}/id`, key: true },
    ]);
    const got = locateAll(text, requests);
    expect(got).toHaveLength(40000);
    expect(got.every((p) => p !== undefined)).toBe(true);
    const oracle = createSourceText(text);
    expect(got[39999]).toEqual(oracle.locate(requests[39999].pointer, { key: true }));
  });

  it('line index: LF, CR and CR LF each end one line, as editors count them', () => {
    const lone = createLineIndex('{\r  "a": 1,\r  "b": 2\r}');
    expect(lone.lineCount).toBe(4);
    expect([1, 2, 3, 4].map((n) => lone.lineText(n))).toEqual(['{', '  "a": 1,', '  "b": 2', '}']);
    expect(lone.at('{\r  "a": 1,\r  '.length)).toEqual({ line: 3, column: 3 });
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'é', ' ', '\r', '\n', '\r\n'), { maxLength: 40 }).map((parts) => parts.join('')),
        (text) => {
          const lines = editorLines(text);
          const index = createLineIndex(text);
          expect(index.lineCount).toBe(lines.length);
          expect(lines.map((_, i) => index.lineText(i + 1))).toEqual(lines);
          // Every offset in a line's text (and just past it) is on that line, at its column.
          let start = 0;
          lines.forEach((line, i) => {
            for (let c = 0; c <= line.length; c++) expect(index.at(start + c)).toEqual({ line: i + 1, column: c + 1 });
            start += line.length + (text.startsWith('\r\n', start + line.length) ? 2 : 1);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('places findings in a text with lone CR line ends on their own lines', () => {
    const text = '{\r  "a": 1,\r  "b": {\r    "c": true\r  }\r}\r';
    expect(locateAll(text, [{ pointer: '/a' }, { pointer: '/b/c' }, { pointer: '/b/c', key: true }, { pointer: '/b' }])).toEqual([
      { line: 2, column: 8, endLine: 2, endColumn: 9 },
      { line: 4, column: 10, endLine: 4, endColumn: 14 },
      { line: 4, column: 5, endLine: 4, endColumn: 8 },
      { line: 3, column: 8, endLine: 3, endColumn: 9 },
    ]);
    // Past a container no finding points into (skipped, not walked), lines are still counted.
    expect(locateAll(text.replace('"a": 1', '"a": [\r 1,\r 2\r ]'), [{ pointer: '/b/c' }])).toEqual([
      { line: 7, column: 10, endLine: 7, endColumn: 14 },
    ]);
  });

  it('line index: line texts without their breaks, offsets to line and column', () => {
    const lines = createLineIndex('a\r\nbc\n\nd');
    expect(lines.lineCount).toBe(4);
    expect([1, 2, 3, 4].map((n) => lines.lineText(n))).toEqual(['a', 'bc', '', 'd']);
    expect(lines.at(4)).toEqual({ line: 2, column: 2 });
    expect(lines.lineText(0)).toBe('');
    expect(lines.lineText(5)).toBe('');
  });
});

describe('comparePointers', () => {
  it('orders array indices as numbers and everything else as text', async () => {
    const { comparePointers } = await import('../diagnostics.js');
    const list = [
      '/automations/10/x',
      '/automations/9/x',
      '/automations/9',
      '/a/b',
      '/automations/1/nodes/100',
      '/automations/1/nodes/20',
      '',
    ];
    expect([...list].sort(comparePointers)).toEqual([
      '',
      '/a/b',
      '/automations/1/nodes/20',
      '/automations/1/nodes/100',
      '/automations/9',
      '/automations/9/x',
      '/automations/10/x',
    ]);
  });
});
