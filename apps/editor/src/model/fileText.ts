// A pack file's text: decoded as UTF-8, or refused with its encoding named when it is UTF-16 or
// UTF-32 (core's encodingProblem, the same words the CLI uses), rather than opened as invalid JSON.
import { encodingProblem, utf8Problem, validatePack } from '@setup-pack/core';
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
