// The one statement of "a pack is JSON in UTF-8": what the CLI and the editor say about a file in
// another encoding, from its first bytes, before they decode it.
import { createLineIndex } from './positions.js';

/**
 * A pack is JSON in UTF-8 (RFC 8259, section 8.1; a UTF-8 byte order mark is allowed). Text in
 * UTF-16 or UTF-32, what Windows PowerShell 5's `>` and Out-File write, would otherwise only be
 * "not valid JSON" at 1:1 (decoded as UTF-8, its first bytes become replacement characters or NULs): this names its encoding from the first bytes (a byte order mark, or
 * the NULs of ASCII text in those encodings), or is undefined when they look like neither.
 */
export function encodingProblem(head: Uint8Array): string | undefined {
  const [a, b, c, d] = [head[0], head[1], head[2], head[3]];
  let found: string | undefined;
  if (a === 0xff && b === 0xfe && c === 0 && d === 0) found = 'UTF-32LE text (it starts with the byte order mark FF FE 00 00)';
  else if (a === 0 && b === 0 && c === 0xfe && d === 0xff) found = 'UTF-32BE text (it starts with the byte order mark 00 00 FE FF)';
  else if (a === 0xff && b === 0xfe) found = 'UTF-16LE text (it starts with the byte order mark FF FE)';
  else if (a === 0xfe && b === 0xff) found = 'UTF-16BE text (it starts with the byte order mark FE FF)';
  else if (head.length === 4 && a !== 0 && b === 0 && c === 0 && d === 0) found = 'UTF-32LE text';
  else if (head.length === 4 && a === 0 && b === 0 && c === 0 && d !== 0) found = 'UTF-32BE text';
  else if (head.length >= 2 && a !== 0 && b === 0) found = 'UTF-16LE text';
  else if (head.length >= 2 && a === 0 && b !== 0) found = 'UTF-16BE text';
  return found && `it is ${found}, and a pack is JSON in UTF-8: save it as UTF-8`;
}

const lossy = new TextDecoder('utf-8');
const strict = new TextDecoder('utf-8', { fatal: true });

/**
 * Bytes that are not UTF-8 — a pack or a template saved as Latin-1 or Windows-1252 — decode to
 * U+FFFD: the file would pass with its characters replaced, and a rewrite (fmt, build) would
 * keep the loss. This names the first line holding such bytes, or is undefined for UTF-8 text.
 * A full decode: a caller on a hot path checks first with something cheaper (Node's isUtf8).
 */
export function utf8Problem(bytes: Uint8Array): string | undefined {
  try {
    strict.decode(bytes);
    return undefined;
  } catch {
    const text = lossy.decode(bytes);
    const at = text.indexOf('\uFFFD');
    const line = createLineIndex(text).lineOf(at);
    return `it is not UTF-8 text: line ${line} has bytes that are not UTF-8 (Latin-1 or Windows-1252 write such bytes), which reading would replace: save it as UTF-8`;
  }
}
