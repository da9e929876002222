// GitHub Actions workflow commands. GitHub shows at most 10 error, 10 warning and 10 notice
// annotations per step and drops the rest silently, so we emit that many; the other findings go
// to the log folded by code and message shape (one line per group, with a count), and a summary
// line always ends the output.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { count, groupFindings, plural, printable, type Diagnostic } from '@setup-pack/core';
import { summaryLine, totals, visible, type FileReport, type ReportOptions } from './model.js';

export const ANNOTATION_CAP = 10;

/** The workflow command GitHub annotates a finding of each severity with. */
const COMMAND = { error: 'error', warning: 'warning', info: 'notice' } as const;

// Workflow command escaping, after printable: a pack's text has no control characters left by then.
const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/**
 * Where GitHub can show a file: its path relative to the checkout (GITHUB_WORKSPACE, else the
 * working directory, taken as the checkout). A file outside it has no place in the repository
 * view: undefined, and the annotation names the file in its message instead (an absolute `file=`
 * attaches to nothing).
 */
export function annotationPath(path: string, options: ReportOptions): string | undefined {
  const rel = relative(options.workspaceRoot || options.cwd, resolve(options.cwd, path));
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : undefined;
}

function annotation(r: FileReport, d: Diagnostic, options: ReportOptions): string {
  const file = annotationPath(r.path, options);
  const props: string[] = [];
  let prefix = '';
  if (file !== undefined) {
    props.push(`file=${escapeProperty(file)}`);
    if (d.line !== undefined) {
      props.push(`line=${d.line}`, `col=${d.column ?? 1}`);
      if (d.endLine !== undefined) props.push(`endLine=${d.endLine}`);
      if (d.endLine === d.line && d.endColumn !== undefined) props.push(`endColumn=${d.endColumn}`);
    }
  } else prefix = `${printable(resolve(options.cwd, r.path))}${d.line !== undefined ? `:${d.line}:${d.column ?? 1}` : ''}: `;
  props.push(`title=${escapeProperty(`setup-pack ${d.code}`)}`);
  return `::${COMMAND[d.severity]} ${props.join(',')}::${escapeData(prefix + (d.hint ? `${printable(d.message)}\n${printable(d.hint)}` : printable(d.message)))}`;
}

export function* githubChunks(reports: readonly FileReport[], options: ReportOptions): Generator<string> {
  const used = { error: 0, warning: 0, notice: 0 };
  let omitted = 0;
  for (const r of reports) {
    if (r.readError) {
      const file = annotationPath(r.path, options);
      yield `::error ${file !== undefined ? `file=${escapeProperty(file)},` : ''}title=${escapeProperty('setup-pack: unreadable file')}::${escapeData(printable(file !== undefined ? r.readError : `${resolve(options.cwd, r.path)}: ${r.readError}`))}\n`;
      used.error++;
      continue;
    }
    const annotated: Diagnostic[] = [];
    const rest: Diagnostic[] = [];
    for (const d of visible(r, options.quiet)) {
      const command = COMMAND[d.severity];
      if (used[command] >= ANNOTATION_CAP) rest.push(d);
      else {
        used[command]++;
        annotated.push(d);
      }
    }
    const groups = groupFindings(rest);
    r.place?.([...annotated, ...groups.map((g) => g.items[0])]);
    for (const d of annotated) yield annotation(r, d, options) + '\n';
    omitted += rest.length;
    for (const g of groups) {
      const d = g.items[0];
      const where = d.line !== undefined ? `:${d.line}:${d.column ?? 1}` : '';
      // A pack's text in a log line: printable, or a line break in it could start a workflow command.
      yield `${printable(r.path)}${where}: ${d.severity} ${d.code}: ${printable(d.message)}${g.items.length > 1 ? ` (and ${count(g.items.length - 1)} more like it)` : ''}\n`;
    }
  }
  const t = totals(reports);
  let summary = `setup-pack: ${summaryLine(t, options.maxWarnings)}`;
  if (omitted)
    summary += ` (${plural(omitted, 'more finding')} listed above without annotations: GitHub shows at most ${ANNOTATION_CAP} errors, ${ANNOTATION_CAP} warnings and ${ANNOTATION_CAP} notices per step)`;
  yield summary + '\n';
}
