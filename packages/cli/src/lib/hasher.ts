// The Node hasher the CLI passes to core: native base64 decoding and SHA-256, with core's strictness.
// Loaded with core (dynamically), so commands that never validate do not load it.
import { createHash } from 'node:crypto';
import { strictBase64Size } from '@setup-pack/core';

/**
 * Node's native base64 + SHA-256 for asset checks. Buffer decodes leniently (it skips characters
 * outside the alphabet and accepts base64url's - and _), so strictness is checked around it: a
 * strict text decodes to exactly 3/4 of its length less its padding (any skipped character makes
 * it shorter), holds no - or _ (looked for at memchr speed), and leaves no stray bits in the last
 * character before the padding. That is the verdict of re-encoding and comparing, without
 * building a second copy of every asset as text.
 */
export function nodeHasher(data: string): { byteSize: number; sha256: string } | undefined {
  const bytes = strictBase64Bytes(data);
  return bytes && { byteSize: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** The bytes of strict base64 (core's rule, see Base64Hasher) decoded natively, or undefined. */
export function strictBase64Bytes(data: string): Buffer | undefined {
  const size = strictBase64Size(data);
  if (size === undefined || data.includes('-') || data.includes('_')) return undefined;
  const bytes = Buffer.from(data, 'base64');
  return bytes.length === size ? bytes : undefined;
}
