// Asset integrity: decode base64 and hash it. The default works everywhere (browser included);
// callers on Node pass a native hasher through ValidateOptions for speed.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/**
 * Decodes base64 and hashes the bytes. Must return undefined when `data` is not strict RFC 4648
 * base64: padding required, no whitespace, no base64url characters, and no stray bits before the
 * padding (only the canonical encoding of the bytes is accepted). The CLI's Node hasher checks this
 * around Buffer's lenient decoder (packages/cli/src/lib/files.ts).
 */
export type Base64Hasher = (data: string) => { byteSize: number; sha256: string } | undefined;

const NOT_BASE64 = /[^A-Za-z0-9+/]/;

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

/** Strict RFC 4648 base64 (padding required, no whitespace, canonical). A single negated-class scan: fast on MBs. */
export function isBase64(data: string): boolean {
  if (data.length % 4 !== 0) return false;
  const pad = base64Padding(data);
  return !NOT_BASE64.test(pad ? data.slice(0, -pad) : data) && hasCanonicalPadding(data);
}

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
  if (!isBase64(data)) return undefined;
  const bytes = decodeBase64(data);
  return { byteSize: bytes.length, sha256: sha256Hex(bytes) };
};
