// Machine output: one JSON document; its schema is packages/cli/schema/validate-report.schema.json.
// Written as a stream (jsonChunks), so every finding is listed without one giant string.
import type { Diagnostic } from '@setup-pack/core';
import { summaryLine, totals, visible, type FileReport, type ReportOptions } from './model.js';
import { jsonChunks, LazyArray } from './stream.js';

export const JSON_REPORT_VERSION = 1;

/**
 * One finding as the report's schema describes it: { code, severity, message, pointer, line,
 * column, endLine, endColumn, hint?, missing?, related? }, each position null when absent, in that key
 * order. Written a batch at a time (LazyArray `records`, test: lines.test.ts).
 */
export function findingRecord(d: Diagnostic): object {
  const record: Record<string, unknown> = {
    code: d.code,
    severity: d.severity,
    message: d.message,
    pointer: d.pointer,
    line: d.line ?? null,
    column: d.column ?? null,
    endLine: d.endLine ?? null,
    endColumn: d.endColumn ?? null,
  };
  if (d.hint) record.hint = d.hint;
  if (d.missing) record.missing = d.missing;
  if (d.related?.length)
    record.related = d.related.map((x) => ({ pointer: x.pointer, message: x.message, line: x.line ?? null, column: x.column ?? null }));
  return record;
}

function* map<T, R>(items: Iterable<T>, fn: (item: T) => R): Generator<R> {
  for (const item of items) yield fn(item);
}

export function* jsonReportChunks(reports: readonly FileReport[], options: ReportOptions): Generator<string> {
  const t = totals(reports);
  const doc = {
    version: JSON_REPORT_VERSION,
    tool: { name: 'setup-pack', version: options.toolVersion },
    summary: {
      files: t.files,
      filesWithProblems: t.filesWithProblems,
      errors: t.errors,
      warnings: t.warnings,
      infos: t.infos,
      unreadable: t.unreadable,
      text: summaryLine(t, options.maxWarnings),
    },
    files: new LazyArray(
      map(reports, (r) => {
        let errors = 0;
        let warnings = 0;
        for (const d of r.diagnostics) {
          if (d.severity === 'error') errors++;
          else if (d.severity === 'warning') warnings++;
        }
        return {
          path: r.path,
          valid: !r.readError && errors === 0,
          ...(r.readError ? { readError: r.readError } : {}),
          errorCount: errors,
          warningCount: warnings,
          diagnostics: new LazyArray(map(visible(r, options.quiet), findingRecord), 'records', '{"code":'),
        };
      }),
      'nested',
    ),
  };
  yield* jsonChunks(doc);
  yield '\n';
}
