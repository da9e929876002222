// A pack file's text: decoded as UTF-8, or refused with its encoding named when it is UTF-16 or
// UTF-32 (core's encodingProblem, the same words the CLI uses), rather than opened as invalid JSON.
import {
  count,
  describePointer,
  encodingProblem,
  NOT_AS_WRITTEN,
  numbersNotKept,
  parseJsonText,
  parsePointer,
  plural,
  propertyFindings,
  readNumber,
  resolvePointer,
  sortDiagnostics,
  tokenIndex,
  toPointer,
  utf8Problem,
  validatePack,
  type Diagnostic,
  type SourceText,
} from '@setup-pack/core';
import { sameEach } from './json.js';
import type { PackValue } from './pack.js';

export async function packFileText(file: Blob): Promise<{ text: string } | { error: string }> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const wrong = encodingProblem(bytes.subarray(0, 4)) ?? utf8Problem(bytes);
  // TextDecoder drops a UTF-8 byte order mark, as File.text() does.
  return wrong ? { error: wrong } : { text: new TextDecoder().decode(bytes) };
}

/** Parses pack text; returns the value or the first problem that stops editing. */
export function parsePackText(text: string): { value?: PackValue; error?: string } {
  try {
    const v = JSON.parse(text) as unknown;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return { value: v as PackValue };
  } catch {
    /* fall through: core's parser says where the syntax breaks */
  }
  const r = validatePack(text);
  const v = r.value;
  if (v === undefined || v === null || typeof v !== 'object' || Array.isArray(v)) {
    const first = r.diagnostics[0];
    return { error: first ? `${first.message}${first.line ? ` (line ${first.line})` : ''}` : 'Not a pack.' };
  }
  return { value: v as PackValue };
}

/**
 * A number of an opened file that the editor's copy holds as another (core's json/number-precision:
 * `1e-400` reads as 0, `0.1000000000000000055511151231257827` as 0.1, an integer beyond 2^53
 * rounded): its finding, placed in the file, the number as the file writes it and as it reads.
 */
export interface NumberNotKept {
  finding: Diagnostic;
  written: string;
  reads: number;
}

/**
 * What opening a file loses of its text: core's findings (for the banner) and, of them, the
 * numbers and the properties written more than once (core's json/duplicate-key: JSON.parse keeps
 * the last), for the panel and export.
 */
export interface LostOnOpen {
  findings: Diagnostic[];
  numbers: NumberNotKept[];
  duplicates: DuplicateNotKept[];
}

/**
 * A property an opened file writes more than once (core's json/duplicate-key, at the repeat, its
 * `related` the one before): the editor's copy holds the last value. `reads`: that value when it is
 * not an object or array.
 */
export interface DuplicateNotKept {
  finding: Diagnostic;
  reads?: string | number | boolean | null;
}

/**
 * What the editor's copy of a pack cannot keep of its file's text: the editor holds the value
 * JSON.parse makes (the last of a repeated property, a number read as another), so the text's
 * findings about these are gone once the file is open. Core's own findings: the parser's that the
 * value shows no trace of (NOT_AS_WRITTEN; a number beyond range stays in the copy as Infinity,
 * where validation reports it), and core's numbersNotKept (a fraction or a number near 0 that
 * reads as another, which fmt and fix refuse to write again). In the text's order. One parse more,
 * at open only.
 */
export function lostOnOpen(text: string): LostOnOpen {
  return lostOf(parseJsonText(text));
}

function lostOf(parsed: ReturnType<typeof parseJsonText>): LostOnOpen {
  const findings = parsed.diagnostics.filter((d) => NOT_AS_WRITTEN.get(d.code)?.valueShows === false);
  if (parsed.value !== undefined) findings.push(...numbersNotKept(parsed.source));
  sortDiagnostics(findings);
  const numbers: NumberNotKept[] = [];
  const duplicates: DuplicateNotKept[] = [];
  for (const finding of findings) {
    if (finding.code === DUPLICATE) {
      const reads = resolvePointer(parsed.value, finding.pointer).value;
      duplicates.push(reads !== null && typeof reads === 'object' ? { finding } : { finding, reads: reads as DuplicateNotKept['reads'] });
    }
    if (finding.code !== PRECISION) continue;
    const reads = resolvePointer(parsed.value, finding.pointer).value;
    const written = writtenText(parsed.source, finding);
    if (typeof reads === 'number' && written !== undefined) numbers.push({ finding, written, reads });
  }
  return { findings, numbers, duplicates };
}

/** The text a finding's range covers (a number as its file writes it), when it has one. */
function writtenText(source: SourceText, finding: Diagnostic): string | undefined {
  if (finding.line === undefined || finding.endLine === undefined) return undefined;
  const at = (line: number, column: number) => source.lines.lineStart(line) + column - 1;
  return source.text.slice(at(finding.line, finding.column!), at(finding.endLine, finding.endColumn!));
}

/**
 * What the editor cannot keep of text it is handed to take in (JSON typed into a field, pasted
 * blocks), in the text's order: lostOnOpen's findings and, as well, a number beyond a float's
 * range (core's json/number-range: `1e400` would be Infinity, installed and exported as null),
 * which a file keeps in its findings once open but a field or a paste can simply refuse, as a
 * number field refuses it. Each number with its text as written.
 */
export function textNotKept(text: string): { findings: Diagnostic[]; written: Map<Diagnostic, string> } {
  const parsed = parseJsonText(text);
  const lost = lostOf(parsed);
  const written = new Map(lost.numbers.map((n) => [n.finding, n.written]));
  const range = parsed.value === undefined ? [] : parsed.diagnostics.filter((d) => d.code === RANGE);
  if (range.length === 0) return { findings: lost.findings, written };
  for (const d of range) {
    const w = writtenText(parsed.source, d);
    if (w !== undefined) written.set(d, w);
  }
  return { findings: sortDiagnostics([...lost.findings, ...range]), written };
}

const PRECISION = 'json/number-precision';
const RANGE = 'json/number-range';
const DUPLICATE = 'json/duplicate-key';

/**
 * What a text says that the editor cannot keep as written, said of `what` ("This file", "the
 * copied text"): the first place, in core's words, and how many more. Undefined when nothing.
 */
export function notKeptSentence(findings: readonly Diagnostic[], what: string): string | undefined {
  const first = findings[0];
  if (!first) return undefined;
  const more = findings.length > 1 ? ` Also ${plural(findings.length - 1, 'other place')}.` : '';
  return `${what} says what the editor cannot keep as written: line ${first.line}: ${first.message}${more}`;
}

/**
 * Why text the editor is handed (pasted blocks, JSON typed or pasted into a field) is not taken:
 * notKeptSentence with the first finding's hint (core's: "Write 0 if that is what it means; …").
 * The text is still where it came from, so refusing it loses nothing, where reading it would
 * change it without a word. Undefined when nothing is lost.
 */
export function notKeptRefusal(findings: readonly Diagnostic[], what: string): string | undefined {
  const said = notKeptSentence(findings, what);
  return said && `${said}${findings[0].hint ? ` ${findings[0].hint}` : ''}`;
}

/**
 * Why JSON typed or pasted into a field is not applied (notKeptRefusal over textNotKept), or
 * undefined. `at`: the field's pointer in the pack, so a number is named where it would be
 * (core's readNumber for that place: "brand.accent is the number 1e-400, …"), as the diagnostics
 * panel names it in a file that writes it there.
 */
export function jsonTextNotKept(text: string, at = ''): string | undefined {
  const lost = textNotKept(text);
  const findings =
    at === ''
      ? lost.findings
      : lost.findings.map((d) => {
          const n = lost.written.get(d);
          const message = n !== undefined ? readNumber(n, at + d.pointer)?.finding?.message : undefined;
          return message ? { ...d, pointer: at + d.pointer, message } : d;
        });
  const refused = notKeptRefusal(findings, 'this JSON');
  return refused && `Not applied: ${refused}`;
}

/** What a field's text reads as: the value it sets (undefined removes the field), or why it is not applied. */
export type TextRead = { value: unknown } | { error: string };

/**
 * What the text typed into a number field sets: nothing when it is emptied (the field is removed),
 * the number when core's readNumber reads it as written; else why it is not applied, in core's
 * words: a number the editor would not keep as written (`1e-400` reads as 0, `1e400` would be
 * null, `9007199254740993` reads as 9007199254740992), the same finding a file saying it gets,
 * named by `pointer` (the field's place), or text that is not a number at all; with `rule`, a
 * number of a type the schema's property does not allow (core's schema/type finding at `pointer`).
 * `notANumber` says the last in the field's own words (a block field's "enter a whole number of days").
 */
export function numberTextRead(
  text: string,
  pointer: string,
  rule?: SchemaProperty,
  notANumber = 'Not applied: enter a number, as JSON writes one (12, -0.5, 2.5e-3).',
): TextRead {
  const t = text.trim();
  if (t === '') return { value: undefined };
  const read = readNumber(t, pointer);
  if (!read) return { error: notANumber };
  if (read.finding) return { error: `Not applied: ${read.finding.message}${read.finding.hint ? ` ${read.finding.hint}` : ''}` };
  // A number of a type the schema does not allow there (12.5 where it says integer) is no value
  // the field can hold either: refused in the schema's words. Its limits are findings, as usual.
  const wrong = rule && propertyFindings(rule.schema, rule.property, read.value, pointer).find((d) => d.code === 'schema/type');
  if (wrong) return { error: `Not applied: ${wrong.message}` };
  return { value: read.value };
}

/** The published schema and property a number field sets (`stage`, `probability`), whose type it refuses others than. */
export interface SchemaProperty {
  schema: string;
  property: string;
}

/** The banner's sentence for what opening a file lost (lostOnOpen), or undefined when it lost nothing. */
export function lostOnOpenBanner(lost: LostOnOpen): string | undefined {
  const said = notKeptSentence(lost.findings, 'This file');
  if (!said) return undefined;
  const after =
    lost.numbers.length || lost.duplicates.length
      ? ' Editing keeps the pack as it reads; the findings list each place, and exporting an edited pack asks before writing it as it reads.'
      : ' Editing and exporting keep the pack as it reads.';
  return `${said}${after}`;
}

/**
 * The numbers the pack still holds as the opened file's text did not say them: each whose place
 * still holds the number it read as. An author who typed another value there, or removed it, has
 * said what it is. `before`: the answer for an earlier pack, returned when this one's is the same.
 */
export function numbersStillRead(
  pack: PackValue,
  numbers: readonly NumberNotKept[],
  before?: readonly NumberNotKept[],
): readonly NumberNotKept[] {
  return stillHeld(pack, numbers, before);
}

/**
 * The question export asks before writing numbers as the editor reads them (`numbers`, those
 * numbersStillRead finds in an edited pack): each as written, where, and as it would be written
 * (JSON.stringify's spelling, as the export writes it). Undefined when there are none.
 */
export function numbersRewritten(numbers: readonly NumberNotKept[], shown = 10): string | undefined {
  if (!numbers.length) return undefined;
  const lines = numbers
    .slice(0, shown)
    .map((n) => `${n.written} at ${describePointer(n.finding.pointer)} will be written as ${JSON.stringify(n.reads)}`);
  if (numbers.length > shown) lines.push(`and ${count(numbers.length - shown)} more`);
  return `The file this pack was opened from has ${plural(numbers.length, 'number')} that the editor reads as another, and exporting writes the number it reads:\n${lines.join('\n')}\nTo write another, type it in its field; a string keeps every digit.`;
}

/**
 * The properties the opened file writes more than once (LostOnOpen's `duplicates`) whose place in
 * the pack still holds the value they read as: exporting an edited pack drops their earlier values.
 * Another value typed there, or the property removed, is the author saying what it is; an object or
 * array is asked about while it is there, since an edit inside it says nothing of the earlier one.
 * `before`: the answer for an earlier pack, returned when this one's is the same.
 */
export function duplicatesStillThere(
  pack: PackValue,
  duplicates: readonly DuplicateNotKept[],
  before?: readonly DuplicateNotKept[],
): readonly DuplicateNotKept[] {
  return stillHeld(pack, duplicates, before);
}

/**
 * The one rule of numbersStillRead and duplicatesStillThere: what the file lost is still in the pack
 * while its place is there and holds the value it read as (`reads`; none for an object or array,
 * held while its place is there). `before`, the same array, when the answer is the same.
 */
function stillHeld<T extends { finding: Diagnostic; reads?: unknown }>(
  pack: PackValue,
  lost: readonly T[],
  before?: readonly T[],
): readonly T[] {
  const held = lost.length
    ? lost.filter((d) => {
        const at = resolvePointer(pack, d.finding.pointer);
        return at.found && (d.reads === undefined || at.value === d.reads);
      })
    : lost;
  return before && sameEach(before, held, () => false) ? before : held;
}

/**
 * Where the value at `pointer` in `before` is in `after`, one edit later: the pointer of the same
 * place, undefined when the edit removed it. The pack is edited as immutable values, so what an
 * edit did not touch is the same object in both: an array item that is still there (another item
 * before it removed, items moved) is found by identity; one the edit changed or a number is placed
 * by the items around it that the edit left (the same ones before it, or after it); an item among
 * those the edit replaced, in an array whose length changed, is taken as removed.
 */
export function followPointer(before: unknown, after: unknown, pointer: string): string | undefined {
  if (before === after) return pointer;
  const tokens = parsePointer(pointer);
  const path: (string | number)[] = [];
  let a: unknown = before;
  let b: unknown = after;
  for (let t = 0; t < tokens.length; t++) {
    if (a === b) return toPointer([...path, ...tokens.slice(t)]);
    const token = tokens[t];
    if (Array.isArray(a)) {
      if (!Array.isArray(b)) return undefined;
      const i = tokenIndex(token);
      if (i < 0 || i >= a.length) return undefined;
      const j = placeInArray(a, b, i);
      if (j === undefined) return undefined;
      path.push(j);
      a = a[i];
      b = b[j];
    } else if (
      a !== null &&
      typeof a === 'object' &&
      b !== null &&
      typeof b === 'object' &&
      !Array.isArray(b) &&
      Object.prototype.hasOwnProperty.call(b, token)
    ) {
      path.push(token);
      a = (a as Record<string, unknown>)[token];
      b = (b as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return toPointer(path);
}

/** Where item `i` of `a` is in `b` (followPointer's rule for one array), or undefined when it is gone. */
export function placeInArray(a: readonly unknown[], b: readonly unknown[], i: number): number | undefined {
  const item = a[i];
  if (b[i] === item && a.length === b.length) return i;
  if (item !== null && typeof item === 'object') {
    const j = b.indexOf(item);
    if (j >= 0) return j;
  }
  // The items the edit left on either side of what it changed.
  const most = Math.min(a.length, b.length);
  let same = 0;
  while (same < most && a[same] === b[same]) same++;
  let end = 0;
  while (end < most - same && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  if (i < same) return i;
  if (i >= a.length - end) return i - a.length + b.length;
  return a.length === b.length ? i : undefined;
}

/**
 * What the opened file lost (`lost`, placed in `before`), placed in `after`, one edit later
 * (followPointer): each finding at its item's new place, its message naming that place (a number's
 * is core's readNumber's for its new pointer), or left out when its place is gone. The same array,
 * and the same entries, where nothing moved, so an edit that moves nothing changes no finding.
 */
export function followLost<T extends { finding: Diagnostic; written?: string }>(
  before: unknown,
  after: unknown,
  lost: readonly T[],
): readonly T[] {
  if (before === after || !lost.length) return lost;
  let changed = false;
  const out: T[] = [];
  for (const d of lost) {
    const pointer = followPointer(before, after, d.finding.pointer);
    if (pointer === d.finding.pointer) {
      out.push(d);
      continue;
    }
    changed = true;
    if (pointer === undefined) continue;
    const message = d.written !== undefined ? (readNumber(d.written, pointer)?.finding?.message ?? d.finding.message) : d.finding.message;
    const related = d.finding.related?.map((r) => (r.pointer === d.finding.pointer ? { ...r, pointer } : r));
    out.push({ ...d, finding: { ...d.finding, pointer, message, ...(related ? { related } : {}) } });
  }
  return changed ? out : lost;
}

/**
 * The question export asks before writing an edited pack whose file wrote properties more than
 * once (`duplicates`, those duplicatesStillThere finds): each property, where, the line whose value
 * is written and the lines whose values are dropped. Undefined when there are none.
 */
export function duplicatesDropped(duplicates: readonly DuplicateNotKept[], shown = 10): string | undefined {
  // One finding per repeat, at the repeat, its `related` the one before.
  const byPlace = new Map<string, { kept: number; dropped: number[]; times: number }>();
  for (const { finding } of duplicates) {
    const place = byPlace.get(finding.pointer) ?? { kept: 0, dropped: [], times: 1 };
    const earlier = finding.related?.[0]?.line;
    if (earlier !== undefined && !place.dropped.includes(earlier)) place.dropped.push(earlier);
    place.kept = Math.max(place.kept, finding.line ?? 0);
    place.times++;
    byPlace.set(finding.pointer, place);
  }
  if (!byPlace.size) return undefined;
  const places = [...byPlace];
  const lines = places.slice(0, shown).map(([pointer, { kept, dropped, times }]) => {
    const at = dropped.length > 1 ? `lines ${dropped.slice(0, -1).join(', ')} and ${dropped[dropped.length - 1]}` : `line ${dropped[0]}`;
    return `${describePointer(pointer)} (written ${times} times): the last, at line ${kept}, is written; the earlier, at ${at}, ${times > 2 ? 'are' : 'is'} dropped`;
  });
  if (places.length > shown) lines.push(`and ${count(places.length - shown)} more`);
  return `The file this pack was opened from writes ${plural(places.length, 'property', 'properties')} more than once; the editor keeps the last of each, and exporting writes only that:\n${lines.join('\n')}\nTo keep an earlier value, copy it from the file into its field.`;
}
