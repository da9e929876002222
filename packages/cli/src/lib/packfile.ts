// Reading one pack file for commands that transform it (fmt, fix, diff, unpack).
import { readText } from './files.js';
import type { FileReport } from '../report/model.js';

export type PackRead = { ok: true; value: unknown; text: string } | { ok: false; report: FileReport; unreadable: boolean };

/** Reads and parses JSON; a syntax error comes back as a report to print. */
export async function readPackFile(abs: string, path: string): Promise<PackRead> {
  const read = await readText(abs);
  if ('error' in read) return { ok: false, report: { path, diagnostics: [], readError: read.error }, unreadable: true };
  const { parseJsonText } = await import('@setup-pack/core');
  const parsed = parseJsonText(read.text);
  const fatal = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (fatal.length || parsed.value === undefined) return { ok: false, report: { path, text: parsed.source.text, diagnostics: fatal }, unreadable: false };
  return { ok: true, value: parsed.value, text: read.text };
}
