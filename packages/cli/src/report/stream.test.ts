// jsonChunks writes a document holding LazyArrays: one line per item of a `compact`, `text` or
// `records` array (gathered into batches of about 64 KiB before they are yielded), nested items laid out
// as JSON.stringify(…, null, 2) would. Whatever the items and however the batches fall, the
// text is that document's JSON, each one-line item on its own line, in order.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { jsonChunks, LazyArray } from './stream.js';

const join = (chunks: Iterable<string>) => [...chunks].join('');

/** The lines a one-line item array writes at nesting depth 2 (an array under a key of the root). */
const itemLines = (items: unknown[]) => items.map((x, i) => `    ${JSON.stringify(x)}${i < items.length - 1 ? ',' : ''}`);

describe('jsonChunks', () => {
  it('writes compact and text items one per line, the document parsing back whole, for any items', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 40 }), fc.integer({ min: 0, max: 3 }), (items, big) => {
        // Items long enough to cross several batches, besides short ones.
        const all = [...items, ...Array.from({ length: big * 12 }, (_, i) => ({ i, filler: 'x'.repeat(9000 + i) }))];
        const doc = { compact: new LazyArray(all, 'compact'), text: new LazyArray(all.map((x) => JSON.stringify(x)), 'text'), tail: 1 };
        const text = join(jsonChunks(doc));
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify({ compact: all, text: all, tail: 1 })));
        // Records: objects led by one key, with nested objects and arrays of objects led by others.
        // A generated value holding an object led by that key after another object in an array
        // (`[{},{"r":null}]`) breaks the layout's stated rule for its items (LazyArray: findings
        // never hold one), so it stands as null there; the key inside strings is still tried.
        const fit = (x: unknown) => (JSON.stringify(x ?? null).includes('},{"r":') ? null : x);
        const records = all.map((x, i) => ({ r: i, x: fit(x), list: [{ a: fit(x) }, { a: 1 }], note: '},{"r":1' }));
        const recordsText = join(jsonChunks({ records: new LazyArray(records, 'records', '{"r":') }));
        expect(recordsText).toBe(records.length ? `{\n  "records": [\n${itemLines(records).join('\n')}\n  ]\n}` : '{\n  "records": []\n}');
        const lines = text.split('\n');
        if (all.length) {
          const at = lines.indexOf('  "compact": [');
          expect(lines.slice(at + 1, at + 1 + all.length)).toEqual(itemLines(all));
          const t = lines.indexOf('  "text": [');
          expect(lines.slice(t + 1, t + 1 + all.length)).toEqual(itemLines(all));
        } else {
          expect(text).toContain('"compact": [],');
        }
      }),
      { numRuns: 60 },
    );
  });

  it('yields a large array of short items in batches, not item by item', () => {
    const items = Array.from({ length: 50_000 }, (_, i) => `{"n":${i}}`);
    const chunks = [...jsonChunks({ items: new LazyArray(items, 'text') })];
    expect(chunks.length).toBeLessThan(50);
    expect(JSON.parse(chunks.join('')).items).toHaveLength(50_000);
  });

  it('lays out nested items and empty arrays as JSON.stringify with two spaces does', () => {
    const files = [{ path: 'a.json', findings: new LazyArray([] as unknown[], 'text') }, { path: 'b.json', findings: new LazyArray(['{"x":1}'], 'text') }];
    const text = join(jsonChunks({ files: new LazyArray(files, 'nested') }));
    expect(text).toBe('{\n  "files": [\n    {\n      "path": "a.json",\n      "findings": []\n    },\n    {\n      "path": "b.json",\n      "findings": [\n        {"x":1}\n      ]\n    }\n  ]\n}');
  });
});
