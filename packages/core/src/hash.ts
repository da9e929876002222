// Asset integrity: decode base64 and hash it. The default works everywhere (browser included);
// callers on Node pass a native hasher through ValidateOptions for speed.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/**
 * Decodes base64 and hashes the bytes. Must return undefined when `data` is not strict RFC 4648
 * base64 (padding required, no whitespace); on Node, `Buffer.from(data, 'base64')` re-encoded and
 * compared with `data` checks that at native speed.
 */
export type Base64Hasher = (data: string) => { byteSize: number; sha256: string } | undefined;

const NOT_BASE64 = /[^A-Za-z0-9+/]/;

/** Strict RFC 4648 base64 (padding required, no whitespace). A single negated-class scan: fast on MBs. */
export function isBase64(data: string): boolean {
  if (data.length % 4 !== 0) return false;
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return !NOT_BASE64.test(pad ? data.slice(0, -pad) : data);
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
