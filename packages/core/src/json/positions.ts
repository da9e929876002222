// Positions for many pointers at once. A pack with tens of thousands of findings must be placed
// in one pass over its text: a line-start index built once, and one scan that records the offset
// of every value a finding points at (skipping, at indexOf speed, the strings and subtrees no
// finding points into). Nothing here parses or splits the text per finding.
import { unescapeToken } from './pointer.js';

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
  // Line starts in a typed array grown by doubling: one indexOf per line, no boxed numbers.
  let starts = new Int32Array(Math.max(16, text.length >> 5));
  let count = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
    if (count === starts.length) {
      const grown = new Int32Array(starts.length * 2);
      grown.set(starts);
      starts = grown;
    }
    starts[count++] = i + 1;
  }
  const lineOf = (offset: number) => {
    let lo = 0;
    let hi = count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  return {
    text,
    lineCount: count,
    lineText(line) {
      if (line < 1 || line > count) return '';
      const start = starts[line - 1];
      let end = line < count ? starts[line] - 1 : text.length;
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

/**
 * One step of the wanted pointers, as a trie; positions are filled by the scan. Children are
 * found by name in objects (a short list compared in place against the text, a map past
 * SMALL_NAMES) and by index in arrays, so the scan allocates nothing per key or element.
 */
class Step {
  names: string[] | undefined = undefined;
  kids: Step[] | undefined = undefined;
  byName: Map<string, Step> | undefined = undefined;
  byIndex: Step[] | undefined = undefined;
  /** A child's name holds a backslash: compare decoded names only. */
  escapedName = false;
  valueStart = -1;
  valueLength = 0;
  valueLine = 0;
  valueColumn = 0;
  keyLine = 0;
  keyColumn = 0;
  keyLength = 0;
  constructor(readonly parent: Step | undefined) {}

  child(token: string): Step {
    const at = this.byName ? undefined : this.names?.indexOf(token);
    let next = this.byName ? this.byName.get(token) : at !== undefined && at >= 0 ? this.kids![at] : undefined;
    if (next) return next;
    next = new Step(this);
    if (this.byName) this.byName.set(token, next);
    else {
      (this.names ??= []).push(token);
      (this.kids ??= []).push(next);
      if (this.names.length > SMALL_NAMES) this.byName = new Map(this.names.map((n, i) => [n, this.kids![i]]));
    }
    if (token.indexOf('\\') >= 0) this.escapedName = true;
    if (isIndex(token)) (this.byIndex ??= [])[Number(token)] = next;
    return next;
  }

  /** A repeated property name: the last one wins, so what an earlier one recorded is forgotten. */
  forget(): void {
    this.valueStart = -1;
    this.keyLength = 0;
    for (const k of this.kids ?? []) k.forget();
    if (this.byName) for (const k of this.byName.values()) k.forget();
  }
}

const SMALL_NAMES = 8;

function isIndex(token: string): boolean {
  const n = token.length;
  if (n === 0 || n > 9 || (n > 1 && token.charCodeAt(0) === 48)) return false;
  for (let i = 0; i < n; i++) {
    const c = token.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
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
  Newline = 10,
}

/** Where a finding goes: its position fields are set in place. */
export interface Placeable {
  line?: number;
  column?: number;
  endLine?: number;
  endColumn?: number;
}

/** A wanted pointer's place in the scan (opaque outside this module). */
export type Spot = Step;

/**
 * Positions of many pointers in one scan of `text`, which must be JSON that JSON.parse accepted:
 * `want` each pointer, `scan` once, then `place` each finding — positions are written straight
 * into the finding, so nothing is allocated per finding beyond the pointer's trie step.
 * The scan counts lines as it goes (a JSON string holds no raw line break, so only the space
 * between tokens can), so no line index is built. A pointer that does not resolve gets the
 * position of the deepest value on its way (a missing property marks the object's opening
 * brace), as a finding about a missing field expects. Objects and arrays are marked by their
 * opening bracket; repeated property names resolve to the last one, as with JSON.parse.
 */
export class Locator {
  private readonly root = new Step(undefined);
  private scanned = false;
  constructor(private readonly text: string) {}

  /**
   * The spot of a pointer (added with its missing ancestors); undefined when it is not a JSON
   * pointer. Findings share long prefixes (/automations/3/document/graph/nodes/17/config/…), so
   * each parent pointer is resolved once and remembered, and a finding costs one lookup of its
   * parent and one of its last token — string builtins only, quick even before the JIT warms up.
   */
  want(pointer: string): Spot | undefined {
    if (pointer === '') return this.root;
    if (pointer.charCodeAt(0) !== 47) return undefined;
    const slash = pointer.lastIndexOf('/');
    const parent = slash === 0 ? this.root : this.parentOf(pointer.slice(0, slash));
    const raw = pointer.slice(slash + 1);
    return parent.child(raw.indexOf('~') < 0 ? raw : unescapeToken(raw));
  }

  private readonly parents = new Map<string, Step>();

  private parentOf(pointer: string): Step {
    let step = this.parents.get(pointer);
    if (!step) this.parents.set(pointer, (step = this.want(pointer)!));
    return step;
  }

  scan(): void {
    if (this.scanned) return;
    this.scanned = true;
    const scanner = new Scanner(this.text);
    try {
      scanner.value(scanner.skipSpace(0), this.root);
    } catch {
      // Deeper than the stack allows, or not JSON after all: what was found so far stands.
    }
  }

  /** Sets `target`'s position (its end too, with `withEnd`); false when the spot was not found. */
  place(spot: Spot | undefined, key: boolean, target: Placeable, withEnd = true): boolean {
    if (!spot || this.root.valueStart < 0) return false;
    let line: number;
    let column: number;
    let length: number;
    if (key && spot.valueStart >= 0 && spot.keyLength > 0) {
      line = spot.keyLine;
      column = spot.keyColumn;
      length = spot.keyLength;
    } else {
      // The deepest value found on the way; a container is marked by its opening bracket.
      let step = spot;
      while (step.valueStart < 0 && step.parent) step = step.parent;
      const c = this.text.charCodeAt(step.valueStart);
      line = step.valueLine;
      column = step.valueColumn;
      length = c === Ch.OpenBrace || c === Ch.OpenBracket ? 1 : step.valueLength;
    }
    target.line = line;
    target.column = column;
    if (withEnd) {
      target.endLine = line;
      target.endColumn = column + length;
    }
    return true;
  }
}

/** Positions of every request in one scan of `text` (see Locator). */
export function locateAll(text: string, requests: readonly LocateRequest[]): (Position | undefined)[] {
  const locator = new Locator(text);
  const spots = requests.map((r) => locator.want(r.pointer));
  locator.scan();
  return requests.map((r, i) => {
    const p: Position = { line: 0, column: 0, endLine: 0, endColumn: 0 };
    return locator.place(spots[i], r.key === true, p) ? p : undefined;
  });
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
  /** Line (1-based) of the scan's position, and the offset that line starts at. */
  line = 1;
  lineStart = 0;
  constructor(private readonly text: string) {}

  skipSpace(i: number): number {
    const text = this.text;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 13 || c === 9) i++;
      else if (c === Ch.Newline) {
        this.line++;
        this.lineStart = ++i;
      } else return i;
    }
  }

  /** Scans the value at `i` (no leading space), recording it on `step`; returns the offset after it. */
  value(i: number, step: Step | undefined): number {
    const text = this.text;
    const c = text.charCodeAt(i);
    if (step) {
      step.valueStart = i;
      step.valueLine = this.line;
      step.valueColumn = i - this.lineStart + 1;
    }
    let end: number;
    if (c === Ch.OpenBrace || c === Ch.OpenBracket) {
      end = step && (step.names || step.byName) ? (c === Ch.OpenBrace ? this.object(i, step) : this.array(i, step)) : this.skipContainer(i);
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

  /** The wanted child named by the key whose quotes are at `i` and `keyEnd - 1`, compared in place. */
  private wanted(step: Step, i: number, keyEnd: number): Step | undefined {
    const text = this.text;
    const length = keyEnd - i - 2;
    let escaped = false;
    for (let k = i + 1; k < keyEnd - 1; k++)
      if (text.charCodeAt(k) === Ch.Backslash) {
        escaped = true;
        break;
      }
    if (escaped || step.escapedName || step.byName) {
      const name = escaped ? (JSON.parse(text.slice(i, keyEnd)) as string) : text.slice(i + 1, keyEnd - 1);
      if (step.byName) return step.byName.get(name);
      const at = step.names!.indexOf(name);
      return at >= 0 ? step.kids![at] : undefined;
    }
    const names = step.names!;
    for (let n = 0; n < names.length; n++) if (names[n].length === length && text.startsWith(names[n], i + 1)) return step.kids![n];
    return undefined;
  }

  private object(i: number, step: Step): number {
    const text = this.text;
    i = this.skipSpace(i + 1);
    if (text.charCodeAt(i) === Ch.CloseBrace) return i + 1;
    for (;;) {
      const keyEnd = stringEnd(text, i);
      const child = this.wanted(step, i, keyEnd);
      if (child) {
        if (child.valueStart >= 0) child.forget();
        child.keyLine = this.line;
        child.keyColumn = i - this.lineStart + 1;
        child.keyLength = keyEnd - i;
      }
      i = this.skipSpace(keyEnd);
      if (text.charCodeAt(i) !== Ch.Colon) throw new Error('not JSON');
      i = this.value(this.skipSpace(i + 1), child);
      i = this.skipSpace(i);
      const d = text.charCodeAt(i);
      if (d === Ch.CloseBrace) return i + 1;
      if (d !== Ch.Comma) throw new Error('not JSON');
      i = this.skipSpace(i + 1);
    }
  }

  private array(i: number, step: Step): number {
    const text = this.text;
    const byIndex = step.byIndex;
    i = this.skipSpace(i + 1);
    if (text.charCodeAt(i) === Ch.CloseBracket) return i + 1;
    for (let index = 0; ; index++) {
      i = this.value(i, byIndex?.[index]);
      i = this.skipSpace(i);
      const d = text.charCodeAt(i);
      if (d === Ch.CloseBracket) return i + 1;
      if (d !== Ch.Comma) throw new Error('not JSON');
      i = this.skipSpace(i + 1);
    }
  }

  /** Past a whole object or array no request points into: strings are jumped over with indexOf. */
  private skipContainer(i: number): number {
    const text = this.text;
    let depth = 0;
    for (const n = text.length; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === Ch.Quote) i = stringEnd(text, i) - 1;
      else if (c === Ch.Newline) {
        this.line++;
        this.lineStart = i + 1;
      } else if (c === Ch.OpenBrace || c === Ch.OpenBracket) depth++;
      else if (c === Ch.CloseBrace || c === Ch.CloseBracket) {
        if (--depth === 0) return i + 1;
      }
    }
    return i;
  }
}
