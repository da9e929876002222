// Machine output: one JSON document; its schema is packages/cli/schema/validate-report.schema.json.
// Written as a stream (jsonChunks), so every finding is listed without one giant string.
import type { Diagnostic } from '@setup-pack/core';
import { summaryLine, totals, visible, type FileReport, type ReportOptions } from './model.js';
import { jsonChunks, jsonNumber, jsonString, LazyArray } from './stream.js';

export const JSON_REPORT_VERSION = 1;

/**
 * One finding as a compact JSON line, written by hand rather than built as an object and
 * stringified (tens of thousands per report); the same text JSON.stringify gives for
 * { code, severity, message, pointer, line, column, endLine, endColumn, hint?, related? }, each
 * position null when absent (test: lines.test.ts holds every line to that).
 */
export function findingJson(d: Diagnostic): string {
  let text = `{"code":${jsonString(d.code)},"severity":${jsonString(d.severity)},"message":${JSON.stringify(d.message)},"pointer":${JSON.stringify(d.pointer)},"line":${jsonNumber(d.line)},"column":${jsonNumber(d.column)},"endLine":${jsonNumber(d.endLine)},"endColumn":${jsonNumber(d.endColumn)}`;
  if (d.hint) text += `,"hint":${JSON.stringify(d.hint)}`;
  if (d.related?.length) text += `,"related":${JSON.stringify(d.related.map((x) => ({ pointer: x.pointer, message: x.message, line: x.line ?? null, column: x.column ?? null })))}`;
  return `${text}}`;
}

function* map<T, R>(items: Iterable<T>, fn: (item: T) => R): Generator<R> {
  for (const item of items) yield fn(item);
}

export function* jsonReportChunks(reports: readonly FileReport[], options: ReportOptions): Generator<string> {
  const t = totals(reports);
  const doc = {
    version: JSON_REPORT_VERSION,
    tool: { name: 'setup-pack', version: options.toolVersion },
    summary: { files: t.files, filesWithProblems: t.filesWithProblems, errors: t.errors, warnings: t.warnings, infos: t.infos, unreadable: t.unreadable, text: summaryLine(t, options.maxWarnings) },
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
          diagnostics: new LazyArray(map(visible(r, options.quiet), findingJson), 'text'),
        };
      }),
      'nested',
    ),
  };
  yield* jsonChunks(doc);
  yield '\n';
}
