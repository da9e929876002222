// What the API does with a request body an operation does not take, and what the OpenAPI
// document says of bodies: every operation, over real HTTP against the real server and store.
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, TEST_DATABASE_URL, type Client, type StoreKind, type TestServer } from './harness.js';

function defineBodies(kind: StoreKind) {
  let server: TestServer;
  let c: Client;
  let doc: any;
  beforeAll(async () => {
    server = await startServer(kind);
    c = (await server.workspace()).client;
    doc = (await server.anon.get('/v1/openapi.json')).body;
  });
  afterAll(async () => server?.close());

  /** Every operation of the document, its path's parameters filled in, with the client that may call it. */
  const operations = () =>
    Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
      Object.entries<any>(ops).map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        op,
        url: path.replace(/\{[^}]+\}/g, 'x_missing'),
        client: path.startsWith('/admin/') ? server.admin : c,
      })),
    );

  it('refuses a JSON body with fields on a DELETE or a body-less POST, naming the field, and does nothing', async () => {
    const contact = (await c.post('/v1/contacts', { first_name: 'Kept', last_name: 'Contact' })).body;
    const del = await c.raw('DELETE', `/v1/contacts/${contact.id}`, '{"force": true}', { 'content-type': 'application/json' });
    expect(del.status).toBe(400);
    expect(del.body.error).toEqual({
      type: 'invalid_request_error',
      param: 'force',
      message: 'Received unknown parameter: force (DELETE /v1/contacts/{contact_id} takes no body)',
    });
    expect(del.headers.get('x-ratelimit-limit')).not.toBeNull();
    expect((await c.get(`/v1/contacts/${contact.id}`)).status).toBe(200);

    const hook = (await c.post('/v1/webhooks', { url: 'https://example.com/hook', event_types: ['*'] })).body;
    const test = await c.post(`/v1/webhooks/${hook.id}/test`, { event_type: 'contact.created' });
    expect(test.status).toBe(400);
    expect(test.body.error).toMatchObject({
      param: 'event_type',
      message: 'Received unknown parameter: event_type (POST /v1/webhooks/{webhook_id}/test takes no body)',
    });
    expect((await c.get(`/v1/webhooks/${hook.id}/deliveries`)).body.total_count).toBe(0);

    // A body that is not an object carries something too: said as such.
    for (const body of ['[]', 'null', '"x"', '5', '[{"force": true}]']) {
      const r = await c.raw('DELETE', `/v1/contacts/${contact.id}`, body, { 'content-type': 'application/json' });
      expect(r.status, body).toBe(400);
      expect(r.body.error, body).toEqual({
        type: 'invalid_request_error',
        message: 'DELETE /v1/contacts/{contact_id} takes no body: send none (or {})',
      });
    }
    expect((await c.get(`/v1/contacts/${contact.id}`)).status).toBe(200);
  });

  it('takes no body, zero bytes, white space or {} alike on an operation without a body, whatever the Content-Type says', async () => {
    const hook = (await c.post('/v1/webhooks', { url: 'https://example.com/hook', event_types: ['*'] })).body;
    for (const [body, type] of [
      [undefined, 'application/json'],
      ['', 'application/json'],
      [' \n', 'application/json'],
      ['{}', 'application/json'],
      [' { } ', 'application/json; charset=utf-8'],
      ['', 'text/plain'],
    ] as const) {
      const contact = (await c.post('/v1/contacts', { first_name: 'Gone', last_name: 'Soon' })).body;
      const del = await c.raw('DELETE', `/v1/contacts/${contact.id}`, body, { 'content-type': type });
      expect(del.status, `${JSON.stringify(body)} ${type}`).toBe(200);
      expect(del.body).toEqual({ id: contact.id, deleted: true });
      const rotate = await c.raw('POST', `/v1/webhooks/${hook.id}/rotate-secret`, body, { 'content-type': type });
      expect(rotate.status, `${JSON.stringify(body)} ${type}`).toBe(200);
      // A GET's empty object carries no filter either.
      const list = await c.raw('GET', '/v1/contacts?limit=1', body, { 'content-type': type });
      expect(list.status, `GET ${JSON.stringify(body)} ${type}`).toBe(200);
    }
    // A GET's body with something in it is still refused, as before.
    const q = await c.raw('GET', '/v1/contacts', '{"q": "Gone"}', { 'content-type': 'application/json' });
    expect(q.body.error).toEqual({
      type: 'invalid_request_error',
      message: 'A GET request takes no body: send its parameters in the query string',
    });
  });

  it('reads the usual UTF-8 charset labels without building a TextDecoder per request, and still refuses others', async () => {
    const Real = globalThis.TextDecoder;
    const labels: string[] = [];
    globalThis.TextDecoder = class extends Real {
      constructor(label?: string, options?: TextDecoderOptions) {
        super(label, options);
        labels.push(String(label));
      }
    } as typeof TextDecoder;
    try {
      for (const type of [
        'application/json; charset=utf-8',
        'application/json; charset=UTF-8',
        'application/json;charset="utf8"',
        'application/json; charset=Utf-8',
      ]) {
        const r = await c.raw('POST', '/v1/contacts', '{"first_name": "Jos\u00e9", "last_name": "Charset"}', { 'content-type': type });
        expect(r.status, type).toBe(201);
        expect(r.body.first_name).toBe('Jos\u00e9');
      }
      expect(labels).toEqual([]);
      // Another label of UTF-8 is still read as one, and any other charset refused, as before.
      expect(
        (
          await c.raw('POST', '/v1/contacts', '{"first_name": "A", "last_name": "Label"}', {
            'content-type': 'application/json; charset=unicode-1-1-utf-8',
          })
        ).status,
      ).toBe(201);
      expect(
        (
          await c.raw('POST', '/v1/contacts', '{"first_name": "A", "last_name": "Label"}', {
            'content-type': 'application/json; charset=latin1',
          })
        ).status,
      ).toBe(415);
    } finally {
      globalThis.TextDecoder = Real;
    }
  });

  it('answers every operation of the OpenAPI document with a 400 for a body it does not take, as the document says', async () => {
    const bodyless = operations().filter((o) => !o.op.requestBody);
    expect(bodyless.length).toBeGreaterThan(30);
    const wrong: string[] = [];
    for (const { method, path, op, url, client } of bodyless) {
      if (!/(^|\n\n)Takes no request body: send none. An empty object `{}` is taken as none/.test(op.description ?? ''))
        wrong.push(`${method} ${path}: the document does not say it takes no body`);
      const r = await client.raw(method, url, '{"unexpected": 1}', { 'content-type': 'application/json' });
      const expected =
        method === 'GET'
          ? { type: 'invalid_request_error', message: 'A GET request takes no body: send its parameters in the query string' }
          : {
              type: 'invalid_request_error',
              param: 'unexpected',
              message: `Received unknown parameter: unexpected (${method} ${path} takes no body)`,
            };
      if (r.status !== 400 || !isDeepStrictEqual(r.body?.error, expected))
        wrong.push(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('lists 413 and 415 on every operation of the OpenAPI document, and answers 415 to a body that is not JSON on each', async () => {
    const all = operations();
    expect(all.length).toBeGreaterThan(60);
    const wrong: string[] = [];
    for (const { method, path, op, url, client } of all) {
      for (const code of ['400', '413', '415']) if (!op.responses[code]) wrong.push(`${method} ${path}: no ${code} in the document`);
      const r = await client.raw(method, url, 'name=A', { 'content-type': 'application/x-www-form-urlencoded' });
      if (
        r.status !== 415 ||
        r.body?.error?.message !==
          'Request bodies must be sent with Content-Type: application/json; this one is application/x-www-form-urlencoded'
      ) {
        wrong.push(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
      }
    }
    expect(wrong).toEqual([]);
  });
}

describe('request bodies on PGlite', () => defineBodies('pglite'));
describe.skipIf(!TEST_DATABASE_URL)('request bodies on PostgreSQL (needs TEST_DATABASE_URL)', () => defineBodies('postgres'));
