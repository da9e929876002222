// Reading pack text: JSON.parse is the fast path. Source positions (jsonc-parser's tree) are built
// only when a diagnostic needs placing, and duplicate keys are looked for only when a cheap key
// count says there are some.
import { parse, parseTree, visit, printParseErrorCode, type Node as JsonNode, type ParseError } from 'jsonc-parser';
import type { Diagnostic } from '../diagnostics.js';
import { describePointer, escapeToken, parsePointer, tokenIndex, toPointer } from './pointer.js';
import { createLineIndex, locateAll, Locator, type LineIndex, type LocateRequest, type Position } from './positions.js';

/** Deeper documents are refused: no pack needs them and recursive tools overflow on them. */
export const MAX_DEPTH = 512;

export type { Position } from './positions.js';

export interface SourceText {
  text: string;
  /** The text's lines, indexed once (for code frames and positions). */
  readonly lines: LineIndex;
  /** Position of the value at `pointer`; with `key`, of its property name. Undefined when unknown. */
  locate(pointer: string, options?: { key?: boolean }): Position | undefined;
  /**
   * Positions of many pointers: one scan of the text when it is JSON that JSON.parse accepted,
   * else the tolerant parser's tree, one pointer at a time.
   */
  locateAll(requests: readonly LocateRequest[]): (Position | undefined)[];
  /** The one-scan locator (positions written into the findings), when the text is JSON that JSON.parse accepted. */
  locator(): Locator | undefined;
  /** Set by parseJsonText when the text is JSON that repeats no property name within an object. */
  uniqueKeys?: boolean;
}

export interface ParsedText {
  value?: unknown;
  source: SourceText;
  diagnostics: Diagnostic[];
}

/** `parsed`: the text is known to be JSON (JSON.parse accepted it), so the one-pass scan applies. */
export function createSourceText(text: string, parsed = false): SourceText {
  return new TextSource(text, parsed);
}

/**
 * SourceText as a class: one object per text, its methods shared, where an object literal of
 * closures made five functions for every text read (a folder of 1,000 packs reads 1,000).
 */
class TextSource implements SourceText {
  declare readonly text: string;
  declare uniqueKeys: boolean | undefined;
  declare private readonly parsed: boolean;
  /** null: not built yet; undefined: cannot be built. */
  declare private tree: JsonNode | undefined | null;
  declare private lineIndex: LineIndex | undefined;

  constructor(text: string, parsed: boolean) {
    this.text = text;
    this.uniqueKeys = undefined;
    this.parsed = parsed;
    this.tree = null;
    this.lineIndex = undefined;
  }

  get lines(): LineIndex {
    return (this.lineIndex ??= createLineIndex(this.text));
  }

  locator(): Locator | undefined {
    return this.parsed ? new Locator(this.text) : undefined;
  }

  locateAll(requests: readonly LocateRequest[]): (Position | undefined)[] {
    if (this.parsed) return locateAll(this.text, requests);
    return requests.map((r) => {
      try {
        return this.locate(r.pointer, { key: r.key });
      } catch {
        return undefined;
      }
    });
  }

  locate(pointer: string, options?: { key?: boolean }): Position | undefined {
    if (this.tree === null) {
      try {
        this.tree = parseTree(this.text, [], { disallowComments: true, allowTrailingComma: false }) ?? undefined;
      } catch {
        this.tree = undefined; // too deep for the recursive parser
      }
    }
    const tree = this.tree;
    if (!tree) return undefined;
    let node: JsonNode = tree;
    let keyNode: JsonNode | undefined;
    for (const token of parsePointer(pointer)) {
      keyNode = undefined;
      if (node.type === 'array') {
        const index = tokenIndex(token);
        const child = index >= 0 ? node.children?.[index] : undefined;
        if (!child) return this.position(node.offset, 1);
        node = child;
      } else if (node.type === 'object') {
        // The last duplicate wins, as with JSON.parse.
        const prop = node.children?.filter((p) => p.children?.[0]?.value === token).pop();
        if (!prop?.children?.[1]) return this.position(node.offset, 1);
        keyNode = prop.children[0];
        node = prop.children[1];
      } else {
        return this.position(node.offset, node.length);
      }
    }
    const target = options?.key && keyNode ? keyNode : node;
    // Objects and arrays: mark the opening bracket, not the whole block.
    const length = target.type === 'object' || target.type === 'array' ? 1 : target.length;
    return this.position(target.offset, length);
  }

  private position(offset: number, length: number): Position {
    const start = this.lines.at(offset);
    const end = this.lines.at(offset + Math.max(0, length));
    return { line: start.line, column: start.column, endLine: end.line, endColumn: end.column };
  }
}

// Keeps TextSource's hidden class alive between validations (see SHAPE_KEEPER in graph/model.ts):
// placeAll reads `uniqueKeys` from it, and without a live instance a full garbage collection freed
// the class and sent placeAll back to the compiler in every validation with findings.
export const TEXT_SOURCE_SHAPE = createSourceText('', true);

/**
 * Whether the text may repeat a property name, given how many keys JSON.parse kept. Every property
 * name is a string followed, after optional white space, by a colon; so the colons whose previous
 * non-space character is a quote number at least the property names, and colons inside strings can
 * only add to them. A count equal to the kept keys therefore proves there are no duplicates. The
 * colons are found with single-character indexOf (memchr speed); only when the count differs is
 * the text tokenised exactly.
 */
function mayHaveDuplicateKeys(text: string, keptKeys: number): boolean {
  let candidates = 0;
  for (let i = text.indexOf(':'); i !== -1; i = text.indexOf(':', i + 1)) {
    let k = i - 1;
    let c = text.charCodeAt(k);
    while (c === 32 || c === 9 || c === 10 || c === 13) c = text.charCodeAt(--k);
    if (c === 34) candidates++;
  }
  return candidates !== keptKeys && countKeysInText(text) !== keptKeys;
}

/** Counts property names in JSON text (strings followed by a colon) without a full tokenizer. */
function countKeysInText(text: string): number {
  let count = 0;
  let i = text.indexOf('"');
  while (i !== -1) {
    let j = i + 1;
    for (;;) {
      j = text.indexOf('"', j);
      if (j === -1) return count;
      let k = j - 1;
      while (text.charCodeAt(k) === 92) k--;
      if ((j - 1 - k) % 2 === 0) break; // an even run of backslashes: the quote is not escaped
      j++;
    }
    let n = j + 1;
    let c = text.charCodeAt(n);
    while (c === 32 || c === 9 || c === 10 || c === 13) c = text.charCodeAt(++n);
    if (c === 58) count++;
    i = text.indexOf('"', n);
  }
  return count;
}

/**
 * 2^53: from here on a 64-bit float (what JSON.parse makes of every number) no longer holds every
 * integer, so a number of this size or more may not be the one written; Infinity is past it too.
 */
const EXACT_INTEGERS = 9007199254740992;

/**
 * Walks a parsed value without recursion: counts object keys and measures nesting depth. `wide`:
 * the value holds a number of 2^53 or more in size, or one that is not finite (numberFindings then
 * says which, if any, JSON cannot carry). The one comparison per number is all a clean pack pays.
 */
export function measure(
  value: unknown,
  maxDepth = MAX_DEPTH,
): { keys: number; depth: number; deepPath?: (string | number)[]; wide: boolean } {
  let keys = 0;
  let depth = 0;
  let wide = typeof value === 'number' && !(value < EXACT_INTEGERS && value > -EXACT_INTEGERS);
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length) {
    const v = values.pop();
    const d = depths.pop()! + 1;
    if (d > depth) depth = d;
    if (d > maxDepth) return { keys, depth, deepPath: pathToDepth(value, maxDepth), wide };
    // A wide number's test is written so that NaN (an object handed in, not text) counts too.
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const c: unknown = v[i];
        if (c !== null && typeof c === 'object') {
          values.push(c);
          depths.push(d);
        } else if (typeof c === 'number' && !(c < EXACT_INTEGERS && c > -EXACT_INTEGERS)) wide = true;
      }
    } else {
      for (const k in v as object) {
        if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
        keys++;
        const c = (v as Record<string, unknown>)[k];
        if (c !== null && typeof c === 'object') {
          values.push(c);
          depths.push(d);
        } else if (typeof c === 'number' && !(c < EXACT_INTEGERS && c > -EXACT_INTEGERS)) wide = true;
      }
    }
  }
  return { keys, depth, wide };
}

/** Where each number of 2^53 or more in size (or not finite) is, in document order; only walked when measure saw one. */
function wideNumbers(value: unknown): { path: (string | number)[]; value: number }[] {
  const out: { path: (string | number)[]; value: number }[] = [];
  const stack: { v: unknown; path: (string | number)[] }[] = [{ v: value, path: [] }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'number') {
      if (!(v < EXACT_INTEGERS && v > -EXACT_INTEGERS)) out.push({ path, value: v });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const c: unknown = v[i];
        if (typeof c === 'number' || (c !== null && typeof c === 'object')) stack.push({ v: c, path: [...path, i] });
      }
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const c = (v as Record<string, unknown>)[keys[i]];
        if (typeof c === 'number' || (c !== null && typeof c === 'object')) stack.push({ v: c, path: [...path, keys[i]] });
      }
    }
  }
  return out;
}

/** A decimal number's value as its significant digits and the power of ten of the last: 1.50e3 and 1500 give the same. */
function decimalValue(literal: string): string {
  let s = literal;
  const sign = s.charCodeAt(0) === 45 ? '-' : '';
  if (sign) s = s.slice(1);
  let exponent = 0;
  const e = s.search(/[eE]/);
  if (e >= 0) {
    exponent = Number(s.slice(e + 1));
    s = s.slice(0, e);
  }
  const dot = s.indexOf('.');
  if (dot >= 0) {
    exponent -= s.length - dot - 1;
    s = s.slice(0, dot) + s.slice(dot + 1);
  }
  let start = 0;
  while (start < s.length - 1 && s.charCodeAt(start) === 48) start++;
  let end = s.length;
  while (end > start + 1 && s.charCodeAt(end - 1) === 48) {
    end--;
    exponent++;
  }
  const digits = s.slice(start, end);
  return digits === '0' ? '0' : `${sign}${digits}e${exponent}`;
}

/**
 * Whether a number as written in JSON text is the number JSON.parse made of it, as JSON.stringify
 * writes that back (1e23 is, though no float holds 10^23 exactly: it is written back as 1e+23;
 * 12345678901234567890 is not: it reads, and is written back, as 12345678901234567000).
 */
export function keepsItsDigits(literal: string, value: number): boolean {
  return decimalValue(literal) === decimalValue(String(value));
}

const LARGEST = '1.7976931348623157e308';

/**
 * Findings for the numbers measure flagged (`wide`): each that is not finite (json/number-range:
 * JSON.stringify, and so an install, writes it as null) and, from text, each integer beyond 2^53
 * that reads as another number than the one written (json/number-precision). With `source` (the
 * text the value was parsed from) the findings are placed and name the number as written, found by
 * one scan of the text; without it (a value handed in) they name the value, and only numbers that
 * are not finite can be told.
 */
export function numberFindings(value: unknown, source?: SourceText): Diagnostic[] {
  const found = wideNumbers(value);
  const out: Diagnostic[] = [];
  if (!found.length) return out;
  const pointers = found.map((f) => toPointer(f.path));
  const locator = source?.locator();
  const spots = locator ? pointers.map((p) => locator.want(p)) : undefined;
  locator?.scan(source!.uniqueKeys === true);
  for (let i = 0; i < found.length; i++) {
    const v = found[i].value;
    const finite = Number.isFinite(v);
    if (finite && !locator) continue; // a float handed in is what it is: JSON.stringify writes it back exactly
    const spot = spots?.[i];
    const literal = locator && spot !== undefined ? locator.valueText(spot) : undefined;
    // A number beyond 2^53 that reads back as written (1e23) is no finding: skipped before its field is named.
    if (finite && (literal === undefined || keepsItsDigits(literal, v))) continue;
    let d: Diagnostic;
    if (!finite) {
      d = rangeFinding(pointers[i], literal, v);
    } else {
      // Finite here only when read from the text (the skip above): literal is the number as written.
      d = wideIntegerFinding(pointers[i], literal!, v);
    }
    if (locator && spot !== undefined) locator.place(spot, false, d);
    out.push(d);
  }
  return out;
}

/**
 * A json/number-range finding: a number JSON cannot hold, named as written (`literal`) when it was
 * read from text. The field is named as the schema's findings name theirs (describePointer): a
 * message read without its pointer (the server's 422, a log line) still says where.
 */
function rangeFinding(pointer: string, literal: string | undefined, v: number): Diagnostic {
  const field = fieldName(pointer);
  return {
    code: 'json/number-range',
    severity: 'error',
    message:
      literal !== undefined
        ? `${field} is the number ${literal}, beyond what a JSON number can hold here (a 64-bit float); it would be read as ${v} and installed as null.`
        : v !== v
          ? `${field} is NaN (not a number), which JSON cannot write; it would be installed as null.`
          : `${field} is ${v}, beyond what a JSON number can hold (a 64-bit float); it would be installed as null.`,
    pointer,
    hint: `Write it as a string if it is an identifier, or a number of at most ${LARGEST} in size.`,
  };
}

function fieldName(pointer: string): string {
  const where = describePointer(pointer);
  return where === 'the pack' ? 'The pack' : where;
}

/** A json/number-precision finding for a number of 2^53 or more in size that reads as another (`literal` as written). */
function wideIntegerFinding(pointer: string, literal: string, v: number): Diagnostic {
  return precisionFinding(
    pointer,
    literal,
    v,
    'with more digits than a JSON number keeps here (a 64-bit float holds every integer only up to 2^53, 9007199254740992)',
    `Write it as a string if it is an identifier (an id, an account or phone number); else write ${v}.`,
  );
}

/**
 * A json/number-precision finding, one wording for both ways one is found: an integer beyond 2^53
 * (numberFindings, from what a parse sees) and a fraction or a number near 0 (numbersNotKept, from
 * the text). The field is named as the schema's findings name theirs (describePointer).
 */
function precisionFinding(pointer: string, literal: string, value: number, why: string, hint: string): Diagnostic {
  const field = fieldName(pointer);
  return {
    code: 'json/number-precision',
    severity: 'warning',
    message: `${field} is the number ${literal}, ${why}; it reads as ${value}, and would be installed and exported so.`,
    pointer,
    hint,
  };
}

/** The smallest float that keeps all of its 53 bits; below it, a float holds fewer digits. */
const SMALLEST_NORMAL = 2.2250738585072014e-308;

/**
 * The numbers of a JSON text (one JSON.parse accepted) that JSON.parse does not read as written,
 * and that numberFindings does not report (it tells only numbers a float cannot hold and integers
 * beyond 2^53, from what a parse sees, so that validating a pack never reads its numbers' text): a
 * fraction with more significant digits than a float keeps (`0.1000000000000000055511151231257827`
 * reads as 0.1), a number too close to 0 for one (`1e-400` reads as 0) or kept only in part
 * (`1e-320`). Each as core's json/number-precision, placed, with its pointer. A number whose text
 * only looks otherwise than JSON.stringify writes it (`1.0`, `1E+2`, `0.50`) is the same number:
 * core's keepsItsDigits compares the decimal values. For fmt and fix, which write every number of a
 * file again: one pass over the text they have read anyway, and only a number of more than 15
 * characters, or with an exponent, is looked at twice (up to 15 significant digits, and between
 * 1e-13 and 1e15, a float keeps any decimal).
 */
export function numbersNotKept(source: SourceText): Diagnostic[] {
  const text = source.text;
  const out: Diagnostic[] = [];
  // One frame per open array or object, 1 the outermost: whether it is an array, the index of its
  // current item, or where its current property name is in the text (decoded only for a finding).
  const isArray: boolean[] = [false];
  const index: number[] = [0];
  const keyStart: number[] = [0];
  const keyEnd: number[] = [0];
  let depth = 0;
  let wantKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 32 || c === 58 /* : */) continue; // white space (indentation, most of a formatted file's characters outside strings)
    if (c === 34 /* " */) {
      let end = text.indexOf('"', i + 1);
      while (escaped(text, end)) end = text.indexOf('"', end + 1);
      if (wantKey) {
        keyStart[depth] = i;
        keyEnd[depth] = end + 1;
        wantKey = false;
      }
      i = end;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      depth++;
      isArray[depth] = c === 91;
      index[depth] = 0;
      wantKey = c === 123;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
    } else if (c === 44 /* , */) {
      if (isArray[depth]) index[depth]++;
      else wantKey = true;
    } else if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      let end = i + 1;
      let exponent = false;
      for (let d = text.charCodeAt(end); end < text.length; d = text.charCodeAt(++end)) {
        if ((d | 32) === 101 /* e, E */) exponent = true;
        else if (!((d >= 48 && d <= 57) || d === 46 || d === 43 || d === 45)) break;
      }
      if (exponent || end - i > 15) {
        const literal = text.slice(i, end);
        const value = Number(literal);
        // Written as JSON.stringify writes it (a number a program wrote, 17 digits and all): kept.
        if (value < EXACT_INTEGERS && value > -EXACT_INTEGERS && String(value) !== literal && !keepsItsDigits(literal, value)) {
          let pointer = '';
          for (let d = 1; d <= depth; d++)
            pointer += `/${escapeToken(isArray[d] ? index[d] : (JSON.parse(text.slice(keyStart[d], keyEnd[d])) as string))}`;
          out.push(notKept(source, pointer, literal, value, i, end));
        }
      }
      i = end - 1;
    }
    // Anything else is a letter of true, false or null.
  }
  return out;
}

/** Whether the quote at `at` is escaped: an odd number of backslashes before it. */
function escaped(text: string, at: number): boolean {
  let n = 0;
  while (text.charCodeAt(at - 1 - n) === 92) n++;
  return n % 2 === 1;
}

/** A json/number-precision finding for a number below 2^53 in size that reads as another (`literal` as written). */
function fractionFinding(pointer: string, literal: string, value: number): Diagnostic {
  const why =
    value === 0
      ? 'closer to 0 than a JSON number can hold here (a 64-bit float)'
      : Math.abs(value) < SMALLEST_NORMAL
        ? 'so close to 0 that a JSON number keeps only some of its digits here (a 64-bit float)'
        : 'with more digits than a JSON number keeps here (a 64-bit float keeps 15 to 17 significant digits)';
  return precisionFinding(
    pointer,
    literal,
    value,
    why,
    `Write ${value} if that is what it means; else write it as a string, which keeps every digit.`,
  );
}

function notKept(source: SourceText, pointer: string, literal: string, value: number, start: number, end: number): Diagnostic {
  const from = source.lines.at(start);
  const to = source.lines.at(end);
  return {
    ...fractionFinding(pointer, literal, value),
    line: from.line,
    column: from.column,
    endLine: to.line,
    endColumn: to.column,
  };
}

/** JSON's number: an optional minus, an integer without leading zeros, an optional fraction and exponent. */
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/**
 * One number as written (`text`, what a form's number field holds), read as a pack's text is read:
 * its value when JSON.parse reads it as the number written, else the finding a file with that
 * number at `pointer` gets (json/number-range: `1e400`, which would be Infinity and installed as
 * null; json/number-precision: `1e-400` reads as 0, `9007199254740993` as 9007199254740992,
 * `0.1000000000000000055511151231257827` as 0.1), unplaced. Undefined when the text is not a JSON
 * number (`.5`, `1e`, ` 1`). The one rule of numberFindings and numbersNotKept, for one number.
 */
export function readNumber(
  text: string,
  pointer = '',
): { value: number; finding?: undefined } | { value?: undefined; finding: Diagnostic } | undefined {
  if (!JSON_NUMBER.test(text)) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value)) return { finding: rangeFinding(pointer, text, value) };
  if (String(value) === text || keepsItsDigits(text, value)) return { value };
  return {
    finding:
      value < EXACT_INTEGERS && value > -EXACT_INTEGERS ? fractionFinding(pointer, text, value) : wideIntegerFinding(pointer, text, value),
  };
}

/** The path (first 64 steps) to a value nested deeper than `limit`; only computed when there is one. */
function pathToDepth(value: unknown, limit: number): (string | number)[] {
  const values: unknown[] = [value];
  const parents: number[] = [-1];
  const keys: (string | number)[] = [''];
  const depths: number[] = [1];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (depths[i] > limit) {
      const path: (string | number)[] = [];
      for (let at = i; parents[at] !== -1; at = parents[at]) path.push(keys[at]);
      return path.reverse().slice(0, 64);
    }
    if (v === null || typeof v !== 'object') continue;
    for (const k of Array.isArray(v) ? v.keys() : Object.keys(v)) {
      const c = (v as Record<string | number, unknown>)[k];
      if (c === null || typeof c !== 'object') continue;
      values.push(c);
      parents.push(i);
      keys.push(k);
      depths.push(depths[i] + 1);
    }
  }
  return [];
}

const syntaxMessages: Record<string, string> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'expected a property name in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: "expected ':' after the property name",
  CommaExpected: "expected ',' between values",
  CloseBraceExpected: "expected '}' to close the object",
  CloseBracketExpected: "expected ']' to close the array",
  EndOfFileExpected: 'unexpected text after the end of the JSON document',
  InvalidCommentToken: 'comments are not allowed in JSON',
  UnexpectedEndOfComment: 'comments are not allowed in JSON',
  UnexpectedEndOfString: 'the string is not closed',
  UnexpectedEndOfNumber: 'the number is incomplete',
  InvalidUnicode: 'invalid \\u escape in a string',
  InvalidEscapeCharacter: 'invalid escape in a string',
  InvalidCharacter: 'control characters must be escaped in strings',
};

/**
 * Where and why a text that JSON.parse refused is not JSON: the first syntax error in words
 * ("expected ',' between values") at its 1-based line and column (UTF-16 units). `fallback` is
 * JSON.parse's own message, used when the tolerant parser finds nothing (a document too deep for
 * it). The one statement of how the toolkit says a JSON text is broken: a pack file's finding,
 * and the API's 400 for a malformed request body.
 */
export function jsonSyntaxError(text: string, fallback: string): { what: string; line: number; column: number; empty: boolean } {
  const errors: ParseError[] = [];
  try {
    parse(text, errors, { disallowComments: true, allowTrailingComma: false });
  } catch {
    /* too deep for the recursive parser: fall back to JSON.parse's own message */
  }
  let offset: number | undefined;
  let what = fallback;
  const first = errors[0];
  if (first) {
    offset = first.offset;
    what = syntaxMessages[printParseErrorCode(first.error)] ?? printParseErrorCode(first.error);
  } else {
    const m = /at position (\d+)/.exec(fallback);
    if (m) offset = Number(m[1]);
  }
  if (text.trim() === '') return { what: 'the text is empty', line: 1, column: 1, empty: true };
  const pos = offset === undefined ? { line: 1, column: 1 } : createLineIndex(text).at(offset);
  return { what, line: pos.line, column: pos.column, empty: false };
}

function syntaxDiagnostic(text: string, fallback: string): Diagnostic {
  const { what, line, column, empty } = jsonSyntaxError(text, fallback);
  if (empty) {
    return {
      code: 'json/syntax',
      severity: 'error',
      message: 'The file is empty; a pack is a JSON object.',
      pointer: '',
      line: 1,
      column: 1,
    };
  }
  return {
    code: 'json/syntax',
    severity: 'error',
    message: `The file is not valid JSON: ${what}.`,
    pointer: '',
    line,
    column,
  };
}

function findDuplicateKeys(text: string, lines: LineIndex): Diagnostic[] {
  const out: Diagnostic[] = [];
  const path: (string | number)[] = [];
  const frames: { seen: Map<string, number>; isArray: boolean; index: number }[] = [];
  const enterValue = () => {
    const top = frames[frames.length - 1];
    if (top?.isArray) path.push(top.index++);
  };
  const leaveValue = () => {
    const top = frames[frames.length - 1];
    if (top) path.pop();
  };
  try {
    visit(
      text,
      {
        onObjectBegin: () => {
          enterValue();
          frames.push({ seen: new Map(), isArray: false, index: 0 });
        },
        onObjectProperty: (name, offset) => {
          const top = frames[frames.length - 1];
          const firstOffset = top.seen.get(name);
          path.push(name);
          if (firstOffset !== undefined) {
            const pointer = toPointer(path);
            const pos = lines.at(offset);
            const firstPos = lines.at(firstOffset);
            out.push({
              code: 'json/duplicate-key',
              severity: 'warning',
              message: `The property "${name}" appears more than once in this object; only the last one counts.`,
              pointer,
              line: pos.line,
              column: pos.column,
              related: [{ pointer, message: 'first occurrence', line: firstPos.line, column: firstPos.column }],
              hint: 'Remove or merge the duplicate property.',
            });
          }
          top.seen.set(name, offset);
        },
        onObjectEnd: () => {
          frames.pop();
          leaveValue();
        },
        onArrayBegin: () => {
          enterValue();
          frames.push({ seen: new Map(), isArray: true, index: 0 });
        },
        onArrayEnd: () => {
          frames.pop();
          leaveValue();
        },
        onLiteralValue: () => {
          const top = frames[frames.length - 1];
          if (top?.isArray) top.index++;
          else if (top) path.pop();
        },
        onSeparator: () => undefined,
      },
      { disallowComments: true },
    );
  } catch {
    /* too deep to walk; the depth rule reports that */
  }
  return out;
}

/**
 * The parser's findings that mean the parsed value is not what the text says, so that the value
 * written again would change the file, each with what writing it again would give and whether the
 * value itself shows it: a property written twice (JSON.parse keeps the last: the first would be
 * dropped, and the value has no trace of it), a number JSON cannot hold (1e400 reads as Infinity,
 * written as null: the value shows Infinity, which every check of it then meets), and a number
 * that does not read as written (12345678901234567890 comes back as 12345678901234567000, a
 * number like any other in the value). One statement for what fmt, fix and unpack refuse to
 * write and what the editor warns of when it opens a file.
 */
export const NOT_AS_WRITTEN: ReadonlyMap<string, { rewritten: string; valueShows: boolean }> = new Map([
  ['json/duplicate-key', { rewritten: 'it would lose the first', valueShows: false }],
  ['json/number-range', { rewritten: 'it would be null', valueShows: true }],
  ['json/number-precision', { rewritten: 'it would be the number it reads as', valueShows: false }],
]);

/**
 * Parses pack text. Returns the value (undefined when the text is not JSON or nests too deep) and
 * diagnostics for syntax, excessive nesting, duplicate property names, and numbers JSON.parse does
 * not read as written (numberFindings); the value is returned with the last two.
 */
export function parseJsonText(input: string): ParsedText {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { source: createSourceText(text), diagnostics: [syntaxDiagnostic(text, e instanceof Error ? e.message : String(e))] };
  }
  const source = createSourceText(text, true);
  const diagnostics: Diagnostic[] = [];
  const m = measure(value);
  if (m.deepPath) {
    diagnostics.push(tooDeep(m.deepPath));
    return { source, diagnostics };
  }
  if (mayHaveDuplicateKeys(text, m.keys)) diagnostics.push(...findDuplicateKeys(text, source.lines));
  else source.uniqueKeys = true;
  if (m.wide) for (const d of numberFindings(value, source)) diagnostics.push(d);
  return { value, source, diagnostics };
}

export function tooDeep(path: (string | number)[]): Diagnostic {
  return {
    code: 'json/too-deep',
    severity: 'error',
    message: `The document nests objects and arrays more than ${MAX_DEPTH} levels deep; no pack needs that, so it is not read further.`,
    pointer: toPointer(path),
  };
}
