// Positions for many pointers at once. A pack with tens of thousands of findings must be placed
// in one pass over its text: a line-start index built once, and one scan that records the offset
// of every value a finding points at (skipping, at indexOf speed, the strings and subtrees no
// finding points into). Nothing here parses or splits the text per finding.
import { parsePointer } from './pointer.js';

export interface Position {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/** Lines of a text, indexed once: line numbers are 1-based, columns 1-based UTF-16 units. */
export interface LineIndex {
  readonly text: string;
  readonly lineCount: number;
  /** The text of a line, without its line break (and without a trailing \r). */
  lineText(line: number): string;
  /** Line and column of an offset. */
  at(offset: number): { line: number; column: number };
  /** The line (1-based) of an offset, and the offset a line starts at: positions without allocation. */
  lineOf(offset: number): number;
  lineStart(line: number): number;
}

export function createLineIndex(text: string): LineIndex {
  const starts: number[] = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const lineOf = (offset: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  return {
    text,
    lineCount: starts.length,
    lineText(line) {
      if (line < 1 || line > starts.length) return '';
      const start = starts[line - 1];
      let end = line < starts.length ? starts[line] - 1 : text.length;
      if (end > start && text.charCodeAt(end - 1) === 13) end--;
      return text.slice(start, end);
    },
    lineOf,
    lineStart: (line) => starts[line - 1],
    at(offset) {
      const line = lineOf(offset);
      return { line, column: offset - starts[line - 1] + 1 };
    },
  };
}

export interface LocateRequest {
  pointer: string;
  /** Place the property name rather than the value. */
  key?: boolean;
}

/** One step of the wanted pointers, as a trie; offsets are filled by the scan. */
class Step {
  children: Map<string, Step> | undefined = undefined;
  valueStart = -1;
  valueLength = 0;
  keyStart = -1;
  keyLength = 0;
}

const enum Ch {
  Quote = 34,
  Backslash = 92,
  OpenBrace = 123,
  CloseBrace = 125,
  OpenBracket = 91,
  CloseBracket = 93,
  Comma = 44,
  Colon = 58,
}

/**
 * Positions of every request in one scan of `text`, which must be JSON that JSON.parse accepted.
 * A pointer that does not resolve gets the position of the deepest value on its way (a missing
 * property marks the object's opening brace), as a finding about a missing field expects.
 * Objects and arrays are marked by their opening bracket; repeated property names resolve to the
 * last one, as with JSON.parse.
 */
export function locateAll(text: string, lines: LineIndex, requests: readonly LocateRequest[]): (Position | undefined)[] {
  const root = new Step();
  const paths: (string[] | undefined)[] = [];
  for (const r of requests) {
    let tokens: string[] | undefined;
    try {
      tokens = parsePointer(r.pointer);
    } catch {
      tokens = undefined;
    }
    paths.push(tokens);
    if (!tokens) continue;
    let step = root;
    for (const t of tokens) {
      step.children ??= new Map();
      let next = step.children.get(t);
      if (!next) step.children.set(t, (next = new Step()));
      step = next;
    }
  }
  try {
    new Scanner(text).value(skipSpace(text, 0), root);
  } catch {
    // Deeper than the stack allows, or not JSON after all: what was found so far stands.
  }
  const position = (start: number, length: number): Position => {
    const line = lines.lineOf(start);
    const endLine = length > 0 ? lines.lineOf(start + length) : line;
    return { line, column: start - lines.lineStart(line) + 1, endLine, endColumn: start + length - lines.lineStart(endLine) + 1 };
  };
  const isContainer = (s: Step) => {
    const c = text.charCodeAt(s.valueStart);
    return c === Ch.OpenBrace || c === Ch.OpenBracket;
  };
  return requests.map((r, i) => {
    const tokens = paths[i];
    if (!tokens || root.valueStart < 0) return undefined;
    let step = root;
    let keyed: Step | undefined;
    for (const t of tokens) {
      const next = step.children?.get(t);
      if (!next || next.valueStart < 0) return position(step.valueStart, isContainer(step) ? 1 : step.valueLength);
      keyed = next;
      step = next;
    }
    if (r.key && keyed && keyed.keyStart >= 0) return position(keyed.keyStart, keyed.keyLength);
    return position(step.valueStart, isContainer(step) ? 1 : step.valueLength);
  });
}

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 13 || c === 9) i++;
    else return i;
  }
}

/** Offset just past the string whose opening quote is at `i`. */
function stringEnd(text: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return text.length;
    let k = q - 1;
    while (text.charCodeAt(k) === Ch.Backslash) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1;
    from = q + 1;
  }
}

class Scanner {
  constructor(private readonly text: string) {}

  /** Scans the value at `i` (no leading space), recording it on `step`; returns the offset after it. */
  value(i: number, step: Step | undefined): number {
    const text = this.text;
    const c = text.charCodeAt(i);
    if (step) step.valueStart = i;
    let end: number;
    if (c === Ch.OpenBrace || c === Ch.OpenBracket) {
      end = step?.children ? (c === Ch.OpenBrace ? this.object(i, step.children) : this.array(i, step.children)) : this.skipContainer(i);
    } else if (c === Ch.Quote) {
      end = stringEnd(text, i);
    } else {
      end = i;
      for (;;) {
        const d = text.charCodeAt(end);
        if (d !== d || d === Ch.Comma || d === Ch.CloseBrace || d === Ch.CloseBracket || d === 32 || d === 10 || d === 13 || d === 9) break;
        end++;
      }
    }
    if (step) step.valueLength = end - i;
    return end;
  }

  private object(i: number, wanted: Map<string, Step>): number {
    const text = this.text;
    i = skipSpace(text, i + 1);
    if (text.charCodeAt(i) === Ch.CloseBrace) return i + 1;
    for (;;) {
      const keyEnd = stringEnd(text, i);
      const raw = text.slice(i + 1, keyEnd - 1);
      const name = raw.indexOf('\\') < 0 ? raw : (JSON.parse(text.slice(i, keyEnd)) as string);
      const child = wanted.get(name);
      if (child) {
        child.keyStart = i;
        child.keyLength = keyEnd - i;
      }
      i = skipSpace(text, keyEnd);
      if (text.charCodeAt(i) !== Ch.Colon) throw new Error('not JSON');
      i = this.value(skipSpace(text, i + 1), child);
      i = skipSpace(text, i);
      const d = text.charCodeAt(i);
      if (d === Ch.CloseBrace) return i + 1;
      if (d !== Ch.Comma) throw new Error('not JSON');
      i = skipSpace(text, i + 1);
    }
  }

  private array(i: number, wanted: Map<string, Step>): number {
    const text = this.text;
    i = skipSpace(text, i + 1);
    if (text.charCodeAt(i) === Ch.CloseBracket) return i + 1;
    for (let index = 0; ; index++) {
      i = this.value(i, wanted.get(String(index)));
      i = skipSpace(text, i);
      const d = text.charCodeAt(i);
      if (d === Ch.CloseBracket) return i + 1;
      if (d !== Ch.Comma) throw new Error('not JSON');
      i = skipSpace(text, i + 1);
    }
  }

  /** Past a whole object or array no request points into: strings are jumped over with indexOf. */
  private skipContainer(i: number): number {
    const text = this.text;
    let depth = 0;
    for (const n = text.length; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === Ch.Quote) i = stringEnd(text, i) - 1;
      else if (c === Ch.OpenBrace || c === Ch.OpenBracket) depth++;
      else if (c === Ch.CloseBrace || c === Ch.CloseBracket) {
        if (--depth === 0) return i + 1;
      }
    }
    return i;
  }
}
