// What a run reports: one entry per file, with the file's text for code frames.
import { plural, type Diagnostic, type LineIndex, type RuleMeta } from '@setup-pack/core';

export interface FileReport {
  /** Path as shown to the user (relative to the working directory when inside it). */
  path: string;
  /** The file's text, for code frames (absent when the file could not be read). */
  text?: string;
  /** The text's line index, when validation built one (else code frames build it once). */
  lines?: LineIndex;
  diagnostics: Diagnostic[];
  /**
   * Present when the findings came without positions (in document order): places the given ones.
   * Formats that print a few of many call it once per file on those they print.
   */
  place?: (findings: readonly Diagnostic[]) => void;
  /** Set when the file could not be read at all (exit code 2). */
  readError?: string;
  /** Set when the file was read but could not be written again (fmt, fix; exit code 2): kept as it was. */
  writeError?: string;
}

export interface ReportOptions {
  cwd: string;
  /** Metadata of every code that can appear, for SARIF rules. */
  rules: readonly RuleMeta[];
  toolVersion: string;
  maxWarnings?: number;
  /** GitHub's checkout (GITHUB_WORKSPACE): annotation paths must be relative to it. */
  workspaceRoot?: string;
  /** Hide warnings and infos (they still count for --max-warnings). */
  quiet?: boolean;
  /** Pretty output: print every finding instead of folding repeats of one message. */
  expand?: boolean;
}

export interface Totals {
  files: number;
  filesWithProblems: number;
  errors: number;
  warnings: number;
  infos: number;
  unreadable: number;
  /** Files read but not written again (fmt, fix): not part of the JSON report's summary. */
  unwritable: number;
}

export function totals(reports: readonly FileReport[]): Totals {
  const t: Totals = { files: reports.length, filesWithProblems: 0, errors: 0, warnings: 0, infos: 0, unreadable: 0, unwritable: 0 };
  for (const r of reports) {
    if (r.readError) t.unreadable++;
    if (r.writeError) t.unwritable++;
    if (r.diagnostics.length || r.readError || r.writeError) t.filesWithProblems++;
    for (const d of r.diagnostics) {
      if (d.severity === 'error') t.errors++;
      else if (d.severity === 'warning') t.warnings++;
      else t.infos++;
    }
  }
  return t;
}

/** The one-line summary every format ends with (in its own way). */
export function summaryLine(t: Totals, maxWarnings?: number): string {
  const parts = [plural(t.errors, 'error'), plural(t.warnings, 'warning')];
  if (t.infos) parts.push(plural(t.infos, 'info'));
  let line = `${parts.join(', ')} in ${plural(t.files, 'file')}`;
  if (t.unreadable) line += `; ${plural(t.unreadable, 'file')} could not be read`;
  if (t.unwritable) line += `; ${plural(t.unwritable, 'file')} could not be written`;
  if (maxWarnings !== undefined && t.warnings > maxWarnings) line += `; more warnings than --max-warnings ${maxWarnings}`;
  return line;
}

/** Exit code of a run: 2 unreadable (or unwritable), 1 errors or too many warnings, 0 otherwise. */
export function exitCodeOf(t: Totals, maxWarnings?: number): number {
  if (t.unreadable || t.unwritable) return 2;
  if (t.errors) return 1;
  if (maxWarnings !== undefined && t.warnings > maxWarnings) return 1;
  return 0;
}

export function visible(r: FileReport, quiet?: boolean): Diagnostic[] {
  return quiet ? r.diagnostics.filter((d) => d.severity === 'error') : r.diagnostics;
}
