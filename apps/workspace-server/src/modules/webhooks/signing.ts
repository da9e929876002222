import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new signing secret; the whole string, prefix included, is the HMAC key (as Stripe's whsec_ is). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}

/** Older dashboard endpoints sign with the 64-character lowercase hex SHA-256 of their code word. */
export function codeWordKey(codeWord: string): string {
  return createHash('sha256').update(codeWord, 'utf8').digest('hex');
}

export function sign(key: string, t: number, body: string): string {
  return createHmac('sha256', key).update(`${t}.${body}`, 'utf8').digest('hex');
}

/** X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">. */
export function signatureHeader(key: string, t: number, body: string): string {
  return `t=${t},v1=${sign(key, t, body)}`;
}

/** The receiver's side, used by docs and tests: constant-time compare, 5-minute tolerance. */
export function verifySignature(header: string, body: string, key: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const [k, v] = part.split('=', 2);
    if (k === 't') t = Number(v);
    else if (k === 'v1' && v) v1.push(v);
  }
  if (t === undefined || !Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(sign(key, t, body), 'hex');
  return v1.some((s) => {
    const got = Buffer.from(s, 'hex');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}
