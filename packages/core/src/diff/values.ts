// What a changed field was and is, in words: the one wording `setup-pack diff` (text and JSON) and
// the editor's compare view show, so neither restates it.
import { isObj, jsonEqual } from './compare.js';
import type { ValueChange } from './types.js';
import { hasLineBreak, lineBreaks, textLines } from '../json/positions.js';

/** The longest a value is said in full; longer ones are cut with an ellipsis. */
const VALUE_LIMIT = 80;
/** The longest a line of a text is quoted in a summary. */
const LINE_LIMIT = 60;

/** A string quoted as JSON, cut to `limit` characters (by code point) with an ellipsis inside the quotes. */
function quoted(s: string, limit: number): string {
  // Only the start is read: an asset's base64 data may be megabytes long.
  const chars = [...s.slice(0, limit * 2 + 2)];
  return chars.length <= limit ? JSON.stringify(s) : `${JSON.stringify(chars.slice(0, limit - 1).join('')).slice(0, -1)}…"`;
}

/** A value in words: a string quoted, a number, boolean or null as JSON writes it, an object or list as compact JSON; cut to 80 characters. */
export function valueText(v: unknown): string {
  if (typeof v === 'string') return quoted(v, VALUE_LIMIT);
  const json = JSON.stringify(v) ?? String(v);
  const chars = [...json.slice(0, VALUE_LIMIT * 2 + 2)];
  return chars.length <= VALUE_LIMIT ? json : `${chars.slice(0, VALUE_LIMIT - 1).join('')}…`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

type Op = { type: 'eq' | 'del' | 'ins'; line: string; at: number };

/** The edit script of two lists of lines: the common start and end are cut first; the rest by LCS while small, else as one replaced block. */
function lineOps(x: string[], y: string[]): Op[] {
  let s = 0;
  while (s < x.length && s < y.length && x[s] === y[s]) s++;
  let e = 0;
  while (e < x.length - s && e < y.length - s && x[x.length - 1 - e] === y[y.length - 1 - e]) e++;
  const xm = x.slice(s, x.length - e);
  const ym = y.slice(s, y.length - e);
  const ops: Op[] = [];
  if (xm.length * ym.length > 1_000_000) {
    xm.forEach((line, i) => ops.push({ type: 'del', line, at: s + i }));
    ym.forEach((line, j) => ops.push({ type: 'ins', line, at: s + j }));
    return ops;
  }
  const d = Array.from({ length: xm.length + 1 }, () => new Uint32Array(ym.length + 1));
  for (let i = xm.length - 1; i >= 0; i--)
    for (let j = ym.length - 1; j >= 0; j--) d[i][j] = xm[i] === ym[j] ? d[i + 1][j + 1] + 1 : Math.max(d[i + 1][j], d[i][j + 1]);
  let i = 0;
  let j = 0;
  while (i < xm.length || j < ym.length) {
    if (i < xm.length && j < ym.length && xm[i] === ym[j]) {
      ops.push({ type: 'eq', line: xm[i], at: s + j });
      i++;
      j++;
    } else if (j < ym.length && (i === xm.length || d[i][j + 1] >= d[i + 1][j])) ops.push({ type: 'ins', line: ym[j], at: s + j++ });
    else ops.push({ type: 'del', line: xm[i], at: s + i++ });
  }
  return ops;
}

/**
 * What changed between two texts of several lines, in words: how many lines changed, were added
 * and removed, and the first change quoted (`2 lines changed, 1 added (line 3: "Hi" → "Hello")`).
 * Lines are numbered from 1, in the new text (a removed line: in the old one).
 */
export function linesSummary(a: string, b: string): string {
  // Lines as validation counts them (core's line index): LF, CR and CR LF each end one.
  const x = textLines(a);
  const y = textLines(b);
  const ops = lineOps(x, y);
  let changed = 0;
  let added = 0;
  let removed = 0;
  let first: string | undefined;
  for (let k = 0; k < ops.length;) {
    if (ops[k].type === 'eq') {
      k++;
      continue;
    }
    const dels: Op[] = [];
    const inss: Op[] = [];
    for (; k < ops.length && ops[k].type !== 'eq'; k++) (ops[k].type === 'del' ? dels : inss).push(ops[k]);
    const paired = Math.min(dels.length, inss.length);
    changed += paired;
    removed += dels.length - paired;
    added += inss.length - paired;
    if (first === undefined) {
      first = paired
        ? `line ${inss[0].at + 1}: ${quoted(dels[0].line, LINE_LIMIT)} → ${quoted(inss[0].line, LINE_LIMIT)}`
        : inss.length
          ? `line ${inss[0].at + 1} added: ${quoted(inss[0].line, LINE_LIMIT)}`
          : `line ${dels[0].at + 1} removed: ${quoted(dels[0].line, LINE_LIMIT)}`;
    }
  }
  if (first === undefined) {
    const now = lineBreaks(b);
    return now !== undefined && now !== 'mixed' && now !== lineBreaks(a)
      ? `the same lines, with ${now} line endings`
      : 'the same lines, with other line endings';
  }
  const parts = [changed && 'changed', added && 'added', removed && 'removed'].filter((p): p is string => Boolean(p));
  const counts = { changed, added, removed } as Record<string, number>;
  const said = parts.map((p, n) => (n === 0 ? `${plural(counts[p], 'line')} ${p}` : `${counts[p]} ${p}`)).join(', ');
  return `${said} of ${plural(y.length, 'line')} (${first})`;
}

/** The text of a rich-text document (ProseMirror/TipTap JSON): each block whose content holds text is a line. */
function richText(doc: unknown): string {
  const lines: string[] = [];
  const walk = (n: unknown, depth: number): void => {
    if (!isObj(n) || depth > 64 || !Array.isArray(n.content)) return;
    if (n.content.some((c) => isObj(c) && typeof c.text === 'string'))
      lines.push(
        n.content.map((c) => (isObj(c) && typeof c.text === 'string' ? c.text : isObj(c) && c.type === 'hardBreak' ? ' ' : '')).join(''),
      );
    else for (const c of n.content) walk(c, depth + 1);
  };
  walk(doc, 0);
  return lines.join('\n');
}

/** A reference in words: its type and id, and its name when it has one (`tag "hot" ("Hot lead")`). */
const referenceText = (r: Record<string, unknown>) =>
  `${String(r.type)} ${valueText(r.id)}${typeof r.name === 'string' ? ` (${valueText(r.name)})` : ''}`;

/** What changed in an automation's references, matched by type and id: added, removed, and changed (name, detail). */
function referencesSummary(a: unknown[], b: unknown[]): string | undefined {
  if (![...a, ...b].every((r) => isObj(r) && typeof r.type === 'string' && typeof r.id === 'string')) return undefined;
  const id = (r: Record<string, unknown>) => `${String(r.type)}\0${String(r.id)}`;
  const old = new Map((a as Record<string, unknown>[]).map((r) => [id(r), r]));
  const now = new Map((b as Record<string, unknown>[]).map((r) => [id(r), r]));
  const added = [...now].filter(([k]) => !old.has(k)).map(([, r]) => referenceText(r));
  const removed = [...old].filter(([k]) => !now.has(k)).map(([, r]) => referenceText(r));
  const changed = [...now]
    .filter(([k, r]) => old.has(k) && !jsonEqual(old.get(k), r))
    .map(([k, r]) => {
      const o = old.get(k)!;
      const keys = [...new Set([...Object.keys(o), ...Object.keys(r)])].filter((f) => f !== 'type' && f !== 'id' && !jsonEqual(o[f], r[f]));
      return `${String(r.type)} ${valueText(r.id)} ${keys.map((f) => `${f} ${o[f] === undefined ? 'set to ' : `${valueText(o[f])} → `}${r[f] === undefined ? '(none)' : valueText(r[f])}`).join(', ')}`;
    });
  const parts = [
    added.length && `added ${added.join(', ')}`,
    removed.length && `removed ${removed.join(', ')}`,
    changed.length && `changed ${changed.join(', ')}`,
  ].filter((p): p is string => Boolean(p));
  return parts.length ? parts.join('; ') : 'the same references, in another order';
}

/**
 * A field that differs. A text of several lines (a template's body, a pack's description) is said
 * by its lines (linesSummary), a rich-text document by its text, an automation's references by
 * which were added, removed or changed; any other value is given before and after as it is (words
 * for it: describeValueChange, valueText), a side that lacks the field having none.
 */
export function valueChange(field: string, before: unknown, after: unknown): ValueChange {
  let summary: string | undefined;
  if (typeof before === 'string' && typeof after === 'string' && (hasLineBreak(before) || hasLineBreak(after)))
    summary = linesSummary(before, after);
  else if (field === 'richTextDoc' && isObj(before) && isObj(after)) {
    const x = richText(before);
    const y = richText(after);
    summary =
      x === y
        ? 'the same text, formatted otherwise'
        : `its text: ${hasLineBreak(x) || hasLineBreak(y) ? linesSummary(x, y) : `${quoted(x, VALUE_LIMIT)} → ${quoted(y, VALUE_LIMIT)}`}`;
  } else if (field === 'references' && Array.isArray(before) && Array.isArray(after)) summary = referencesSummary(before, after);
  if (summary !== undefined) return { field, summary };
  return { field, ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }) };
}

/** A ValueChange as one line: `subject: "Hi" → "Hello"`, `author: set to "Ann"`, `body: 1 line changed of 12 lines (…)`. */
export function describeValueChange(v: ValueChange): string {
  if (v.summary !== undefined) return `${v.field}: ${v.summary}`;
  if (v.before === undefined) return `${v.field}: set to ${v.after === undefined ? '(none)' : valueText(v.after)}`;
  if (v.after === undefined) return `${v.field}: removed (was ${valueText(v.before)})`;
  return `${v.field}: ${valueText(v.before)} → ${valueText(v.after)}`;
}
