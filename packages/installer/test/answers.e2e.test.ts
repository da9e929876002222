// Addresses that answer, but not as the workspace API does: a web page (the site's address given
// instead of its API's), JSON of another shape. The commands must say so in one line, exit 1, and
// not retry for a minute or print a stack trace.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkspaceApiError, WorkspaceClient } from '../src/index.js';
import { cli } from './harness.js';

let server: Server;
let base = '';
/** What the fake answers, by the first segment of the path after /v1 (`*` for the rest). */
let answer: (path: string) => { status: number; type: string; body: string };

beforeAll(async () => {
  server = createServer((req, res) => {
    const a = answer(req.url ?? '/');
    res.writeHead(a.status, { 'content-type': a.type });
    res.end(a.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
);

const html = (status: number) => () => ({
  status,
  type: 'text/html; charset=utf-8',
  body: '<!doctype html>\n<html><body>Welcome to Harbor Realty</body></html>',
});
const json = (body: unknown) => () => ({ status: 200, type: 'application/json', body: JSON.stringify(body) });

describe('an address that is not the workspace API', () => {
  it('a web page (200) is named as not JSON within seconds, with the address to check', async () => {
    answer = html(200);
    const started = Date.now();
    const waits: number[] = [];
    const c = new WorkspaceClient({ baseUrl: base, apiKey: 'k', onWait: (w) => waits.push(w.ms) });
    const err = await c.get('/v1/tags').catch((e) => e);
    expect(err).toBeInstanceOf(WorkspaceApiError);
    expect(err.message).toBe(
      `GET /v1/tags: HTTP 200, an answer that is not JSON (text/html: "<!doctype html> <html><body>Welcome to Harbor Realty</body><…"); is ${base} the address of the workspace API?`,
    );
    // Before: eight retries with the full backoff (up to a minute), then "GET /v1/tags: HTTP 200".
    expect(Date.now() - started).toBeLessThan(5000);

    const r = await cli(['plan', 'releases/buyer-lead-1.0.0.json', '--url', base, '--key', 'k'], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^setup-pack: api_error \(HTTP 200\): GET \/v1\/install-ledgers\/[\w-]+: HTTP 200, an answer that is not JSON \(text\/html: "[^\n]*"\); is http:\/\/127\.0\.0\.1:\d+ the address of the workspace API\?\n$/,
    );
  });

  it("a web page with an error status says what came instead of the API's error", async () => {
    answer = html(404);
    const r = await cli(['export', '--all', '--url', base, '--key', 'k'], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `setup-pack: invalid_request_error (HTTP 404): GET /v1/me: HTTP 404, not an API error (text/html: "<!doctype html> <html><body>Welcome to Harbor Realty</body><…"); is ${base} the address of the workspace API?\n`,
    );
  });

  it('JSON of another shape is named, with the request, instead of an internal error', async () => {
    answer = json({ ok: true });
    for (const [argv, request] of [
      [['plan', 'releases/buyer-lead-1.0.0.json'], /GET \/v1\/install-ledgers\/[\w-]+: the workspace's answer is not an install ledger/],
      [['status'], /GET \/v1\/install-ledgers\?limit=100: the workspace's answer is not a page of objects/],
      [['export', '--all'], /GET \/v1\/tags\?limit=100: the workspace's answer is not a page of objects/],
    ] as const) {
      const r = await cli([...argv, '--url', base, '--key', 'k'], {});
      // Before: "internal error: TypeError: page.data is not iterable" with a stack trace, exit 2.
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^setup-pack: api_error \\(HTTP 200\\): ${request.source}[^\\n]*\\n$`));
    }
    // A page that says there is more but gives no cursor to go on from would be read for ever.
    answer = json({ data: [], has_more: true, next_cursor: null, total_count: 1 });
    const err = await new WorkspaceClient({ baseUrl: base, apiKey: 'k' }).listAll('/v1/tags').catch((e) => e);
    expect(err.message).toBe(
      "GET /v1/tags?limit=100: the workspace's answer is not a page with a next_cursor to go on from (has_more is true)",
    );
  });
});
