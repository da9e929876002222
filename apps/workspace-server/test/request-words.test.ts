// What a 400 says of a request a person got wrong: the rule in words (never ajv's regular
// expression or format name), where a malformed JSON body breaks, and "" as an unset optional
// field. Over real HTTP against the real server and store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleWords } from '@setup-pack/core';
import { startServer, TEST_DATABASE_URL, type Client, type StoreKind, type TestServer } from './harness.js';

function defineRequestWords(kind: StoreKind) {
  let server: TestServer;
  let c: Client;
  let stageId: string;
  beforeAll(async () => {
    server = await startServer(kind);
    c = (await server.workspace()).client;
    stageId = (await c.get('/v1/pipelines')).body.data[0].stages[0].id;
  });
  afterAll(async () => server?.close());

  const message = (r: { body: any }) => String(r.body?.error?.message);

  it('says a broken pattern or format in the words of the pack rule, never the regular expression or format name', async () => {
    const color = await c.post('/v1/tags', { name: 'Red', color: 'red' });
    expect(color.status).toBe(400);
    expect(color.body.error).toEqual({ type: 'invalid_request_error', param: 'color', message: 'Invalid color: must be a hex color such as #ef4444' });

    const since = await c.get('/v1/contacts?created_after=yesterday');
    expect(since.status).toBe(400);
    expect(since.body.error).toMatchObject({ param: 'created_after', message: 'Invalid created_after: must be an RFC 3339 timestamp such as 2026-01-31T09:30:00Z' });

    const value = await c.post('/v1/deals', { name: 'D', stage_id: stageId, value: '1.234' });
    expect(value.status).toBe(400);
    expect(value.body.error).toMatchObject({ param: 'value', message: 'Invalid value: must be a decimal string with at most 2 decimal places, such as 1250.50 or -20' });

    const slug = await server.admin.post('/admin/workspaces', { name: 'Acme', slug: 'Acme Realty' });
    expect(slug.status).toBe(400);
    expect(slug.body.error).toMatchObject({ param: 'slug', message: 'Invalid slug: must be 1 to 63 lower-case letters, digits and hyphens, starting with a letter or digit' });

    for (const r of [color, since, value, slug]) expect(message(r)).not.toMatch(/\^|\$"|pattern|format "/);
  });

  it('says lengths, sizes and ranges as the pack findings do', async () => {
    const long = await c.post('/v1/message-templates', { name: 'x'.repeat(201), channel: 'sms', body: 'hi' });
    expect(long.body.error).toMatchObject({ param: 'name', message: 'Invalid name: must have at most 200 characters (it has 201)' });
    const limit = await c.get('/v1/contacts?limit=0');
    expect(limit.body.error).toMatchObject({ param: 'limit', message: 'Invalid limit: must be at least 1' });
    const types = await c.post('/v1/webhooks', { url: 'https://example.com/hook', event_types: [] });
    expect(types.body.error).toMatchObject({ param: 'event_types', message: 'Invalid event_types: must have at least 1 item' });
    const row = await c.post('/v1/contacts', { first_name: 'A', last_name: 'B', emails: [{ value: '', label: 'Work' }] });
    expect(row.body.error).toMatchObject({ param: 'emails[0].value', message: 'Invalid emails[0].value: must have at least 1 character' });
    for (const r of [long, limit, types, row]) expect(message(r)).not.toMatch(/NOT|>=|<=/);
  });

  it('has words for every pattern and format a request schema of the OpenAPI document holds', async () => {
    const doc = (await server.anon.get('/v1/openapi.json')).body;
    const missing: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (!node || typeof node !== 'object') return;
      const s = node as Record<string, unknown>;
      if (typeof s.pattern === 'string' && !ruleWords('pattern', { pattern: s.pattern }) && typeof s['x-pattern-words'] !== 'string') missing.push(`${at}: pattern ${s.pattern}`);
      if (typeof s.format === 'string' && !ruleWords('format', { format: s.format })) missing.push(`${at}: format ${s.format}`);
      for (const [k, v] of Object.entries(s)) walk(v, `${at}/${k}`);
    };
    let patterns = 0;
    JSON.stringify(doc, (k, v) => (k === 'pattern' ? (patterns++, v) : v));
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        walk(op.requestBody, `${method} ${path} body`);
        walk(op.parameters, `${method} ${path} parameters`);
      }
    }
    expect(patterns).toBeGreaterThan(3);
    expect(missing).toEqual([]);
  });

  it('says where a malformed JSON body breaks, by line and column, in the error envelope', async () => {
    const colon = await c.post('/v1/contacts', '{"first_name": "A",\n  "last_name" "B"}');
    expect(colon.status).toBe(400);
    expect(colon.body).toEqual({ error: { type: 'invalid_request_error', message: "The request body is not valid JSON: expected ':' after the property name at line 2, column 15" } });
    const comma = await c.post('/v1/deals', `{"name": "D", "stage_id": "${stageId}",}`);
    expect(comma.status).toBe(400);
    expect(message(comma)).toMatch(/^The request body is not valid JSON: expected a property name in double quotes at line 1, column \d+$/);
    const unclosed = await c.patch('/v1/contacts/con_x', '{"first_name": "A');
    expect(unclosed.status).toBe(400);
    expect(message(unclosed)).toBe('The request body is not valid JSON: the string is not closed at line 1, column 16');
    // White space alone is no body, as an empty one is.
    const blank = await c.post('/v1/contacts', '  \n ');
    expect(blank.body.error).toMatchObject({ message: 'The request body must be an object' });
  });

  it('refuses a number JSON cannot hold, which would be stored as null, naming its field, and writes nothing', async () => {
    const r = await c.post('/v1/contacts', '{"first_name": "Big", "last_name": "Number", "custom_fields": {"budget": 1e400}}');
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param: 'custom_fields.budget' });
    expect(message(r)).toMatch(/^custom_fields\.budget is the number 1e400, beyond what a JSON number can hold/);
    expect((await c.get('/v1/contacts?q=Number')).body.total_count).toBe(0);
    // A large number a float holds, and the same text inside a string, are kept.
    const kept = await c.post('/v1/contacts', '{"first_name": "Big", "last_name": "Kept", "custom_fields": {"budget": 1e300, "note": "1e400"}}');
    expect(kept.status).toBe(201);
    expect(kept.body.custom_fields).toEqual({ budget: 1e300, note: '1e400' });
  });

  it('answers a method a known path does not take with 405 naming the methods it takes, and an unknown path with 404', async () => {
    const put = await c.put('/v1/contacts/con_x', { first_name: 'A' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('DELETE, GET, HEAD, PATCH');
    expect(put.body.error).toEqual({ type: 'invalid_request_error', message: 'PUT is not a method of /v1/contacts/{contact_id}; it takes DELETE, GET, HEAD, PATCH' });
    expect(put.headers.get('x-ratelimit-limit')).not.toBeNull();
    const options = await c.call('OPTIONS', '/v1/deals');
    expect(options.status).toBe(405);
    expect(options.headers.get('allow')).toBe('GET, HEAD, POST');
    const unknown = await c.get('/v1/contactz');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe('Unrecognized request URL (GET /v1/contactz)');
  });

  it('says how large a body may be when one is too large', async () => {
    const r = await c.post('/v1/contacts', { first_name: 'Huge', last_name: 'Body', notes: 'x'.repeat(14_100_000) });
    expect(r.status).toBe(413);
    expect(r.body.error).toEqual({ type: 'invalid_request_error', message: 'The request body is larger than 14,046,552 bytes, the most the API takes (a media upload of a 10 MiB file as base64)' });
  });

  it('refuses a compressed body with a 415 that says so, not as malformed JSON', async () => {
    const { gzipSync } = await import('node:zlib');
    const res = await fetch(`${server.base}/v1/contacts`, {
      method: 'POST',
      headers: { authorization: c.key ? `Bearer ${c.key}` : '', 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ first_name: 'G', last_name: 'Z' })),
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({ error: { type: 'invalid_request_error', message: 'Request bodies are read as sent: Content-Encoding gzip is not supported; send the JSON uncompressed' } });
    expect((await c.get('/v1/contacts?q=Z')).body.total_count).toBe(0);
  });

  it('reads "" as unset in a deal\'s optional fields, as it reads contact_id', async () => {
    const deal = await c.post('/v1/deals', { name: 'Form deal', stage_id: stageId, value: '', contact_id: '', expected_close_date: '' });
    expect(deal.status).toBe(201);
    expect(deal.body).toMatchObject({ value: null, contact_id: null, expected_close_date: null });
    const dated = await c.post('/v1/deals', { name: 'Dated', stage_id: stageId, expected_close_date: '2026-05-01' });
    expect(dated.body.expected_close_date).toBe('2026-05-01T00:00:00.000Z');
    // A value that is not empty still has to be one.
    const blank = await c.post('/v1/deals', { name: 'Blank', stage_id: stageId, expected_close_date: ' ' });
    expect(blank.status).toBe(400);
    expect(blank.body.error.param).toBe('expected_close_date');
  });

  it('reads "" as unset in the other optional dates a form sends: a replay\'s until, a key\'s expires_at', async () => {
    const hook = await c.post('/v1/webhooks', { url: 'https://example.com/hook', event_types: ['*'] });
    expect(hook.status).toBe(201);
    const replay = await c.post(`/v1/webhooks/${hook.body.id}/replay`, { since: '2026-01-01T00:00:00Z', until: '' });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({ replayed: 0, queued_missed: 0 });
    const sinceBlank = await c.post(`/v1/webhooks/${hook.body.id}/replay`, { since: '' });
    expect(sinceBlank.body.error).toMatchObject({ param: 'since' });

    const ws = (await server.admin.post('/admin/workspaces', { name: 'Keys', slug: `keys-${kind}-${Date.now()}` })).body;
    const key = await server.admin.post(`/admin/workspaces/${ws.id}/api-keys`, { scopes: ['read_contacts'], expires_at: '', member_id: '' });
    expect(key.status).toBe(201);
    server.clock.advance(1000 * 60 * 60 * 24 * 365 * 50);
    const me = await c.withKey(key.body.secret).get('/v1/me');
    expect(me.status).toBe(200);
  });

  it('reads an empty query value of a timestamp filter or a cursor as left out, like every text filter', async () => {
    const all = await c.get('/v1/deals');
    for (const q of ['created_after=', 'created_before=', 'updated_after=', 'cursor=']) {
      const r = await c.get(`/v1/deals?${q}`);
      expect(r.status, q).toBe(200);
      expect(r.body.total_count, q).toBe(all.body.total_count);
    }
    expect((await c.get('/v1/events?created_after=&created_before=')).status).toBe(200);
    // A value that must be chosen stays a 400 when empty.
    expect((await c.get('/v1/deals?status=')).body.error).toMatchObject({ param: 'status' });
    expect((await c.get('/v1/deals?limit=')).body.error).toMatchObject({ param: 'limit' });
  });
}

describe('request words on PGlite', () => defineRequestWords('pglite'));
describe.skipIf(!TEST_DATABASE_URL)('request words on PostgreSQL (needs TEST_DATABASE_URL)', () => defineRequestWords('postgres'));
