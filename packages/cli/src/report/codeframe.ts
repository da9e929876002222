// A code frame: the lines around a position with a caret under the spot. Long lines (a minified
// pack is one line) are cut to a window around the column. Lines come from the file's line index,
// built once per file, so a frame costs the lines it shows, not the file.
import { printableLine, type LineIndex } from '@setup-pack/core';
import type { Colors } from '../lib/color.js';

const WIDTH = 100;

export function codeFrame(
  lines: LineIndex,
  line: number,
  column: number,
  endLine: number | undefined,
  endColumn: number | undefined,
  c: Colors,
  contextLines = 1,
): string {
  if (line < 1 || line > lines.lineCount) return '';
  const first = Math.max(1, line - contextLines);
  const last = Math.min(lines.lineCount, line + contextLines);
  const gutter = String(last).length;
  // Window of the target line, reused for its neighbours so columns line up.
  const target = lines.lineText(line);
  let start = 0;
  if (target.length > WIDTH && column > WIDTH - 20) start = Math.min(column - 1 - 30, target.length - WIDTH);
  start = Math.max(0, start);
  const cut = (s: string) => {
    // One visible character for each tab or control character, so the caret still lines up.
    const body = printableLine(s.slice(start, start + WIDTH));
    return (start > 0 ? '…' : '') + body + (s.length > start + WIDTH ? '…' : '');
  };
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    const mark = n === line ? c.red('>') : ' ';
    out.push(`${mark} ${c.dim(`${String(n).padStart(gutter)} |`)} ${cut(n === line ? target : lines.lineText(n))}`);
    if (n === line) {
      const span = endLine === line && endColumn !== undefined && endColumn > column ? endColumn - column : 1;
      const offset = column - 1 - start + (start > 0 ? 1 : 0);
      const width = Math.max(1, Math.min(span, WIDTH - (column - 1 - start)));
      out.push(`  ${c.dim(`${' '.repeat(gutter)} |`)} ${' '.repeat(Math.max(0, offset))}${c.red('^'.repeat(width))}`);
    }
  }
  return out.join('\n');
}
