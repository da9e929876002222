// GitHub Actions workflow commands. GitHub shows at most 10 error, 10 warning and 10 notice
// annotations per step and drops the rest silently, so we emit that many and print the others
// as plain log lines, then always a summary line.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { plural, summaryLine, totals, visible, type FileReport, type ReportOptions } from './model.js';

export const ANNOTATION_CAP = 10;

const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** The path GitHub needs: relative to the checkout when run from a subfolder of it. */
function annotationPath(path: string, options: ReportOptions): string {
  if (!options.workspaceRoot) return path;
  const rel = relative(options.workspaceRoot, resolve(options.cwd, path));
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : path;
}

export function formatGithub(reports: readonly FileReport[], options: ReportOptions): string {
  const out: string[] = [];
  const used = { error: 0, warning: 0, notice: 0 };
  let omitted = 0;
  for (const r of reports) {
    if (r.readError) {
      out.push(`::error file=${escapeProperty(annotationPath(r.path, options))},title=${escapeProperty('setup-pack: unreadable file')}::${escapeData(r.readError)}`);
      used.error++;
      continue;
    }
    for (const d of visible(r, options.quiet)) {
      const command = d.severity === 'info' ? 'notice' : d.severity;
      const where = d.line !== undefined ? `:${d.line}:${d.column ?? 1}` : '';
      if (used[command] >= ANNOTATION_CAP) {
        omitted++;
        out.push(`${r.path}${where}: ${d.severity} ${d.code}: ${d.message}`);
        continue;
      }
      used[command]++;
      const props = [`file=${escapeProperty(annotationPath(r.path, options))}`];
      if (d.line !== undefined) {
        props.push(`line=${d.line}`, `col=${d.column ?? 1}`);
        if (d.endLine !== undefined) props.push(`endLine=${d.endLine}`);
        if (d.endLine === d.line && d.endColumn !== undefined) props.push(`endColumn=${d.endColumn}`);
      }
      props.push(`title=${escapeProperty(`setup-pack ${d.code}`)}`);
      out.push(`::${command} ${props.join(',')}::${escapeData(d.hint ? `${d.message}\n${d.hint}` : d.message)}`);
    }
  }
  const t = totals(reports);
  let summary = `setup-pack: ${summaryLine(t, options.maxWarnings)}`;
  if (omitted) summary += ` (${plural(omitted, 'more finding')} printed above without annotations: GitHub shows at most ${ANNOTATION_CAP} errors and ${ANNOTATION_CAP} warnings per step)`;
  out.push(summary);
  return out.join('\n') + '\n';
}
