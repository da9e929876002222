// Human output: `file:line:col  severity  message  code`, a code frame, hints, and a summary.
// Repeats of one code and one message shape are folded into one entry with a count and their
// first positions (--expand prints every one), so 40,000 copies of one info read as one line.
import { count, createLineIndex, groupFindings, plural, printable, quotedParts, type Diagnostic, type LineIndex } from '@setup-pack/core';
import type { Colors } from '../lib/color.js';
import { codeFrame } from './codeframe.js';
import { summaryLine, totals, visible, type FileReport, type ReportOptions } from './model.js';

/** A group with more findings than this is folded. */
export const FOLD_AFTER = 3;
/** Positions listed for a folded group. */
const POSITIONS_SHOWN = 5;

function severityLabel(d: Diagnostic, c: Colors): string {
  return d.severity === 'error' ? c.red(c.bold('error')) : d.severity === 'warning' ? c.yellow(c.bold('warning')) : c.blue(c.bold('info'));
}

function finding(r: FileReport, d: Diagnostic, lines: LineIndex | undefined, c: Colors): string {
  const out: string[] = [];
  // Messages, hints, pointers and paths can hold a pack's own text: printable keeps a terminal
  // (or a CI log) from acting on any control character in it.
  const where = `${printable(r.path)}${d.line !== undefined ? `:${d.line}:${d.column ?? 1}` : ''}`;
  out.push(`${c.bold(where)} ${severityLabel(d, c)} ${printable(d.message)} ${c.dim(d.code)}`);
  if (d.line !== undefined && lines) {
    const frame = codeFrame(lines, d.line, d.column ?? 1, d.endLine, d.endColumn, c);
    if (frame) out.push(frame);
  } else if (d.pointer) out.push(`  ${c.dim(`at ${printable(d.pointer)}`)}`);
  for (const rel of d.related ?? [])
    out.push(
      `  ${c.cyan('note:')} ${printable(rel.message)}${rel.line !== undefined ? ` at ${printable(r.path)}:${rel.line}:${rel.column ?? 1}` : rel.pointer ? ` at ${printable(rel.pointer)}` : ''}`,
    );
  if (d.hint) out.push(`  ${c.cyan('hint:')} ${printable(d.hint)}`);
  return out.join('\n') + '\n';
}

function place(d: Diagnostic): string {
  return d.line !== undefined ? `${d.line}:${d.column ?? 1}` : printable(d.pointer) || '/';
}

/**
 * The repeats a folded group lists after its first finding: each one's position, and, where the
 * repeats differ from the first in a quoted part of the message (the missing field's name, the
 * node's id), those parts — `: "packId" at 1:1, "name" at 1:1` rather than `at 1:1, 1:1`.
 */
function repeats(printed: readonly Diagnostic[]): string {
  const first = quotedParts(printed[0].message);
  const parts = printed.slice(1).map((d) => quotedParts(d.message));
  const differ = first.map((p, i) => parts.some((q) => q[i] !== p));
  if (!differ.some(Boolean)) return ` at ${printed.slice(1).map(place).join(', ')}`;
  return `: ${printed
    .slice(1)
    .map((d, k) => `${printable(parts[k].filter((_, i) => differ[i]).join(' '))} at ${place(d)}`)
    .join(', ')}`;
}

export function* prettyChunks(reports: readonly FileReport[], options: ReportOptions, c: Colors): Generator<string> {
  let folded = 0;
  for (const r of reports) {
    const failure = r.readError ?? r.writeError;
    if (failure) {
      yield `${c.bold(printable(r.path))}: ${c.red(c.bold('error'))} ${printable(failure)}\n\n`;
      continue;
    }
    const list = visible(r, options.quiet);
    if (!list.length) continue;
    const lines = r.lines ?? (r.text !== undefined ? createLineIndex(r.text) : undefined);
    if (options.expand) {
      r.place?.(list);
      for (const d of list) yield finding(r, d, lines, c) + '\n';
      continue;
    }
    // What each group prints: all of a few, else the first in full and a few more by position.
    const groups = groupFindings(list).map((g) => ({
      g,
      printed: g.items.length <= FOLD_AFTER ? g.items : g.items.slice(0, 1 + POSITIONS_SHOWN),
    }));
    r.place?.(groups.flatMap((x) => x.printed));
    for (const { g, printed } of groups) {
      if (printed === g.items) {
        for (const d of g.items) yield finding(r, d, lines, c) + '\n';
        continue;
      }
      const more = g.items.length - 1;
      folded += more;
      const shown = repeats(printed);
      const rest = more - printed.length + 1;
      yield (
        finding(r, printed[0], lines, c) +
        `  ${c.cyan('and')} ${count(more)} more like it (${g.code})${shown}${rest > 0 ? `, and ${count(rest)} more` : ''}\n\n`
      );
    }
  }
  const t = totals(reports);
  const clean = !t.errors && !t.unreadable && !t.unwritable && !(options.maxWarnings !== undefined && t.warnings > options.maxWarnings);
  if (folded) yield c.dim(`${plural(folded, 'repeated finding')} folded: --expand prints every one, --format json lists them all.`) + '\n';
  const line = summaryLine(t, options.maxWarnings);
  yield (clean ? c.green(`✔ ${line}`) : c.red(c.bold(`✖ ${line}`))) + '\n';
}

export function formatPretty(reports: readonly FileReport[], options: ReportOptions, c: Colors): string {
  return [...prettyChunks(reports, options, c)].join('');
}
