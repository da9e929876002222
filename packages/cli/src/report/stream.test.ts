// jsonChunks writes a document holding LazyArrays: one line per item of a `compact`, `text` or
// `records` array (gathered into batches of about 64 KiB before they are yielded), nested items laid out
// as JSON.stringify(…, null, 2) would. Whatever the items and however the batches fall, the
// text is that document's JSON, each one-line item on its own line, in order. writeChunks keeps
// making batches while a slow reader catches up, within a bound, and stops when the reader goes.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Writable } from 'node:stream';
import { streamOutput } from '../lib/context.js';
import { jsonChunks, LazyArray, writeChunks } from './stream.js';

const join = (chunks: Iterable<string>) => [...chunks].join('');

/** The lines a one-line item array writes at nesting depth 2 (an array under a key of the root). */
const itemLines = (items: unknown[]) => items.map((x, i) => `    ${JSON.stringify(x)}${i < items.length - 1 ? ',' : ''}`);

describe('jsonChunks', () => {
  it('writes compact and text items one per line, the document parsing back whole, for any items', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 40 }), fc.integer({ min: 0, max: 3 }), (items, big) => {
        // Items long enough to cross several batches, besides short ones.
        const all = [...items, ...Array.from({ length: big * 12 }, (_, i) => ({ i, filler: 'x'.repeat(9000 + i) }))];
        const doc = {
          compact: new LazyArray(all, 'compact'),
          text: new LazyArray(
            all.map((x) => JSON.stringify(x)),
            'text',
          ),
          tail: 1,
        };
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
    const files = [
      { path: 'a.json', findings: new LazyArray([] as unknown[], 'text') },
      { path: 'b.json', findings: new LazyArray(['{"x":1}'], 'text') },
    ];
    const text = join(jsonChunks({ files: new LazyArray(files, 'nested') }));
    expect(text).toBe(
      '{\n  "files": [\n    {\n      "path": "a.json",\n      "findings": []\n    },\n    {\n      "path": "b.json",\n      "findings": [\n        {"x":1}\n      ]\n    }\n  ]\n}',
    );
  });
});

describe('writeChunks', () => {
  /** A stream whose reader takes a piece every 5 ms, as a pipe to a slower process does (far slower than batches are made). */
  function slowSink() {
    const got: string[] = [];
    const sink = new Writable({
      decodeStrings: false,
      write(chunk: string, _encoding, done) {
        got.push(chunk);
        setTimeout(done, 5);
      },
    });
    return { got, sink, out: streamOutput(sink as unknown as NodeJS.WriteStream) };
  }

  it('goes on making batches while the stream holds up to about a MiB, and waits past that', async () => {
    const { got, sink, out } = slowSink();
    const items = Array.from({ length: 60_000 }, (_, i) => `{"n":${i},"pad":"${'x'.repeat(60)}"}`);
    let most = 0;
    const write = out.write;
    out.write = (t) => {
      const ok = write(t);
      most = Math.max(most, sink.writableLength);
      return ok;
    };
    await writeChunks(out, jsonChunks({ items: new LazyArray(items, 'text') }));
    // It did not stop at the stream's 16 KiB mark, nor let the stream hold much past a MiB.
    expect(most).toBeGreaterThan(256 * 1024);
    expect(most).toBeLessThan(1024 * 1024 + 3 * 64 * 1024);
    // It ends once the stream has passed everything on, and the text is whole and in order.
    expect(sink.writableLength).toBe(0);
    expect(JSON.parse(got.join('')).items).toHaveLength(60_000);
    expect(JSON.parse(got.join('')).items[59_999]).toEqual({ n: 59_999, pad: 'x'.repeat(60) });
  });

  it('resolves at once when the stream is not full, and stops when the reader has gone', async () => {
    const { sink, out } = slowSink();
    await out.drain!();
    sink.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(out.closed).toBe(true);
    let made = 0;
    await writeChunks(
      out,
      (function* () {
        for (;;) {
          made++;
          yield 'x'.repeat(70_000);
          if (made > 10) throw new Error('went on after the reader had gone');
        }
      })(),
    );
    expect(made).toBeLessThanOrEqual(1);
  });
});
