// Positions for many pointers at once. A pack with tens of thousands of findings must be placed
// in one pass over its text: a line-start index built once, and one scan that records the offset
// of every value a finding points at (skipping, at indexOf speed, the strings and subtrees no
// finding points into). Nothing here parses or splits the text per finding.
import { sharedDepth, tokenIndex, unescapeToken } from './pointer.js';

export interface Position {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/**
 * Lines of a text, indexed once: line numbers are 1-based, columns 1-based UTF-16 units. A line
 * ends at a line feed, a carriage return, or the two together (CR LF), each one line end, as
 * editors count them: a file saved with lone CRs (classic Mac OS) has as many lines as it shows.
 */
export interface LineIndex {
  readonly text: string;
  readonly lineCount: number;
  /** The text of a line, without its line break (LF, CR or CR LF). */
  lineText(line: number): string;
  /** Line and column of an offset. */
  at(offset: number): { line: number; column: number };
  /** The line (1-based) of an offset, and the offset a line starts at: positions without allocation. */
  lineOf(offset: number): number;
  lineStart(line: number): number;
}

/** The lines of a text, without their line breaks: the lines createLineIndex counts (LF, CR and CR LF each end one). */
export function textLines(text: string): string[] {
  const index = createLineIndex(text);
  return Array.from({ length: index.lineCount }, (_, i) => index.lineText(i + 1));
}

/** Whether a text has more than one line, as createLineIndex counts them. */
export const hasLineBreak = (text: string) => text.includes('\n') || text.includes('\r');

/** The line breaks a text uses, named: `LF`, `CRLF` or `CR` when they are all one kind, `mixed` otherwise; undefined without one. */
export function lineBreaks(text: string): 'LF' | 'CRLF' | 'CR' | 'mixed' | undefined {
  const crlf = text.split('\r\n').length - 1;
  const cr = text.split('\r').length - 1 - crlf;
  const lf = text.split('\n').length - 1 - crlf;
  const kinds = [crlf && 'CRLF', lf && 'LF', cr && 'CR'].filter((k): k is 'CRLF' | 'LF' | 'CR' => Boolean(k));
  return kinds.length > 1 ? 'mixed' : kinds[0];
}

export function createLineIndex(text: string): LineIndex {
  // Line starts in a typed array grown by doubling: one indexOf per line, no boxed numbers. Text
  // with no carriage return (most) is one indexOf per line feed; otherwise each line ends at the
  // nearer of the next LF and the next CR, a CR directly followed by an LF ending one line.
  let starts = new Int32Array(Math.max(16, text.length >> 5));
  let count = 1;
  let lf = text.indexOf('\n');
  let cr = text.indexOf('\r');
  while (lf !== -1 || cr !== -1) {
    let end: number; // the last character of the line break
    if (cr === -1 || (lf !== -1 && lf < cr)) {
      end = lf;
      lf = text.indexOf('\n', lf + 1);
    } else {
      end = lf === cr + 1 ? lf : cr;
      if (end === lf) lf = text.indexOf('\n', lf + 1);
      cr = text.indexOf('\r', cr + 1);
    }
    if (count === starts.length) {
      const grown = new Int32Array(starts.length * 2);
      grown.set(starts);
      starts = grown;
    }
    starts[count++] = end + 1;
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
      if (line === count) return text.slice(start);
      // Without the break: its last character, and the CR before an LF that ends the line.
      let end = starts[line] - 1;
      if (end > start && text.charCodeAt(end) === 10 && text.charCodeAt(end - 1) === 13) end--;
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
  Return = 13,
}

/** Where a finding goes: its position fields are set in place. */
export interface Placeable {
  line?: number;
  column?: number;
  endLine?: number;
  endColumn?: number;
}

/** A wanted pointer's place in the scan: a number, opaque outside this module. */
export type Spot = number;

// What the scan records per spot, in one Int32Array of FIELDS numbers per spot.
const FIELDS = 12;
const PARENT = 0;
const START = 1; // offset of the value; -1 until the scan finds it
const LENGTH = 2; // 1 for an object or array: it is marked by its opening bracket
const LINE = 3;
const COLUMN = 4;
const KEY_LINE = 5;
const KEY_COLUMN = 6;
const KEY_LENGTH = 7; // 0: no property name (an array element, the root, or not found)
const FIRST = 8; // the spot's most recently added child; -1: none
const NEXT = 9; // the spot's next sibling (added before it); -1: none
const CHILDREN = 10; // how many children the spot has
const FLAGS = 11; // ESCAPED | MAPPED
/** A child's name holds a backslash: keys are compared decoded. */
const ESCAPED = 1;
/** The spot's children are in a map (see mapOf). */
const MAPPED = 2;
/** Past this many children a spot finds its named children through a map rather than its sibling chain. */
const SMALL_NAMES = 8;
const ROOT = 0;

/** A copy of `a` with room for `size` numbers (the Locator's and order.ts's). */
export function grown(a: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(size);
  b.set(a);
  return b;
}

/**
 * Positions of many pointers in one scan of `text`, which must be JSON that JSON.parse accepted:
 * `want` each pointer, `scan` once, then `place` each finding — positions are written straight
 * into the finding.
 *
 * The wanted pointers form a trie of numbered spots. What the scan records and the trie's links
 * (each spot's first child and next sibling) live in one typed array, the names in one array
 * indexed by spot; a map of names only for a spot with more than SMALL_NAMES children that an
 * object scan or a named lookup meets, and a table by index for array elements. So 40,000
 * findings cost a few megabytes that the garbage collector never has to trace, no JS array per
 * parent, and the scan allocates nothing per key or element. It counts lines as it goes (a JSON
 * string holds no raw line break, so only the space between tokens can; LF, CR and CR LF each end
 * one line, as createLineIndex counts them), so no line index is
 * built either.
 *
 * A pointer that does not resolve gets the position of the deepest value on its way (a missing
 * property marks the object's opening brace), as a finding about a missing field expects.
 * Objects and arrays are marked by their opening bracket; repeated property names resolve to
 * the last one, as with JSON.parse.
 */
export class Locator {
  private slots = new Int32Array(FIELDS * 256);
  private count = 1;
  /** The name of each spot's token (the root's is ''). */
  private readonly names: string[] = [''];
  private readonly maps = new Map<Spot, Map<string, Spot>>();
  private readonly byIndex = new Map<Spot, Spot[]>();
  private scanned = false;
  /** Wanted spots the scan has not reached yet, when it stops once there are none (see scan). */
  private unfound = -1;
  private line = 1;
  private lineStart = 0;
  /** The first backslash at or after the last property name the scan read (-1: not looked for yet; the text's length: none). */
  private backslash = -1;

  constructor(private readonly text: string) {
    this.slots[PARENT] = -1;
    this.slots[START] = -1;
    this.slots[FIRST] = -1;
    this.slots[NEXT] = -1;
  }

  /** The last pointer wanted, where each of its tokens ends, and the spot of each prefix (depth 0: the root). */
  private last = '';
  /** How many tokens the last pointer has; for d ≤ that depth, where its d-th token ends and the spot of that prefix. */
  private depth = 0;
  private ends = new Int32Array(32);
  private spots = new Int32Array(32);

  /**
   * The spot of a pointer (added with its missing ancestors); undefined when it is not a JSON
   * pointer. Findings come in runs that share long prefixes (/automations/3/document/graph/
   * nodes/17/config/…): each pointer resumes from the deepest prefix it shares with the one
   * before, so it costs a comparison and its last token or two — no map of prefixes, nothing kept
   * but two typed arrays of the last pointer's token ends and spots.
   */
  want(pointer: string): Spot | undefined {
    if (pointer === '') return ROOT;
    if (pointer.charCodeAt(0) !== 47) return undefined;
    const ends = this.ends;
    // The deepest prefix of the last pointer that is also a whole prefix of this one.
    let d = sharedDepth(this.last, ends, this.depth, pointer);
    let spot = this.spots[d];
    for (let i = ends[d] + 1; i <= pointer.length;) {
      let j = pointer.indexOf('/', i);
      if (j < 0) j = pointer.length;
      const raw = pointer.slice(i, j);
      spot = this.child(spot, raw.indexOf('~') < 0 ? raw : unescapeToken(raw));
      if (++d === this.ends.length) {
        this.ends = grown(this.ends, d * 2);
        this.spots = grown(this.spots, d * 2);
      }
      this.ends[d] = j;
      this.spots[d] = spot;
      i = j + 1;
    }
    this.depth = d;
    this.last = pointer;
    return spot;
  }

  private child(parent: Spot, token: string): Spot {
    const s = this.slots;
    const index = tokenIndex(token);
    let table: Spot[] | undefined;
    if (index >= 0) {
      table = this.byIndex.get(parent);
      const known = table?.[index];
      if (known !== undefined) return known;
    } else if (s[parent * FIELDS + CHILDREN] > SMALL_NAMES) {
      const known = this.mapOf(parent).get(token);
      if (known !== undefined) return known;
    } else {
      for (let c = s[parent * FIELDS + FIRST]; c >= 0; c = s[c * FIELDS + NEXT]) if (this.names[c] === token) return c;
    }
    const spot = this.count++;
    if (spot * FIELDS >= s.length) this.slots = grown(s, s.length * 2);
    const slots = this.slots;
    const at = spot * FIELDS;
    slots[at + PARENT] = parent;
    slots[at + START] = -1;
    slots[at + FIRST] = -1;
    slots[at + NEXT] = slots[parent * FIELDS + FIRST];
    slots[parent * FIELDS + FIRST] = spot;
    slots[parent * FIELDS + CHILDREN]++;
    this.names.push(token);
    slots[at + FLAGS] = 0;
    const flags = slots[parent * FIELDS + FLAGS];
    if (flags & MAPPED) this.maps.get(parent)!.set(token, spot);
    if (token.indexOf('\\') >= 0) slots[parent * FIELDS + FLAGS] = flags | ESCAPED;
    if (index >= 0) {
      if (!table) this.byIndex.set(parent, (table = []));
      table[index] = spot;
    }
    return spot;
  }

  /** The children of a spot by name, built the first time a spot with many children needs it. */
  private mapOf(spot: Spot): Map<string, Spot> {
    let map = this.maps.get(spot);
    if (!map) {
      map = new Map();
      const s = this.slots;
      // The chain runs newest first; a name is never added twice, so the order does not matter.
      for (let c = s[spot * FIELDS + FIRST]; c >= 0; c = s[c * FIELDS + NEXT]) map.set(this.names[c], c);
      this.maps.set(spot, map);
      s[spot * FIELDS + FLAGS] |= MAPPED;
    }
    return map;
  }

  /**
   * With `stopWhenFound` the scan ends once every wanted pointer is found, rather than at the end
   * of the text: a few findings near the top of a large file cost the part of it they are in.
   * Only for text that repeats no property name (a later repeat would replace what was found).
   */
  scan(stopWhenFound = false): void {
    if (this.scanned) return;
    this.scanned = true;
    if (stopWhenFound) this.unfound = this.count;
    try {
      this.value(this.skipSpace(0), ROOT);
    } catch {
      // Deeper than the stack allows, or not JSON after all: what was found so far stands.
    }
  }

  /** Sets `target`'s position (its end too, with `withEnd`); false when the spot was not found. */
  place(spot: Spot | undefined, key: boolean, target: Placeable, withEnd = true): boolean {
    const s = this.slots;
    if (spot === undefined || s[START] < 0) return false;
    let line: number;
    let column: number;
    let length: number;
    let at = spot * FIELDS;
    if (key && s[at + START] >= 0 && s[at + KEY_LENGTH] > 0) {
      line = s[at + KEY_LINE];
      column = s[at + KEY_COLUMN];
      length = s[at + KEY_LENGTH];
    } else {
      // The deepest value found on the way; a container is marked by its opening bracket.
      while (s[at + START] < 0 && s[at + PARENT] >= 0) at = s[at + PARENT] * FIELDS;
      line = s[at + LINE];
      column = s[at + COLUMN];
      length = s[at + LENGTH];
    }
    target.line = line;
    target.column = column;
    if (withEnd) {
      target.endLine = line;
      target.endColumn = column + length;
    }
    return true;
  }

  /** The text of the value at a spot as written (a number's literal), once the scan found it; undefined otherwise. */
  valueText(spot: Spot): string | undefined {
    const at = spot * FIELDS;
    const start = this.slots[at + START];
    return start < 0 ? undefined : this.text.slice(start, start + this.slots[at + LENGTH]);
  }

  /** A repeated property name: the last one wins, so what an earlier one recorded is forgotten. */
  private forget(spot: Spot): void {
    this.slots[spot * FIELDS + START] = -1;
    this.slots[spot * FIELDS + KEY_LENGTH] = 0;
    for (let c = this.slots[spot * FIELDS + FIRST]; c >= 0; c = this.slots[c * FIELDS + NEXT]) this.forget(c);
  }

  private skipSpace(i: number): number {
    const text = this.text;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9) i++;
      else if (c === Ch.Newline) {
        this.line++;
        this.lineStart = ++i;
      } else if (c === Ch.Return) {
        // A line end of its own, unless an LF follows (CR LF: the LF counts the line).
        if (text.charCodeAt(++i) !== Ch.Newline) {
          this.line++;
          this.lineStart = i;
        }
      } else return i;
    }
  }

  /** Scans the value at `i` (no leading space), recording it on `spot` (-1: none); returns the offset after it. */
  private value(i: number, spot: number): number {
    const text = this.text;
    const c = text.charCodeAt(i);
    const at = spot * FIELDS;
    if (spot >= 0) {
      this.slots[at + START] = i;
      this.slots[at + LINE] = this.line;
      this.slots[at + COLUMN] = i - this.lineStart + 1;
    }
    let end: number;
    if (c === Ch.OpenBrace || c === Ch.OpenBracket) {
      // A container's place is its opening bracket: known now (its length is the bracket's, so
      // placing it reads nothing from the text again).
      if (spot >= 0) {
        this.slots[at + LENGTH] = 1;
        if (--this.unfound === 0) throw FOUND_ALL;
      }
      end =
        spot >= 0 && this.slots[at + FIRST] >= 0
          ? c === Ch.OpenBrace
            ? this.object(i, spot)
            : this.array(i, spot)
          : this.skipContainer(i);
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
    if (spot >= 0 && c !== Ch.OpenBrace && c !== Ch.OpenBracket) {
      this.slots[at + LENGTH] = end - i;
      if (--this.unfound === 0) throw FOUND_ALL;
    }
    return end;
  }

  /** The wanted child of `spot` named by the key whose quotes are at `i` and `keyEnd - 1`; -1 if none. */
  private wanted(spot: Spot, i: number, keyEnd: number): number {
    const text = this.text;
    const length = keyEnd - i - 2;
    // The scan only moves forward, so the next backslash is looked for again only once the scan
    // has passed the last one found: one indexOf per backslash rather than a loop per key.
    if (this.backslash < i) {
      const b = text.indexOf('\\', i);
      this.backslash = b < 0 ? text.length : b;
    }
    const escaped = this.backslash < keyEnd;
    const s = this.slots;
    const many = s[spot * FIELDS + CHILDREN] > SMALL_NAMES;
    if (escaped || many || (s[spot * FIELDS + FLAGS] & ESCAPED) !== 0) {
      const name = escaped ? (JSON.parse(text.slice(i, keyEnd)) as string) : text.slice(i + 1, keyEnd - 1);
      if (many) return this.mapOf(spot).get(name) ?? -1;
      for (let c = s[spot * FIELDS + FIRST]; c >= 0; c = s[c * FIELDS + NEXT]) if (this.names[c] === name) return c;
      return -1;
    }
    for (let c = s[spot * FIELDS + FIRST]; c >= 0; c = s[c * FIELDS + NEXT]) {
      const name = this.names[c];
      if (name.length === length && text.startsWith(name, i + 1)) return c;
    }
    return -1;
  }

  private object(i: number, spot: Spot): number {
    const text = this.text;
    i = this.skipSpace(i + 1);
    if (text.charCodeAt(i) === Ch.CloseBrace) return i + 1;
    for (;;) {
      const keyEnd = stringEnd(text, i);
      const child = this.wanted(spot, i, keyEnd);
      if (child >= 0) {
        const at = child * FIELDS;
        if (this.slots[at + START] >= 0) this.forget(child);
        this.slots[at + KEY_LINE] = this.line;
        this.slots[at + KEY_COLUMN] = i - this.lineStart + 1;
        this.slots[at + KEY_LENGTH] = keyEnd - i;
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

  private array(i: number, spot: Spot): number {
    const text = this.text;
    const table = this.byIndex.get(spot);
    i = this.skipSpace(i + 1);
    if (text.charCodeAt(i) === Ch.CloseBracket) return i + 1;
    for (let index = 0; ; index++) {
      i = this.value(i, table?.[index] ?? -1);
      i = this.skipSpace(i);
      const d = text.charCodeAt(i);
      if (d === Ch.CloseBracket) return i + 1;
      if (d !== Ch.Comma) throw new Error('not JSON');
      i = this.skipSpace(i + 1);
    }
  }

  /**
   * Past a whole object or array no request points into: strings are jumped over with indexOf, a
   * line's indentation in one tight loop, and every other character costs one table look-up.
   */
  private skipContainer(i: number): number {
    const text = this.text;
    let depth = 0;
    let line = this.line;
    let lineStart = this.lineStart;
    for (const n = text.length; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c > Ch.CloseBrace) continue;
      const kind = SKIP[c];
      if (kind === 0) continue;
      if (kind === QUOTE) i = stringEnd(text, i) - 1;
      else if (kind === NEWLINE) {
        line++;
        lineStart = i + 1;
        while (text.charCodeAt(i + 1) === 32) i++;
      } else if (kind === OPEN) depth++;
      else if (kind === CLOSE) {
        if (--depth === 0) {
          i++;
          break;
        }
      } else if (text.charCodeAt(i + 1) !== Ch.Newline) {
        // RETURN: a line end of its own, unless an LF follows (CR LF: the LF counts the line).
        line++;
        lineStart = i + 1;
        while (text.charCodeAt(i + 1) === 32) i++;
      }
    }
    this.line = line;
    this.lineStart = lineStart;
    return i;
  }
}

/** Ends a scan that found every wanted pointer (caught in scan). */
const FOUND_ALL = new Error('found all');

/** What skipContainer does with a character: nothing (0), or one of these. */
const QUOTE = 1;
const NEWLINE = 2;
const OPEN = 3;
const CLOSE = 4;
const RETURN = 5;
const SKIP = new Uint8Array(Ch.CloseBrace + 1);
SKIP[Ch.Quote] = QUOTE;
SKIP[Ch.Newline] = NEWLINE;
SKIP[Ch.Return] = RETURN;
SKIP[Ch.OpenBrace] = SKIP[Ch.OpenBracket] = OPEN;
SKIP[Ch.CloseBrace] = SKIP[Ch.CloseBracket] = CLOSE;

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

// Keeps the Locator's hidden class alive between validations (as SHAPE_KEEPER in graph/model.ts
// does for the graph model): without a live instance a full garbage collection frees the class,
// the placement code optimised for it is thrown away, and every validation with findings compiled
// want, child, the scan and place again.
export const LOCATOR_SHAPE = new Locator('');
