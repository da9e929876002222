import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The tenants benchmark's load generator (bench/raw-client.mjs): it reads a response's status,
// X-RateLimit-Reset and Content-Length and skips the body's bytes, so a response split across
// reads, or a body larger than one read, must still end exactly where it does.
// @ts-expect-error: a benchmark module in plain JavaScript, without types
import { rawClient } from '../bench/raw-client.mjs';

type Done = (status: number, reset?: string) => void;
interface Client {
  request(method: string, path: string, headers: string, body: string | undefined, done: Done): void;
  close(): Promise<void>;
}

let server: Server;
let base: string;
const seen: { method: string; url: string; auth: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, body });
      const size = Number(new URL(req.url!, 'http://x').searchParams.get('size') ?? 10);
      const status = Number(new URL(req.url!, 'http://x').searchParams.get('status') ?? 200);
      const text = 'x'.repeat(size);
      res.writeHead(status, {
        'Content-Type': 'application/json',
        'Content-Length': String(size),
        ...(status === 204 ? {} : { 'X-RateLimit-Reset': String(1000 + size) }),
      });
      // The body in two writes with a pause, so the client sees it across reads.
      res.write(text.slice(0, size >> 1));
      setTimeout(() => res.end(text.slice(size >> 1)), 2);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('the tenants benchmark client', () => {
  it('answers each request with its own status and reset, over few keep-alive sockets', async () => {
    const client = rawClient(base, 3) as Client;
    const sizes = [0, 1, 10, 70_000, 300_000, 5, 20_000, 2];
    const got = await Promise.all(
      sizes.flatMap((size, i) => [
        new Promise<[number, string | undefined]>((resolve) =>
          client.request(
            'GET',
            `/v1/contacts?size=${size}&status=${i % 2 ? 429 : 200}`,
            'authorization: Bearer k1\r\n',
            undefined,
            (s, r) => resolve([s, r]),
          ),
        ),
        new Promise<[number, string | undefined]>((resolve) =>
          client.request(
            'POST',
            `/v1/contacts?size=${size}`,
            'authorization: Bearer k2\r\ncontent-type: application/json\r\n',
            '{"a":"é"}',
            (s, r) => resolve([s, r]),
          ),
        ),
      ]),
    );
    expect(got).toEqual(
      sizes.flatMap((size, i) => [
        [i % 2 ? 429 : 200, String(1000 + size)],
        [200, String(1000 + size)],
      ]),
    );
    const posts = seen.filter((s) => s.method === 'POST');
    expect(posts).toHaveLength(sizes.length);
    expect(posts.every((p) => p.body === '{"a":"é"}' && p.auth === 'Bearer k2')).toBe(true);
    await client.close();
  });

  it('reports a connection that fails as status 0', async () => {
    const client = rawClient('http://127.0.0.1:1', 1) as Client;
    const status = await new Promise<number>((resolve) => client.request('GET', '/', '', undefined, (s) => resolve(s)));
    expect(status).toBe(0);
    await client.close();
  });
});
