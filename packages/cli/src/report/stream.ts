// Reports are written as a stream of chunks, never as one giant string: a pack with 50,000
// findings prints as it goes, in memory proportional to a chunk, and stops when the reader
// closes the pipe.
import type { Output } from '../lib/context.js';

/**
 * How a LazyArray's items are written: `compact` stringifies each on one line, `nested` lays out
 * items that hold LazyArrays of their own, `text` takes items that are already compact JSON text
 * (SARIF results, written by their format without an object per item: sarifResult), `records`
 * stringifies objects whose text starts with the array's `lead` a batch at a time, one call for a
 * few hundred items (JSON findings: findingRecord). Each item of `compact`, `text` and `records`
 * is one line.
 */
export type LazyLayout = 'compact' | 'nested' | 'text' | 'records';

/**
 * An array whose items are produced while the JSON is written (findings, SARIF results). For
 * `records`, `lead` is how every item's JSON begins (`{"code":`), and nothing inside an item is
 * an object beginning so that follows another object in an array: a batch's JSON.stringify is cut
 * into items where `},` meets `lead` (a quote inside a string is always escaped, so that text
 * occurs in strings never).
 */
export class LazyArray<T> {
  constructor(
    readonly items: Iterable<T>,
    readonly layout: LazyLayout = 'compact',
    readonly lead = '',
  ) {}
}

const quoted = new Map<string, string>();

/**
 * JSON.stringify of a string from a small set (codes, severities, levels): written once,
 * then looked up, for formats that write tens of thousands of items by hand.
 */
export function jsonString(text: string): string {
  let q = quoted.get(text);
  if (q === undefined) quoted.set(text, (q = JSON.stringify(text)));
  return q;
}

/** About how many characters go into one write (and one batch of one-line items). */
const CHUNK = 64 * 1024;

const pads: string[] = [];
const pad = (depth: number) => (pads[depth] ??= '  '.repeat(depth));

/**
 * JSON in the layout of JSON.stringify(value, null, 2), produced in chunks. Objects holding a
 * LazyArray are written key by key; the items of a LazyArray (findings, SARIF results: tens of
 * thousands) are written one per line, compact — half the bytes of indented items, a third of the
 * time, and one finding per line for grep; everything else is stringified whole and re-indented.
 */
export function* jsonChunks(value: unknown, depth = 0): Generator<string> {
  if (value instanceof LazyArray || (Array.isArray(value) && value.some(holdsLazy))) {
    let first = true;
    const layout = value instanceof LazyArray ? value.layout : 'nested';
    const items = value instanceof LazyArray ? value.items : (value as unknown[]);
    if (layout === 'nested') {
      for (const item of items) {
        yield (first ? '[\n' : ',\n') + pad(depth + 1);
        first = false;
        yield* jsonChunks(item === undefined ? null : item, depth + 1);
      }
    } else if (layout === 'records') {
      // One JSON.stringify for RECORDS items: it escapes their strings and writes their numbers
      // into one flat string, where an item at a time made a JSON.stringify call per string and
      // a tree of concatenations per item for the write to flatten.
      const lead = (value as LazyArray<unknown>).lead;
      const start = `[\n${pad(depth + 1)}`;
      const between = `},\n${pad(depth + 1)}${lead}`;
      let group: unknown[] = [];
      let batch = '';
      for (const item of items) {
        group.push(item);
        if (group.length < RECORDS) continue;
        batch += (first ? start : `,\n${pad(depth + 1)}`) + recordLines(group, lead, between);
        first = false;
        group = [];
        if (batch.length >= CHUNK) {
          yield batch;
          batch = '';
        }
      }
      if (group.length) {
        batch += (first ? start : `,\n${pad(depth + 1)}`) + recordLines(group, lead, between);
        first = false;
      }
      if (batch) yield batch;
    } else {
      // One-line items are gathered into a batch of about CHUNK characters before they are
      // yielded: a chunk passes up through every generator of the nesting (a SARIF result
      // through four), so yielding each item and its separator cost more than writing them.
      const separator = `,\n${pad(depth + 1)}`;
      let batch = '';
      for (const item of items) {
        batch += first ? `[\n${pad(depth + 1)}` : separator;
        first = false;
        batch += layout === 'text' ? (item as string) : JSON.stringify(item === undefined ? null : item);
        if (batch.length >= CHUNK) {
          yield batch;
          batch = '';
        }
      }
      if (batch) yield batch;
    }
    yield first ? '[]' : `\n${pad(depth)}]`;
  } else if (holdsLazy(value)) {
    let first = true;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined || typeof v === 'function') continue;
      yield `${first ? '{\n' : ',\n'}${pad(depth + 1)}${JSON.stringify(k)}: `;
      first = false;
      yield* jsonChunks(v, depth + 1);
    }
    yield first ? '{}' : `\n${pad(depth)}}`;
  } else {
    const text = JSON.stringify(value, null, 2);
    yield depth && text.indexOf('\n') >= 0 ? text.replace(/\n/g, `\n${pad(depth)}`) : text;
  }
}

/** How many items of a `records` array go into one JSON.stringify. */
const RECORDS = 256;

/** `group`'s items as compact JSON joined by `between` (`},\n<indent>` and the lead). */
function recordLines(group: unknown[], lead: string, between: string): string {
  const text = JSON.stringify(group);
  return text.slice(1, -1).replaceAll(`},${lead}`, between);
}

function holdsLazy(v: unknown): boolean {
  if (v instanceof LazyArray) return true;
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.some(holdsLazy);
  for (const k in v) if ((v as Record<string, unknown>)[k] instanceof LazyArray) return true;
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== null && typeof x === 'object' && holdsLazy(x)) return true;
  }
  return false;
}

/**
 * How much a stream may hold unwritten before writeChunks waits for it to drain: a pipe takes
 * 64 KiB at a time, so waiting whenever it is full left the thread idle while the reader emptied
 * it (a few percent of a 29 MB SARIF report).
 */
const QUEUED = 1024 * 1024;

/** A turn of the event loop, in which a stream writes what its reader has made room for. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Writes chunks in batches of about 64 KiB, and stops quietly once the reader has gone (a closed
 * pipe: `setup-pack validate … | head`). Backpressure: while the stream holds less than QUEUED
 * unwritten, the next batches are made while it writes, the event loop given a turn after each
 * write so the stream can pass on what it holds; past that, for a stream that does not say what
 * it holds, and at the end, the writer waits for it to drain (Output.drain resolves at once when
 * nothing waits to be written). Memory stays bounded by QUEUED and a batch.
 */
export async function writeChunks(out: Output, chunks: Iterable<string>): Promise<void> {
  let buf = '';
  for (const chunk of chunks) {
    if (out.closed) return;
    buf += chunk;
    if (buf.length < CHUNK) continue;
    const ok = out.write(buf);
    buf = '';
    if (ok !== false || !out.drain) continue;
    if (out.queued && out.queued() < QUEUED) await turn();
    else await out.drain();
  }
  if (out.closed) return;
  if (buf) out.write(buf);
  await out.drain?.();
}
