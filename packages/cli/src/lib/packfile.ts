// Reading one pack file for commands that transform it (fmt, fix, diff, unpack).
import { describePointer, escapeToken, keepsItsDigits, NOT_AS_WRITTEN, sortDiagnostics, type Diagnostic, type SourceText } from '@setup-pack/core';
import { decodeText, readText } from './files.js';
import type { FileReport } from '../report/model.js';

/**
 * `findings`: the parser's findings about text it still read (core's parseJsonText): a property
 * repeated in an object (JSON.parse keeps the last), a number JSON.parse does not read as written;
 * `source`: the text as parsed, to place findings in.
 */
export type PackRead = { ok: true; value: unknown; text: string; source: SourceText; findings: Diagnostic[] } | { ok: false; report: FileReport; unreadable: boolean };

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
  // Not JSON, or nested too deep: no value. A number JSON.parse cannot hold is an error too, but
  // the text was read; what to make of it is the command's (fmt, fix and unpack refuse to write it).
  if (parsed.value === undefined) return { ok: false, report: { path, text: parsed.source.text, diagnostics: parsed.diagnostics.filter((d) => d.severity === 'error') }, unreadable: false };
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

/** fmt's and fix's refusal: the file is left as it is. */
export const leftAsItIs = (command: string) => (loss: string) => `${command} leaves the file as it is: written again, ${loss}`;

/** Integers from here in size are core's to tell (json/number-precision), as are numbers a float cannot hold (json/number-range). */
const EXACT_INTEGERS = 2 ** 53;
/** The smallest float that keeps all of its 53 bits; below it, a float holds fewer digits. */
const SMALLEST_NORMAL = 2.2250738585072014e-308;

/**
 * The numbers of a JSON text (one JSON.parse accepted) that JSON.parse does not read as written,
 * and that core does not report (it tells only numbers a float cannot hold and integers beyond
 * 2^53, from what a parse sees, so that validating a pack never reads its numbers' text): a
 * fraction with more significant digits than a float keeps (`0.1000000000000000055511151231257827`
 * reads as 0.1), a number too close to 0 for one (`1e-400` reads as 0) or kept only in part
 * (`1e-320`). Each as core's json/number-precision, placed, with its pointer. A number whose text
 * only looks otherwise than JSON.stringify writes it (`1.0`, `1E+2`, `0.50`) is the same number:
 * core's keepsItsDigits compares the decimal values. For fmt and fix, which write every number of a
 * file again: one pass over the text they have read anyway, and only a number of more than 15
 * characters, or with an exponent, is looked at twice (up to 15 significant digits, and between
 * 1e-13 and 1e15, a float keeps any decimal).
 */
export function numbersNotKept(source: SourceText): Diagnostic[] {
  const text = source.text;
  const out: Diagnostic[] = [];
  // One frame per open array or object, 1 the outermost: whether it is an array, the index of its
  // current item, or where its current property name is in the text (decoded only for a finding).
  const isArray: boolean[] = [false];
  const index: number[] = [0];
  const keyStart: number[] = [0];
  const keyEnd: number[] = [0];
  let depth = 0;
  let wantKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 32 || c === 58 /* : */) continue; // white space (indentation, most of a formatted file's characters outside strings)
    if (c === 34 /* " */) {
      let end = text.indexOf('"', i + 1);
      while (escaped(text, end)) end = text.indexOf('"', end + 1);
      if (wantKey) {
        keyStart[depth] = i;
        keyEnd[depth] = end + 1;
        wantKey = false;
      }
      i = end;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      depth++;
      isArray[depth] = c === 91;
      index[depth] = 0;
      wantKey = c === 123;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
    } else if (c === 44 /* , */) {
      if (isArray[depth]) index[depth]++;
      else wantKey = true;
    } else if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      let end = i + 1;
      let exponent = false;
      for (let d = text.charCodeAt(end); end < text.length; d = text.charCodeAt(++end)) {
        if ((d | 32) === 101 /* e, E */) exponent = true;
        else if (!((d >= 48 && d <= 57) || d === 46 || d === 43 || d === 45)) break;
      }
      if (exponent || end - i > 15) {
        const literal = text.slice(i, end);
        const value = Number(literal);
        // Written as JSON.stringify writes it (a number a program wrote, 17 digits and all): kept.
        if (value < EXACT_INTEGERS && value > -EXACT_INTEGERS && String(value) !== literal && !keepsItsDigits(literal, value)) {
          let pointer = '';
          for (let d = 1; d <= depth; d++) pointer += `/${escapeToken(isArray[d] ? index[d] : (JSON.parse(text.slice(keyStart[d], keyEnd[d])) as string))}`;
          out.push(notKept(source, pointer, literal, value, i, end));
        }
      }
      i = end - 1;
    }
    // Anything else is a letter of true, false or null.
  }
  return out;
}

/** Whether the quote at `at` is escaped: an odd number of backslashes before it. */
function escaped(text: string, at: number): boolean {
  let n = 0;
  while (text.charCodeAt(at - 1 - n) === 92) n++;
  return n % 2 === 1;
}

function notKept(source: SourceText, pointer: string, literal: string, value: number, start: number, end: number): Diagnostic {
  const where = describePointer(pointer);
  const field = where === 'the pack' ? 'The pack' : where;
  const why =
    value === 0
      ? 'closer to 0 than a JSON number can hold here (a 64-bit float)'
      : Math.abs(value) < SMALLEST_NORMAL
        ? 'so close to 0 that a JSON number keeps only some of its digits here (a 64-bit float)'
        : 'with more digits than a JSON number keeps here (a 64-bit float keeps 15 to 17 significant digits)';
  const from = source.lines.at(start);
  const to = source.lines.at(end);
  return {
    code: 'json/number-precision',
    severity: 'warning',
    message: `${field} is the number ${literal}, ${why}; it reads as ${value}, and would be installed and exported so.`,
    pointer,
    line: from.line,
    column: from.column,
    endLine: to.line,
    endColumn: to.column,
    hint: `Write ${value} if that is what it means; else write it as a string, which keeps every digit.`,
  };
}
