// Asset integrity: decode base64 and hash it. The default works everywhere (browser included);
// callers on Node pass a native hasher through ValidateOptions for speed.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/**
 * Decodes base64 and hashes the bytes. Must return undefined when `data` is not strict RFC 4648
 * base64: padding required, no whitespace, no base64url characters, and no stray bits before the
 * padding (only the canonical encoding of the bytes is accepted). The CLI's Node hasher checks this
 * around Buffer's lenient decoder (packages/cli/src/lib/hasher.ts).
 */
export type Base64Hasher = (data: string) => { byteSize: number; sha256: string } | undefined;

/** How many "=" end a base64 text (0, 1 or 2). */
export function base64Padding(data: string): 0 | 1 | 2 {
  return data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
}

/**
 * Whether the character before the padding leaves no stray bits: with "==" it carries 2 bits of
 * data and 4 zero bits, with "=" 4 bits and 2 zero bits. Non-canonical texts such as "QR==" decode
 * to the same bytes as "QQ==", so a lenient decoder would accept two texts for one file.
 */
export function hasCanonicalPadding(data: string): boolean {
  const pad = base64Padding(data);
  if (pad === 0) return true;
  const last = data.charAt(data.length - pad - 1);
  return (pad === 2 ? 'AQgw' : 'AEIMQUYcgkosw048').includes(last) && last !== '';
}

/**
 * How many bytes a strict base64 text decodes to: 3/4 of its length less its padding, every
 * character carrying data. Undefined when its length or padding already rule it out; a decoder
 * that returns another count skipped or misread something.
 */
export function strictBase64Size(data: string): number | undefined {
  if (data.length % 4 !== 0 || !hasCanonicalPadding(data)) return undefined;
  return (data.length / 4) * 3 - base64Padding(data);
}

/**
 * The bytes of strict base64 (see Base64Hasher), or undefined. atob() does the scanning natively:
 * it throws on characters outside the alphabet, base64url's - and _, and "=" anywhere but the end;
 * it skips white space and accepts missing padding, which the length checks catch (every
 * character of a strict text carries data, so it decodes to exactly 3/4 of its length less its
 * padding). Uint8Array.fromBase64 (recent browsers) decodes strictly in one native call.
 */
export function decodeStrictBase64(data: string): Uint8Array | undefined {
  const size = strictBase64Size(data);
  if (size === undefined) return undefined;
  const fromBase64 = (Uint8Array as unknown as { fromBase64?: (s: string, o: object) => Uint8Array }).fromBase64;
  if (fromBase64) {
    try {
      const bytes = fromBase64(data, { lastChunkHandling: 'strict' });
      return bytes.length === size ? bytes : undefined;
    } catch {
      return undefined;
    }
  }
  let bin: string;
  try {
    bin = atob(data);
  } catch {
    return undefined;
  }
  if (bin.length !== size) return undefined;
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Strict RFC 4648 base64 (padding required, no whitespace, canonical). */
export function isBase64(data: string): boolean {
  return decodeStrictBase64(data) !== undefined;
}

/** Decodes base64 (leniently, as atob does); use decodeStrictBase64 to check strictness too. */
export function decodeBase64(data: string): Uint8Array {
  const bin = atob(data);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function sha256Hex(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}

export const portableHasher: Base64Hasher = (data) => {
  const bytes = decodeStrictBase64(data);
  return bytes && { byteSize: bytes.length, sha256: sha256Hex(bytes) };
};
