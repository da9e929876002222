// File names for item keys. Keys may hold any character (slashes, colons, emoji, "CON"), so a
// name keeps [A-Za-z0-9._-] and percent-encodes the rest as UTF-8. Names are always computed
// from the manifest's key list (never parsed back), so the mapping only has to be injective
// within one folder, including on case-insensitive file systems and within name-length limits.
import { createHash } from 'node:crypto';

const SAFE = /[A-Za-z0-9_.-]/;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)/i;
/** Bytes left for the stem, under the common 255-byte limit with room for an extension. */
const MAX_STEM = 180;

export function encodeKey(key: string): string {
  let out = '';
  for (const ch of key) {
    if (SAFE.test(ch)) out += ch;
    // A lone surrogate has no UTF-8 form; %u + its code unit keeps the name injective.
    else if (ch.length === 1 && ch.charCodeAt(0) >= 0xd800 && ch.charCodeAt(0) <= 0xdfff)
      out += `%u${ch.charCodeAt(0).toString(16).toUpperCase()}`;
    else for (const b of new TextEncoder().encode(ch)) out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  // A leading dot would hide the file; a trailing dot or a reserved device name breaks Windows.
  if (out.startsWith('.')) out = '%2E' + out.slice(1);
  if (out.endsWith('.')) out = out.slice(0, -1) + '%2E';
  if (WINDOWS_RESERVED.test(out)) out = `%${out.charCodeAt(0).toString(16).toUpperCase()}${out.slice(1)}`;
  return out;
}

const shortHash = (key: string) => createHash('sha256').update(encodeKey(key)).digest('hex').slice(0, 12);

/**
 * File stems for a folder's keys, in the same order. A stem that is too long, or that equals an
 * earlier one ignoring case, gets a `~hash` suffix; `~` never appears in an encoded key.
 */
export function stemsForKeys(keys: readonly string[]): string[] {
  const seen = new Set<string>();
  return keys.map((key) => {
    let stem = encodeKey(key);
    if (stem.length > MAX_STEM) stem = `${stem.slice(0, MAX_STEM - 13).replace(/%[0-9A-F]?$/, '')}~${shortHash(key)}`;
    if (seen.has(stem.toLowerCase())) stem = `${stem.slice(0, MAX_STEM - 13).replace(/%[0-9A-F]?$/, '')}~${shortHash(key)}`;
    seen.add(stem.toLowerCase());
    return stem;
  });
}
