// A pack file's text: decoded as UTF-8, or refused with its encoding named when it is UTF-16 or
// UTF-32 (core's encodingProblem, the same words the CLI uses), rather than opened as invalid JSON.
import { encodingProblem, NOT_AS_WRITTEN, parseJsonText, plural, sortDiagnostics, utf8Problem, validatePack } from '@setup-pack/core';
import type { PackValue } from './pack.js';

export async function packFileText(file: Blob): Promise<{ text: string } | { error: string }> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const wrong = encodingProblem(bytes.subarray(0, 4)) ?? utf8Problem(bytes);
  // TextDecoder drops a UTF-8 byte order mark, as File.text() does.
  return wrong ? { error: wrong } : { text: new TextDecoder().decode(bytes) };
}

/** Parses pack text; returns the value or the first problem that stops editing. */
export function parsePackText(text: string): { value?: PackValue; error?: string } {
  try {
    const v = JSON.parse(text) as unknown;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return { value: v as PackValue };
  } catch {
    /* fall through: core's parser says where the syntax breaks */
  }
  const r = validatePack(text);
  const v = r.value;
  if (v === undefined || v === null || typeof v !== 'object' || Array.isArray(v)) {
    const first = r.diagnostics[0];
    return { error: first ? `${first.message}${first.line ? ` (line ${first.line})` : ''}` : 'Not a pack.' };
  }
  return { value: v as PackValue };
}

/**
 * What the editor's copy of a pack cannot keep of its file's text, in a sentence for the banner, or
 * undefined: the editor holds the value JSON.parse makes (the last of a repeated property, a long
 * integer rounded), so these findings are gone once the file is open, and exporting writes the
 * copy. Core's own findings and words (parseJsonText); one parse more, at open only.
 */
export function lostOnOpen(text: string): string | undefined {
  // What the parser finds in the text that the copy shows no trace of (core's NOT_AS_WRITTEN): a
  // property said twice, a number read as another. A number beyond range stays in the copy as
  // Infinity, where validation reports it.
  const lost = parseJsonText(text).diagnostics.filter((d) => NOT_AS_WRITTEN.get(d.code)?.valueShows === false);
  if (!lost.length) return undefined;
  // The first place in the text: the parser lists every repeated name before any number.
  const first = sortDiagnostics(lost)[0];
  const more = lost.length > 1 ? ` Also ${plural(lost.length - 1, 'other place')}.` : '';
  return `This file says what the editor cannot keep as written: line ${first.line}: ${first.message}${more} Editing and exporting keep the pack as it reads.`;
}
