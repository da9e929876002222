// Reading one pack file for commands that transform it (fmt, fix, diff, unpack).
import type { Diagnostic } from '@setup-pack/core';
import { decodeText, readText } from './files.js';
import type { FileReport } from '../report/model.js';

/** `warnings`: the parser's findings that do not stop it (a property repeated in an object, of which JSON.parse keeps the last). */
export type PackRead = { ok: true; value: unknown; text: string; warnings: Diagnostic[] } | { ok: false; report: FileReport; unreadable: boolean };

/** Reads and parses JSON; a syntax error comes back as a report to print. */
export async function readPackFile(abs: string, path: string): Promise<PackRead> {
  return parseRead(await readText(abs), path);
}

/** The same for a file's bytes already read (a source folder's, by readTree). */
export async function parsePackBytes(bytes: Uint8Array, path: string): Promise<PackRead> {
  return parseRead(decodeText(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 'the file'), path);
}

async function parseRead(read: { text: string } | { error: string }, path: string): Promise<PackRead> {
  if ('error' in read) return { ok: false, report: { path, diagnostics: [], readError: read.error }, unreadable: true };
  const { parseJsonText } = await import('@setup-pack/core');
  const parsed = parseJsonText(read.text);
  const fatal = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (fatal.length || parsed.value === undefined) return { ok: false, report: { path, text: parsed.source.text, diagnostics: fatal }, unreadable: false };
  return { ok: true, value: parsed.value, text: read.text, warnings: parsed.diagnostics };
}
