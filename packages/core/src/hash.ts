// Asset integrity: decode base64 and hash it. The default works everywhere (browser included);
// callers on Node pass a native hasher through ValidateOptions for speed.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

export type Base64Hasher = (data: string) => { byteSize: number; sha256: string };

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict RFC 4648 base64 (padding required, no whitespace). */
export function isBase64(data: string): boolean {
  return data.length % 4 === 0 && BASE64.test(data);
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
  const bytes = decodeBase64(data);
  return { byteSize: bytes.length, sha256: sha256Hex(bytes) };
};
