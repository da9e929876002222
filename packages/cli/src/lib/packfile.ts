// Reading one pack file for commands that transform it (fmt, fix, diff, unpack).
import { NOT_AS_WRITTEN, sortDiagnostics, type Diagnostic, type SourceText } from '@setup-pack/core';
import { decodeText, readText } from './files.js';
import type { FileReport } from '../report/model.js';

/**
 * `findings`: the parser's findings about text it still read (core's parseJsonText): a property
 * repeated in an object (JSON.parse keeps the last), a number JSON.parse does not read as written;
 * `source`: the text as parsed, to place findings in.
 */
export type PackRead =
  | { ok: true; value: unknown; text: string; source: SourceText; findings: Diagnostic[] }
  | { ok: false; report: FileReport; unreadable: boolean };

/**
 * What a command says of a pack file it could not read, in one line: `cannot read 'x.json': no
 * such file` (the read error without its own "cannot read the file: ").
 */
export const cannotRead = (shown: string, report: FileReport): string =>
  `cannot read '${shown}': ${(report.readError ?? '').replace(/^cannot read the file: /, '')}`;

/** Reads and parses JSON; a syntax error comes back as a report to print. `notAFile`: an InputEntry's, the file is not read. */
export async function readPackFile(abs: string, path: string, notAFile?: string): Promise<PackRead> {
  return parseRead(await readText(abs, undefined, notAFile), path);
}

/** The same for a file's bytes already read (a source folder's, by readTree). */
export async function parsePackBytes(bytes: Uint8Array, path: string): Promise<PackRead> {
  return parseRead(decodeText(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 'the file'), path);
}

async function parseRead(read: { text: string } | { error: string }, path: string): Promise<PackRead> {
  if ('error' in read) return { ok: false, report: { path, diagnostics: [], readError: read.error }, unreadable: true };
  const { parseJsonText } = await import('@setup-pack/core');
  const parsed = parseJsonText(read.text);
  // Not JSON, or nested too deep: no value. A number JSON.parse cannot hold is an error too, but
  // the text was read; what to make of it is the command's (fmt, fix and unpack refuse to write it).
  if (parsed.value === undefined)
    return {
      ok: false,
      report: { path, text: parsed.source.text, diagnostics: parsed.diagnostics.filter((d) => d.severity === 'error') },
      unreadable: false,
    };
  return { ok: true, value: parsed.value, text: read.text, source: parsed.source, findings: parsed.diagnostics };
}

/**
 * What writing a parsed file again would lose of what the file says: its findings (`findings`,
 * core's, from parseJsonText) that core's NOT_AS_WRITTEN names, as errors, each with `refusal`
 * said of it (who leaves the file as it is, and what would be lost: fmt's "fmt leaves the file as
 * it is: written again, it would be null"). Empty when the file can be written again safely.
 */
export function lostOnRewrite<D extends Diagnostic>(findings: readonly D[], refusal: (loss: string) => string): D[] {
  const lost: D[] = [];
  for (const d of findings) {
    const loss = NOT_AS_WRITTEN.get(d.code);
    if (loss !== undefined) lost.push({ ...d, severity: 'error', message: `${d.message} ${refusal(loss.rewritten)}.` });
  }
  // In the order of the text, as a file's other findings are (core's order of findings).
  sortDiagnostics(lost);
  return lost;
}

/**
 * The report of a pack file whose top level is not a JSON object (`[]`, `null`): core's finding,
 * the one validate reports, placed in the file; undefined for an object. fmt and fix refuse such
 * a file (exit 1) rather than call it "already formatted" or say it has "nothing to fix".
 */
export async function notAPackReport(read: Extract<PackRead, { ok: true }>, path: string): Promise<FileReport | undefined> {
  const { notAPack } = await import('@setup-pack/core');
  const d = notAPack(read.value);
  if (!d) return undefined;
  const [at] = read.source.locateAll([{ pointer: d.pointer }]);
  return { path, text: read.source.text, diagnostics: [at ? { ...d, ...at } : d] };
}

/** fmt's and fix's refusal: the file is left as it is. */
export const leftAsItIs = (command: string) => (loss: string) => `${command} leaves the file as it is: written again, ${loss}`;
