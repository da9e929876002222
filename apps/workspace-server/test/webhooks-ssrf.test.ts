import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RETRY_DELAYS_MS, retryDelayMs } from '../src/modules/webhooks/backoff.js';
import { postWebhook } from '../src/modules/webhooks/sender.js';
import { codeWordKey, signatureHeader, verifySignature } from '../src/modules/webhooks/signing.js';
import { checkResolvedHost, checkWebhookUrl, classifyAddress, guardedLookup } from '../src/modules/webhooks/ssrf.js';

const strict = { allowInsecure: false };
const insecure = { allowInsecure: true };

describe('SSRF guard', () => {
  it('classifies addresses, IPv4-mapped IPv6 included', () => {
    expect(classifyAddress('127.0.0.1')).toBe('loopback');
    expect(classifyAddress('::1')).toBe('loopback');
    expect(classifyAddress('::ffff:127.0.0.1')).toBe('loopback');
    for (const a of [
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      'fc00::1',
      'fe80::1',
      '::',
      '::ffff:10.1.1.1',
    ]) {
      expect(classifyAddress(a), a).toBe('private');
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '172.32.0.1']) expect(classifyAddress(a), a).toBe('public');
  });

  it('checks the url form: https only unless insecure; loopback only when insecure; private never', () => {
    expect(checkWebhookUrl('https://example.com/h', strict)).toEqual({ url: new URL('https://example.com/h') });
    expect(checkWebhookUrl('http://example.com/h', strict)).toEqual({ error: 'must use https://' });
    expect(checkWebhookUrl('http://127.0.0.1:9/h', insecure)).toEqual({ url: new URL('http://127.0.0.1:9/h') });
    expect(checkWebhookUrl('https://127.0.0.1/h', strict)).toEqual({
      refused: expect.stringMatching(/^the host 127\.0\.0\.1 is a loopback address/),
    });
    expect(checkWebhookUrl('https://LOCALHOST/h', strict)).toEqual({
      refused: expect.stringMatching(/^the host localhost is a loopback address/),
    });
    // A fully qualified name's trailing dot names the same host.
    expect(checkWebhookUrl('https://localhost./x', strict)).toEqual({ refused: expect.stringMatching(/localhost is a loopback address/) });
    expect(checkWebhookUrl('https://api.localhost./x', strict)).toEqual({
      refused: expect.stringMatching(/localhost is a loopback address/),
    });
    expect(checkWebhookUrl('https://10.0.0.8/h', insecure)).toEqual({
      refused: expect.stringMatching(/^the host 10\.0\.0\.8 is a private or reserved address/),
    });
    expect(checkWebhookUrl('https://user:pw@example.com/h', strict)).toEqual({ error: 'must not carry credentials' });
    expect(checkWebhookUrl('not a url', strict)).toEqual({ error: 'must be an absolute https:// address' });
  });

  it('refuses a delivery by the rule registration applies, in its words', async () => {
    // An endpoint stored under another policy or an older rule meets the same rule when sent to;
    // nothing is dialled, and the delivery log says why after "Refused: ".
    const refused = async (url: string, policy = strict) => {
      const r = await postWebhook(url, '{}', {}, 1000, policy);
      expect(r, url).toMatchObject({ ok: false, statusCode: null });
      return r.error;
    };
    expect(await refused('https://user:pw@127.0.0.1:1/h', insecure)).toBe('Refused: the url must not carry credentials');
    expect(await refused('http://example.com/h')).toBe('Refused: the url must use https://');
    expect(await refused('not a url', insecure)).toBe('Refused: the url must be an absolute https:// address');
    expect(await refused('https://localhost./h')).toMatch(
      /^Refused: the host localhost is a loopback address, and webhooks go to loopback receivers only when the server runs with --allow-insecure-webhooks/,
    );
    expect(await refused('https://[::ffff:10.0.0.8]/h', insecure)).toMatch(
      /^Refused: the host ::ffff:a00:8 is a private or reserved address/,
    );
  });

  it('resolves names: localhost is refused unless insecure', async () => {
    // A name says what it resolved to, in one sentence: the host, the address, and why it is refused.
    expect(await checkResolvedHost(new URL('https://localhost/'), strict)).toMatch(
      /^the host localhost resolves to (127\.0\.0\.1|::1), a loopback address, and webhooks go to loopback receivers only when the server runs with --allow-insecure-webhooks \(for local development\)$/,
    );
    expect(await checkResolvedHost(new URL('https://localhost/'), insecure)).toBeNull();
  });

  it('checks the address actually dialled, so a name cannot smuggle a refused address', async () => {
    const lookup = guardedLookup(strict);
    const err = await new Promise<Error | null>((resolve) => lookup('localhost', {}, (e: Error | null) => resolve(e)));
    expect(err?.message).toMatch(/^Refused: the host localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    const ok = await new Promise<unknown>((resolve) =>
      guardedLookup(insecure)('localhost', { all: true }, (_e: unknown, a: unknown) => resolve(a)),
    );
    expect(Array.isArray(ok)).toBe(true);
    // End to end: http://localhost is refused at connection time without --allow-insecure-webhooks.
    const r = await postWebhook('https://localhost:1/x', '{}', {}, 1000, strict);
    expect(r).toMatchObject({ ok: false, statusCode: null });
    expect(r.error).toMatch(/Refused/);
    const literal = await postWebhook('https://169.254.169.254/latest/meta-data', '{}', {}, 1000, insecure);
    expect(literal.error).toMatch(
      /^Refused: the host 169\.254\.169\.254 is a private or reserved address, and webhooks are never sent into private networks/,
    );
  });

  it("checks each address once per policy, never one policy's answer for the other", async () => {
    // The sender keeps each target's parsed address and its refusal; the same address sent under
    // the two policies in turn must get each policy's own answer every time.
    const received: string[] = [];
    const server = createServer((req, res) => {
      received.push(`${req.method} ${req.url} ${req.headers['x-test']}`);
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      for (const [i, policy] of [strict, insecure, strict, insecure].entries()) {
        for (const url of [`http://127.0.0.1:${port}/hook?n=${i}`, `http://localhost:${port}/hook?n=${i}`]) {
          const r = await postWebhook(url, '{}', { 'x-test': String(i) }, 2000, policy);
          if (policy === strict) expect(r, url).toMatchObject({ ok: false, statusCode: null, error: expect.stringMatching(/^Refused: /) });
          else expect(r, url).toMatchObject({ ok: true, statusCode: 200, body: 'ok' });
        }
      }
      expect(received).toEqual([1, 1, 3, 3].map((i) => `POST /hook?n=${i} ${i}`));
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('the sender', () => {
  it('sends every attempt to one origin at once, whatever the number of its endpoints', async () => {
    // Many endpoints share one origin (a hooks gateway, one path each): the worker's caps (per
    // process, per endpoint) bound what is in flight, so the sender adds no cap per origin, whose
    // queue would spend an attempt's acknowledgement time before it was even sent.
    const held = new Set<import('node:http').ServerResponse>();
    const server = createServer((req, res) => {
      req.resume();
      held.add(res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const n = 100;
    try {
      const sent = Array.from({ length: n }, (_, i) => postWebhook(`http://127.0.0.1:${port}/hooks/${i % 5}`, '{}', {}, 10_000, insecure));
      const end = Date.now() + 10_000;
      while (held.size < n && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      expect(held.size).toBe(n);
      for (const res of held) res.end('ok');
      expect((await Promise.all(sent)).every((r) => r.ok)).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('signing and backoff', () => {
  it('signs t.body with HMAC-SHA256 and verifies with a 5-minute tolerance', () => {
    const h = signatureHeader('whsec_test', 1_700_000_000, '{"a":1}');
    expect(h).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
    expect(verifySignature(h, '{"a":1}', 'whsec_test', 1_700_000_000 + 300)).toBe(true);
    expect(verifySignature(h, '{"a":1}', 'whsec_test', 1_700_000_000 + 301)).toBe(false);
    expect(verifySignature(h, '{"a":2}', 'whsec_test', 1_700_000_000)).toBe(false);
    expect(codeWordKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('backs off 1, 4, 16, 64, 256 minutes, then gives up', () => {
    expect(RETRY_DELAYS_MS.map((ms) => ms / 60_000)).toEqual([1, 4, 16, 64, 256]);
    expect([1, 2, 3, 4, 5, 6].map(retryDelayMs)).toEqual([...RETRY_DELAYS_MS, null]);
  });
});
