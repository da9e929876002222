// Core's fixes (fixedPack, what `setup-pack fix` applies) as edits of the text. fixedPack returns
// a copy that shares every part it did not change, so walking the two side by side by identity
// finds exactly what it changed: a value set, a property added, a property name moved. Each
// becomes the smallest edit of the text that says it, so a quick fix leaves the rest of the file
// (its layout, its other values) as the author wrote it.
import { escapeToken, fixedPack, mayBeFixed, parsePointer, type Base64Hasher, type Diagnostic, type SourceText } from '@setup-pack/core';
import { modify, type FormattingOptions } from 'jsonc-parser';
import type { FixEdit } from './model.js';
import { Spots, textPlacer, type Placer } from './spans.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const own = (o: Obj, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** What fixedPack changed at one place. */
type Change =
  | { op: 'set'; pointer: string; value: unknown }
  | { op: 'rename'; pointer: string; to: string }
  | { op: 'add'; pointer: string; key: string; value: unknown };

/**
 * Where a fix's changes are written. A pack file: the pack's own pointers in its text. A source
 * folder: each pointer of the built pack in the file the build read it from (the folder's placer),
 * and named by its pointer in that file, as the folder's findings name it.
 */
export interface FixTarget {
  placer: Placer;
  /** The pointer a finding at this place names; undefined where no file holds it as JSON (a body file). */
  pointerOf(pointer: string): string | undefined;
  /** For a property added at `pointer`: the text it is written in, its path there, and the file. */
  insertion(pointer: string): { text: string; path: (string | number)[]; file?: number } | undefined;
}

/** The fixes of `value` (read from `source`) as edits, or none when no finding is one a fix addresses. */
export function fixEdits(value: unknown, source: SourceText, diagnostics: readonly Diagnostic[], hash: Base64Hasher): FixEdit[] {
  if (!diagnostics.some(mayBeFixed)) return [];
  return targetEdits(value, hash, {
    placer: textPlacer(source),
    pointerOf: (pointer) => pointer,
    insertion: (pointer) => {
      const path = pathOf(pointer, value);
      return path && { text: source.text, path };
    },
  });
}

/** The fixes of a pack, written where `target` says (asked once a finding may be fixed: mayBeFixed). */
export function targetEdits(value: unknown, hash: Base64Hasher, target: FixTarget): FixEdit[] {
  const { pack: fixed } = fixedPack(value, hash);
  if (fixed === value) return [];
  const changes: Change[] = [];
  compare(value, fixed, '', changes);
  return toEdits(changes, target);
}

function compare(a: unknown, b: unknown, pointer: string, out: Change[]): void {
  if (a === b) return;
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (let i = 0; i < a.length; i++) compare(a[i], b[i], `${pointer}/${i}`, out);
    return;
  }
  if (isObj(a) && isObj(b) && compareObjects(a, b, pointer, out)) return;
  out.push({ op: 'set', pointer, value: b });
}

/** Objects with the same keys, some renamed in place or some added; false for any other change. */
function compareObjects(a: Obj, b: Obj, pointer: string, out: Change[]): boolean {
  const ak = Object.keys(a);
  const bk = Object.keys(b);
  const renamedInPlace = ak.length === bk.length && ak.every((k, i) => k === bk[i] || (!own(b, k) && !own(a, bk[i])));
  if (!renamedInPlace && !ak.every((k) => own(b, k))) return false;
  ak.forEach((k, i) => {
    const at = `${pointer}/${escapeToken(k)}`;
    const to = renamedInPlace ? bk[i] : k;
    if (to !== k) out.push({ op: 'rename', pointer: at, to });
    compare(a[k], b[to], at, out);
  });
  if (!renamedInPlace)
    for (const k of bk) if (!own(a, k)) out.push({ op: 'add', pointer: `${pointer}/${escapeToken(k)}`, key: k, value: b[k] });
  return true;
}

function toEdits(changes: readonly Change[], target: FixTarget): FixEdit[] {
  const spots = new Spots();
  const handles = changes.map((c) => (c.op === 'add' ? -1 : spots.want(c.pointer, c.op === 'rename')));
  const spans = spots.place(target.placer);
  const out: FixEdit[] = [];
  changes.forEach((c, i) => {
    const pointer = target.pointerOf(c.pointer);
    if (pointer === undefined) return;
    if (c.op === 'add') {
      out.push(...insertion(c, pointer, target));
      return;
    }
    const span = spans[handles[i]];
    if (!span) return;
    const last = parsePointer(c.pointer).pop() ?? '';
    if (c.op === 'set') out.push({ pointer, span, newText: JSON.stringify(c.value), title: `Set ${last} to ${shown(c.value)}` });
    else out.push({ pointer, span, newText: JSON.stringify(c.to), title: `Rename ${last} to ${c.to}` });
  });
  return out;
}

/** A property added, written by jsonc-parser's modify in the text's own indentation. */
function insertion(c: Extract<Change, { op: 'add' }>, pointer: string, target: FixTarget): FixEdit[] {
  const at = target.insertion(c.pointer);
  if (!at) return [];
  return modify(at.text, at.path, c.value, { formattingOptions: formattingOf(at.text) }).map((e) => ({
    pointer,
    span:
      at.file === undefined ? { start: e.offset, end: e.offset + e.length } : { start: e.offset, end: e.offset + e.length, file: at.file },
    newText: e.content,
    title: `Add ${c.key}: ${shown(c.value)}`,
  }));
}

/** A pointer as jsonc-parser's path: array indexes as numbers (read from the value it points into). */
export function pathOf(pointer: string, value: unknown): (string | number)[] | undefined {
  const path: (string | number)[] = [];
  let v: unknown = value;
  for (const token of parsePointer(pointer)) {
    if (Array.isArray(v)) {
      path.push(Number(token));
      v = v[Number(token)];
    } else {
      path.push(token);
      v = isObj(v) && own(v, token) ? v[token] : undefined;
    }
  }
  return path;
}

/** The indentation and line break the text uses (its first indented line), for text a fix adds. */
function formattingOf(text: string): FormattingOptions {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
  return {
    insertSpaces: !indent.startsWith('\t'),
    tabSize: indent.startsWith('\t') ? 1 : indent.length,
    eol: text.includes('\r\n') ? '\r\n' : '\n',
  };
}

const shown = (v: unknown): string => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 24 ? `${s.slice(0, 22)}…${s.endsWith('"') ? '"' : ''}` : s;
};
