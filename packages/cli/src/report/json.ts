// Machine output: one JSON document; its schema is packages/cli/schema/validate-report.schema.json.
import { summaryLine, totals, visible, type FileReport, type ReportOptions } from './model.js';

export const JSON_REPORT_VERSION = 1;

export function formatJson(reports: readonly FileReport[], options: ReportOptions): string {
  const t = totals(reports);
  const doc = {
    version: JSON_REPORT_VERSION,
    tool: { name: 'setup-pack', version: options.toolVersion },
    summary: { files: t.files, filesWithProblems: t.filesWithProblems, errors: t.errors, warnings: t.warnings, infos: t.infos, unreadable: t.unreadable, text: summaryLine(t, options.maxWarnings) },
    files: reports.map((r) => ({
      path: r.path,
      valid: !r.readError && !r.diagnostics.some((d) => d.severity === 'error'),
      ...(r.readError ? { readError: r.readError } : {}),
      errorCount: r.diagnostics.filter((d) => d.severity === 'error').length,
      warningCount: r.diagnostics.filter((d) => d.severity === 'warning').length,
      diagnostics: visible(r, options.quiet).map((d) => ({
        code: d.code,
        severity: d.severity,
        message: d.message,
        pointer: d.pointer,
        line: d.line ?? null,
        column: d.column ?? null,
        endLine: d.endLine ?? null,
        endColumn: d.endColumn ?? null,
        ...(d.hint ? { hint: d.hint } : {}),
        ...(d.related?.length ? { related: d.related.map((x) => ({ pointer: x.pointer, message: x.message, line: x.line ?? null, column: x.column ?? null })) } : {}),
      })),
    })),
  };
  return JSON.stringify(doc, null, 2) + '\n';
}
