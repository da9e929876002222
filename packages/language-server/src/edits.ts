// Offsets of an analysed version moved over the edits made since. The model of a large pack comes
// from the worker a while after the text it read, and the author goes on typing meanwhile; a hover
// or a jump is answered from that model where the edits since leave its places as they were, and
// not at all where an edit touched them, rather than waiting for the next analysis.
import type { Span } from './model.js';

/** One edit of the text: [start, end) of the text before it replaced by `inserted` units. */
export interface TextChange {
  /** The document version the edit made. */
  version: number;
  start: number;
  end: number;
  inserted: number;
}

/**
 * A whole new text (a client that sends the full text on each change) as the one edit between
 * the common start and end of the two, so places outside it still map.
 */
export function changeBetween(before: string, after: string, version: number): TextChange {
  const most = Math.min(before.length, after.length);
  let start = 0;
  while (start < most && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let tail = 0;
  while (tail < most - start && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)) tail++;
  return { version, start, end: before.length - tail, inserted: after.length - tail - start };
}

/** An offset of the current text as an offset of the text of `version`; undefined inside an edit since. */
export function toVersion(offset: number, changes: readonly TextChange[], version: number): number | undefined {
  let at = offset;
  for (let i = changes.length - 1; i >= 0; i--) {
    const c = changes[i];
    if (c.version <= version) break;
    if (at >= c.start + c.inserted) at += c.end - c.start - c.inserted;
    else if (at > c.start) return undefined;
  }
  return at;
}

/** A span of the text of `version` as a span of the current text; undefined when an edit since touched it. */
export function fromVersion(span: Span, changes: readonly TextChange[], version: number): Span | undefined {
  let { start, end } = span;
  for (const c of changes) {
    if (c.version <= version) continue;
    if (end <= c.start) continue;
    if (start < c.end) return undefined;
    const shift = c.inserted - (c.end - c.start);
    start += shift;
    end += shift;
  }
  return { start, end };
}
