// Cross-origin access for an editor served from another origin: an allow-list of exact origins,
// preflights answered without a key, keys in the Authorization header (no credentials mode), the
// rate-limit headers readable by the page; any other origin gets no CORS headers at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { buildServer, corsOrigin, openStore, type Store } from '../src/index.js';

const EDITOR = 'http://127.0.0.1:5173';
let store: Store;
let base: string;
let key: string;
let close: () => Promise<void>;

beforeAll(async () => {
  store = await openStore({ memory: true });
  const app = await buildServer({ store, adminToken: 'adm', corsOrigins: [EDITOR] });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const admin = { authorization: 'Bearer adm', 'content-type': 'application/json' };
  const ws = await (
    await fetch(`${base}/admin/workspaces`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'Cors', slug: 'cors' }) })
  ).json();
  key = (
    await (
      await fetch(`${base}/admin/workspaces/${ws.id}/api-keys`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ scopes: ['full_access'] }),
      })
    ).json()
  ).secret;
  close = () => app.close();
});
afterAll(async () => {
  await close();
  await store.close();
});

describe('CORS for the editor', () => {
  it("answers an allowed origin's preflight without a key, and lets the page read the rate-limit headers", async () => {
    const pre = await fetch(`${base}/v1/me`, {
      method: 'OPTIONS',
      headers: { origin: EDITOR, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(EDITOR);
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/Authorization/i);
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
    const me = await fetch(`${base}/v1/me`, { headers: { origin: EDITOR, authorization: `Bearer ${key}` } });
    expect(me.status).toBe(200);
    expect(me.headers.get('access-control-allow-origin')).toBe(EDITOR);
    expect(me.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
  });

  it("allows only the headers the API reads: no Idempotency-Key header (a creation's key is its body field idempotency_key)", async () => {
    const pre = await fetch(`${base}/v1/transactions`, {
      method: 'OPTIONS',
      headers: { origin: EDITOR, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(pre.status).toBe(204);
    const allowed = (pre.headers.get('access-control-allow-headers') ?? '')
      .toLowerCase()
      .split(/\s*,\s*/)
      .sort();
    expect(allowed).toEqual(['authorization', 'content-type']);
  });

  it('gives any other origin no CORS headers, so its pages cannot read the API', async () => {
    const other = await fetch(`${base}/v1/me`, { headers: { origin: 'http://evil.example', authorization: `Bearer ${key}` } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const pre = await fetch(`${base}/v1/me`, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses "*" and anything that is not an origin, saying why', () => {
    expect(() => corsOrigin('*')).toThrow(/list the editor's origins/);
    expect(() => corsOrigin('http://127.0.0.1:5173/editor/')).toThrow(
      '--cors-origin http://127.0.0.1:5173/editor/: not an origin (scheme://host[:port], no path), e.g. http://127.0.0.1:5173',
    );
    expect(corsOrigin('http://127.0.0.1:5173/')).toBe('http://127.0.0.1:5173');
  });
});
