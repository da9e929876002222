// Places of many pointers at once. In a pack file: core's locateAll (one scan of the text) turned
// into offsets, and where an object or array ends, which core does not record (it marks one by
// its opening bracket). In a source folder: each pointer of the built pack goes to the file and
// the pointer inside it that the build read it from, then each file's pointers are placed in one
// scan of that file.
import type { LocateRequest, SourceText } from '@setup-pack/core';
import type { Span } from './model.js';

/** Where the values of a pack are written. */
export interface Placer {
  /** The span of each request; undefined where the text has no such place. */
  place(requests: readonly LocateRequest[]): (Span | undefined)[];
  /** The text a span is in (`file`: its index in the model's files; undefined: the document). */
  text(file: number | undefined): string;
}

/** Pointers asked for while a model is made, placed together at the end. */
export class Spots {
  private readonly requests: LocateRequest[] = [];

  /** A handle for the place of the value at `pointer` (with `key`, of its property name). */
  want(pointer: string, key = false): number {
    this.requests.push(key ? { pointer, key } : { pointer });
    return this.requests.length - 1;
  }

  place(placer: Placer): (Span | undefined)[] {
    return this.requests.length === 0 ? [] : placer.place(this.requests);
  }
}

/**
 * The spans of pointers in one JSON text: a value's token (a string with its quotes); an object or
 * array from its opening to past its closing bracket; `file` set on each when given.
 */
export function placeInText(source: SourceText, requests: readonly LocateRequest[], file?: number): (Span | undefined)[] {
  const found = source.locateAll(requests);
  const lines = source.lines;
  const text = source.text;
  return found.map((p) => {
    if (!p) return undefined;
    const start = lines.lineStart(p.line) + p.column - 1;
    const c = text.charCodeAt(start);
    const end = c === 123 || c === 91 ? closingBracket(text, start) : lines.lineStart(p.endLine) + p.endColumn - 1;
    return file === undefined ? { start, end } : { start, end, file };
  });
}

/** A pack file: every place in its own text. */
export const textPlacer = (source: SourceText): Placer => ({
  place: (requests) => placeInText(source, requests),
  text: () => source.text,
});

/** Offset just past the bracket closing the object or array that opens at `open`. */
export function closingBracket(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) i = stringEnd(text, i) - 1;
    else if (c === 123 || c === 91) depth++;
    else if ((c === 125 || c === 93) && --depth === 0) return i + 1;
  }
  return text.length;
}

/** Offset just past the string whose opening quote is at `i`. */
function stringEnd(text: string, i: number): number {
  for (let from = i + 1; ;) {
    const q = text.indexOf('"', from);
    if (q < 0) return text.length;
    let k = q - 1;
    while (text.charCodeAt(k) === 92) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1;
    from = q + 1;
  }
}
