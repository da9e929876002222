// Human output: `file:line:col  severity  message  code`, a code frame, hints, and a summary.
import type { Diagnostic } from '@setup-pack/core';
import type { Colors } from '../lib/color.js';
import { codeFrame } from './codeframe.js';
import { summaryLine, totals, visible, type FileReport, type ReportOptions } from './model.js';

function severityLabel(d: Diagnostic, c: Colors): string {
  return d.severity === 'error' ? c.red(c.bold('error')) : d.severity === 'warning' ? c.yellow(c.bold('warning')) : c.blue(c.bold('info'));
}

export function formatPretty(reports: readonly FileReport[], options: ReportOptions, c: Colors): string {
  const out: string[] = [];
  for (const r of reports) {
    if (r.readError) {
      out.push(`${c.bold(r.path)}: ${c.red(c.bold('error'))} ${r.readError}`, '');
      continue;
    }
    for (const d of visible(r, options.quiet)) {
      const where = `${r.path}${d.line !== undefined ? `:${d.line}:${d.column ?? 1}` : ''}`;
      out.push(`${c.bold(where)} ${severityLabel(d, c)} ${d.message} ${c.dim(d.code)}`);
      if (d.line !== undefined && r.text !== undefined) {
        const frame = codeFrame(r.text, d.line, d.column ?? 1, d.endLine, d.endColumn, c);
        if (frame) out.push(frame);
      } else if (d.pointer) out.push(`  ${c.dim(`at ${d.pointer}`)}`);
      for (const rel of d.related ?? []) out.push(`  ${c.cyan('note:')} ${rel.message}${rel.line !== undefined ? ` at ${r.path}:${rel.line}:${rel.column ?? 1}` : rel.pointer ? ` at ${rel.pointer}` : ''}`);
      if (d.hint) out.push(`  ${c.cyan('hint:')} ${d.hint}`);
      out.push('');
    }
  }
  const t = totals(reports);
  const clean = !t.errors && !t.unreadable && !(options.maxWarnings !== undefined && t.warnings > options.maxWarnings);
  const line = summaryLine(t, options.maxWarnings);
  out.push(clean ? c.green(`✔ ${line}`) : c.red(c.bold(`✖ ${line}`)));
  return out.join('\n') + '\n';
}
