// Reading one pack file for commands that transform it (fmt, fix, diff, unpack).
import type { Diagnostic, SourceText } from '@setup-pack/core';
import { decodeText, readText } from './files.js';
import type { FileReport } from '../report/model.js';

/**
 * `warnings`: the parser's findings that do not stop it (a property repeated in an object, of
 * which JSON.parse keeps the last); `source`: the text as parsed, to place findings in.
 */
export type PackRead = { ok: true; value: unknown; text: string; source: SourceText; warnings: Diagnostic[] } | { ok: false; report: FileReport; unreadable: boolean };

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
  return { ok: true, value: parsed.value, text: read.text, source: parsed.source, warnings: parsed.diagnostics };
}

/**
 * What writing a parsed file again (fmt, fix: its value as JSON) would lose of what the file
 * says, as errors placed in its text: each property written twice in one object (core's parser
 * reports json/duplicate-key; JSON.parse keeps the last, so the first would be dropped), and each
 * number JSON.parse cannot hold (`1e400` reads as Infinity, which JSON.stringify writes as null).
 * `command` is who leaves the file as it is. Empty when the file can be written again safely.
 */
export async function lostOnRewrite(read: { value: unknown; source: SourceText; warnings: readonly Diagnostic[] }, command: string): Promise<Diagnostic[]> {
  const lost: Diagnostic[] = read.warnings
    .filter((d) => d.code === 'json/duplicate-key')
    .map((d) => ({ ...d, severity: 'error', message: `${d.message} ${command} leaves the file as it is: written again, it would lose the first.` }));
  const pointers = nonFinitePointers(read.value);
  if (!pointers.length) return lost;
  const { toPointer } = await import('@setup-pack/core');
  const { source } = read;
  const positions = source.locateAll(pointers.map((p) => ({ pointer: toPointer(p.path) })));
  pointers.forEach((p, i) => {
    const pos = positions[i];
    const literal = pos ? source.text.slice(source.lines.lineStart(pos.line) + pos.column - 1, source.lines.lineStart(pos.endLine) + pos.endColumn - 1) : String(p.value);
    lost.push({
      code: 'json/number-range',
      severity: 'error',
      message: `The number ${literal} is too large for a JSON number to hold (it reads as ${p.value}): written again, it would be null. ${command} leaves the file as it is.`,
      pointer: toPointer(p.path),
      ...pos,
      hint: 'Write a number between -1.7976931348623157e308 and 1.7976931348623157e308, or the value as a string.',
    });
  });
  // In the order of the text, as a file's other findings are.
  return lost.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}

/** Whether a parsed JSON value holds a number that is not finite: one walk of its values, no paths kept (fmt asks it of every file). */
function hasNonFinite(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return true;
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (typeof v[i] === 'number' || (v[i] !== null && typeof v[i] === 'object')) stack.push(v[i]);
    } else if (v !== null && typeof v === 'object') {
      for (const k in v) {
        const c = (v as Record<string, unknown>)[k];
        if (typeof c === 'number' || (c !== null && typeof c === 'object')) stack.push(c);
      }
    }
  }
  return false;
}

/** The paths to every number in a parsed JSON value that is not finite, in document order (without recursion: a value may nest 512 deep). */
function nonFinitePointers(value: unknown): { path: (string | number)[]; value: number }[] {
  const out: { path: (string | number)[]; value: number }[] = [];
  if (!hasNonFinite(value)) return out;
  const stack: { v: unknown; path: (string | number)[] }[] = [{ v: value, path: [] }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) out.push({ path, value: v });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) if (typeof v[i] === 'number' || (v[i] !== null && typeof v[i] === 'object')) stack.push({ v: v[i], path: [...path, i] });
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const c = (v as Record<string, unknown>)[keys[i]];
        if (typeof c === 'number' || (c !== null && typeof c === 'object')) stack.push({ v: c, path: [...path, keys[i]] });
      }
    }
  }
  return out;
}
