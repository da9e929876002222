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
    expect(color.body.error).toEqual({
      type: 'invalid_request_error',
      param: 'color',
      message: 'Invalid color: must be a hex color such as #ef4444',
    });

    const since = await c.get('/v1/contacts?created_after=yesterday');
    expect(since.status).toBe(400);
    expect(since.body.error).toMatchObject({
      param: 'created_after',
      message: 'Invalid created_after: must be an RFC 3339 timestamp such as 2026-01-31T09:30:00Z',
    });

    const value = await c.post('/v1/deals', { name: 'D', stage_id: stageId, value: '1.234' });
    expect(value.status).toBe(400);
    expect(value.body.error).toMatchObject({
      param: 'value',
      message: 'Invalid value: must be a decimal string with at most 2 decimal places, such as 1250.50 or -20',
    });

    const slug = await server.admin.post('/admin/workspaces', { name: 'Acme', slug: 'Acme Realty' });
    expect(slug.status).toBe(400);
    expect(slug.body.error).toMatchObject({
      param: 'slug',
      message: 'Invalid slug: must be 1 to 63 lower-case letters, digits and hyphens, starting with a letter or digit',
    });

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
      if (typeof s.pattern === 'string' && !ruleWords('pattern', { pattern: s.pattern }) && typeof s['x-pattern-words'] !== 'string')
        missing.push(`${at}: pattern ${s.pattern}`);
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
    expect(colon.body).toEqual({
      error: {
        type: 'invalid_request_error',
        message: "The request body is not valid JSON: expected ':' after the property name at line 2, column 15",
      },
    });
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
    const kept = await c.post(
      '/v1/contacts',
      '{"first_name": "Big", "last_name": "Kept", "custom_fields": {"budget": 1e300, "note": "1e400"}}',
    );
    expect(kept.status).toBe(201);
    expect(kept.body.custom_fields).toEqual({ budget: 1e300, note: '1e400' });
  });

  it('refuses an integer beyond 2^53, which would be stored as another number, naming its field, and writes nothing', async () => {
    for (const [body, param, literal] of [
      [
        '{"first_name": "Wide", "last_name": "Integer", "custom_fields": {"account": 9007199254740993}}',
        'custom_fields.account',
        '9007199254740993',
      ],
      [
        '{"first_name": "Wide", "last_name": "Integer", "custom_fields": {"ids": [1, -12345678901234567890]}}',
        'custom_fields.ids[1]',
        '-12345678901234567890',
      ],
      // Written with an exponent: as many digits, as far from what it reads as.
      [
        '{"first_name": "Wide", "last_name": "Integer", "custom_fields": {"account": 9.007199254740993e15}}',
        'custom_fields.account',
        '9.007199254740993e15',
      ],
    ] as const) {
      const r = await c.post('/v1/contacts', body);
      expect(r.status, body).toBe(400);
      expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param });
      expect(message(r)).toContain(`${param} is the number ${literal}, with more digits than a JSON number keeps here`);
      expect(message(r)).toMatch(/Write it as a string if it is an identifier/);
    }
    const deal = await c.post('/v1/deals', `{"name": "Wide", "stage_id": "${stageId}", "value": 9007199254740993}`);
    expect(deal.body.error).toMatchObject({ param: 'value' });
    expect(message(deal)).toMatch(/^value is the number 9007199254740993, /);
    expect((await c.get('/v1/contacts?q=Integer')).body.total_count).toBe(0);
    // 2^53 itself, a large number a float holds exactly as written, and the digits in a string are kept.
    const kept = await c.post(
      '/v1/contacts',
      '{"first_name": "Wide", "last_name": "Kept", "custom_fields": {"a": 9007199254740992, "b": 1e23, "c": "9007199254740993", "d": 123456789012345}}',
    );
    expect(kept.status).toBe(201);
    expect(kept.body.custom_fields).toEqual({ a: 9007199254740992, b: 1e23, c: '9007199254740993', d: 123456789012345 });
  });

  it('refuses a body that is not JSON with a 415 naming its media type, on a GET or a DELETE as on a POST', async () => {
    const contact = (await c.post('/v1/contacts', { first_name: 'Media', last_name: 'Type' })).body;
    const words = 'Request bodies must be sent with Content-Type: application/json';
    for (const [method, path] of [
      ['GET', '/v1/contacts'],
      ['GET', `/v1/contacts/${contact.id}`],
      ['HEAD', '/v1/contacts'],
      ['DELETE', `/v1/contacts/${contact.id}`],
      ['POST', '/v1/contacts'],
    ]) {
      const text = await c.raw(method, path, 'first_name=A', { 'content-type': 'application/x-www-form-urlencoded' });
      expect(text.status, `${method} ${path}`).toBe(415);
      if (method !== 'HEAD')
        expect(text.body.error).toEqual({
          type: 'invalid_request_error',
          message: `${words}; this one is application/x-www-form-urlencoded`,
        });
      const bare = await c.raw(method, path, 'hello', {});
      expect(bare.status, `${method} ${path} without a type`).toBe(415);
      if (method !== 'HEAD') expect(bare.body.error.message).toBe(`${words}; this one has no Content-Type`);
    }
    expect((await c.get(`/v1/contacts/${contact.id}`)).status).toBe(200);
    // No body is no body, with the JSON header or without it, and so is white space under it.
    expect((await c.raw('GET', '/v1/contacts', undefined, { 'content-type': 'application/json' })).status).toBe(200);
    expect((await c.raw('GET', '/v1/contacts', '', { 'content-type': 'text/plain' })).status).toBe(200);
    expect((await c.raw('GET', '/v1/contacts', ' \n', { 'content-type': 'application/json' })).status).toBe(200);
    expect((await c.raw('HEAD', '/v1/contacts', undefined, {})).status).toBe(200);
    expect((await c.raw('POST', '/v1/contacts', '', { 'content-type': 'text/plain' })).body.error).toMatchObject({
      message: 'The request body must be an object',
    });
    expect((await c.raw('DELETE', `/v1/contacts/${contact.id}`, '', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(
      200,
    );
    // A Content-Type that is no media type is named as sent.
    const odd = await c.raw('POST', '/v1/contacts', '{}', { 'content-type': 'json' });
    expect(odd.status).toBe(415);
    expect(odd.body.error.message).toBe(`${words}; this one is json`);
  });

  it('refuses a JSON body on a GET, whose parameters are in its query, rather than ignore it', async () => {
    await c.post('/v1/contacts', { first_name: 'Query', last_name: 'Only' });
    const r = await c.raw('GET', '/v1/contacts', '{"q": "Query"}', { 'content-type': 'application/json' });
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual({
      type: 'invalid_request_error',
      message: 'A GET request takes no body: send its parameters in the query string',
    });
    expect(r.headers.get('x-ratelimit-limit')).not.toBeNull();
  });

  it('refuses a body in another charset than UTF-8 with a 415 naming it, rather than misread its letters', async () => {
    const latin1 = Buffer.from('{"first_name": "Jos\u00e9", "last_name": "Latin"}', 'latin1');
    for (const type of [
      'application/json; charset=latin1',
      'application/json; charset=ISO-8859-1',
      'application/json;charset="windows-1252"',
      'application/json; charset=utf-16',
    ]) {
      const r = await c.raw('POST', '/v1/contacts', latin1, { 'content-type': type });
      expect(r.status, type).toBe(415);
      const charset = /charset="?([^";]+)/.exec(type)![1];
      expect(r.body.error, type).toEqual({
        type: 'invalid_request_error',
        message: `Request bodies are JSON in UTF-8: charset=${charset} is not taken; send the body in UTF-8 (charset=utf-8, or no charset)`,
      });
    }
    expect((await c.get('/v1/contacts?q=Latin')).body.total_count).toBe(0);
    const utf8 = Buffer.from('{"first_name": "Jos\u00e9", "last_name": "Utf"}', 'utf8');
    for (const type of ['application/json; charset=utf-8', 'application/json; charset=UTF-8', 'application/json; charset="utf8"']) {
      const r = await c.raw('POST', '/v1/contacts', utf8, { 'content-type': type });
      expect(r.status, type).toBe(201);
      expect(r.body.first_name).toBe('Jos\u00e9');
    }
  });

  it('refuses contact text longer than its documented limit, in the words of a schema check, on creation and PATCH', async () => {
    const huge = await c.post('/v1/contacts', { first_name: 'x'.repeat(2_000_000), last_name: 'Long' });
    expect(huge.status).toBe(400);
    expect(huge.body.error).toEqual({
      type: 'invalid_request_error',
      param: 'first_name',
      message: 'Invalid first_name: must have at most 255 characters (it has 2,000,000)',
    });
    expect((await c.get('/v1/contacts?q=Long')).body.total_count).toBe(0);
    const contact = await c.post('/v1/contacts', {
      // At the limits, counted in code points (an emoji is one): taken.
      first_name: '\u{1F3E0}'.repeat(255),
      last_name: 'Limits',
      company: 'c'.repeat(255),
      address: 'a'.repeat(1000),
      notes: 'n'.repeat(100_000),
      emails: [{ value: `${'e'.repeat(243)}@example.com`, label: 'Work' }],
    });
    expect(contact.status).toBe(201);
    expect(contact.body.notes).toHaveLength(100_000);
    for (const [field, body, max] of [
      ['last_name', { last_name: 'l'.repeat(256) }, 255],
      ['notes', { notes: 'n'.repeat(100_001) }, 100_000],
      ['address', { address: 'a'.repeat(1001) }, 1000],
      ['job_title', { job_title: 'j'.repeat(256) }, 255],
      ['emails[0].value', { emails: [{ value: 'e'.repeat(256), label: 'Work' }] }, 255],
    ] as const) {
      const r = await c.patch(`/v1/contacts/${contact.body.id}`, body);
      expect(r.status, field).toBe(400);
      expect(r.body.error, field).toMatchObject({
        param: field,
        message: `Invalid ${field}: must have at most ${max.toLocaleString('en-US')} characters (it has ${(max + 1).toLocaleString('en-US')})`,
      });
    }
    expect((await c.get(`/v1/contacts/${contact.body.id}`)).body.updated_at).toBe(contact.body.updated_at);
    // The limits are in the OpenAPI document, where a client reads them.
    const doc = (await server.anon.get('/v1/openapi.json')).body;
    const props = doc.paths['/v1/contacts'].post.requestBody.content['application/json'].schema.properties;
    expect([props.first_name.maxLength, props.notes.maxLength, props.address.maxLength]).toEqual([255, 100_000, 1000]);
  });

  it('refuses deal and transaction text longer than its documented limit, on creation and PATCH, and writes nothing', async () => {
    const huge = await c.post('/v1/deals', { name: 'x'.repeat(2_000_000), stage_id: stageId });
    expect(huge.status).toBe(400);
    expect(huge.body.error).toEqual({
      type: 'invalid_request_error',
      param: 'name',
      message: 'Invalid name: must have at most 255 characters (it has 2,000,000)',
    });
    const notes = await c.post('/v1/deals', { name: 'Long notes', stage_id: stageId, notes: 'n'.repeat(100_001) });
    expect(notes.body.error).toMatchObject({
      param: 'notes',
      message: 'Invalid notes: must have at most 100,000 characters (it has 100,001)',
    });
    expect((await c.get('/v1/deals')).body.data.map((d: { name: string }) => d.name)).not.toContain('Long notes');
    // At the limits, counted in code points: taken.
    const deal = await c.post('/v1/deals', { name: '\u{1F3E0}'.repeat(255), stage_id: stageId, notes: 'n'.repeat(100_000) });
    expect(deal.status).toBe(201);

    const bigTxn = await c.post('/v1/transactions', { name: 'Big', notes: 'n'.repeat(3_000_000) });
    expect(bigTxn.body.error).toEqual({
      type: 'invalid_request_error',
      param: 'notes',
      message: 'Invalid notes: must have at most 100,000 characters (it has 3,000,000)',
    });
    expect((await c.get('/v1/transactions?search=Big')).body.data).toEqual([]);
    for (const [field, max] of [
      ['name', 255],
      ['listing_key', 255],
    ] as const) {
      const r = await c.post('/v1/transactions', { [field]: 'x'.repeat(max + 1) });
      expect(r.body.error, field).toMatchObject({
        param: field,
        message: `Invalid ${field}: must have at most ${max} characters (it has ${max + 1})`,
      });
    }
    const t = await c.post('/v1/transactions', { name: 't'.repeat(255), listing_key: 'k'.repeat(255), notes: 'n'.repeat(100_000) });
    expect(t.status).toBe(200);
    for (const [field, max] of [
      ['name', 255],
      ['notes', 100_000],
      ['fell_through_reason', 1000],
      ['deal_lost_reason', 1000],
      ['listing_key', 255],
    ] as const) {
      const r = await c.patch(`/v1/transactions/${t.body.id}`, { [field]: 'x'.repeat(max + 1) });
      expect(r.status, field).toBe(400);
      expect(r.body.error, field).toMatchObject({
        param: field,
        message: `Invalid ${field}: must have at most ${max.toLocaleString('en-US')} characters (it has ${(max + 1).toLocaleString('en-US')})`,
      });
    }
    expect((await c.get(`/v1/transactions/${t.body.id}`)).body.updated_at).toBe(t.body.updated_at);
    // The limits are in the OpenAPI document, where a client reads them.
    const doc = (await server.anon.get('/v1/openapi.json')).body;
    const body = (path: string, method: string) => doc.paths[path][method].requestBody.content['application/json'].schema.properties;
    expect([body('/v1/deals', 'post').name.maxLength, body('/v1/deals', 'post').notes.maxLength]).toEqual([255, 100_000]);
    expect([body('/v1/transactions', 'post').name.maxLength, body('/v1/transactions/{id}', 'patch').fell_through_reason.maxLength]).toEqual(
      [255, 1000],
    );
  });

  it('refuses an id in a body longer than any id the API makes, rather than echo it back in a "No such …"', async () => {
    const id = 'a'.repeat(300_000);
    const contact = (await c.post('/v1/contacts', { first_name: 'Id', last_name: 'Echo' })).body;
    for (const [method, path, field] of [
      ['POST', '/v1/transactions', 'deal_id'],
      ['POST', '/v1/transactions', 'contact_id'],
      ['POST', '/v1/transactions', 'checklist_template_id'],
      ['POST', '/v1/deals', 'contact_id'],
      ['POST', '/v1/contacts', 'stage_id'],
      ['PATCH', `/v1/contacts/${contact.id}`, 'owner_id'],
    ] as const) {
      const body =
        path === '/v1/deals'
          ? { name: 'D', stage_id: stageId, [field]: id }
          : path === '/v1/contacts'
            ? { first_name: 'A', last_name: 'B', [field]: id }
            : { [field]: id };
      const r = await c.call(method, path, body);
      expect(r.status, `${method} ${path} ${field}`).toBe(400);
      expect(r.body.error, `${method} ${path} ${field}`).toEqual({
        type: 'invalid_request_error',
        param: field,
        message: `Invalid ${field}: must have at most 255 characters (it has 300,000)`,
      });
    }
    // An id of a usual length that names nothing is still "No such …", naming it.
    const missing = await c.post('/v1/transactions', { deal_id: 'deal_missing' });
    expect(missing.body.error).toMatchObject({ param: 'deal_id', message: 'No such deal: deal_missing' });
  });

  it('refuses a webhook description longer than its documented limit, on creation and PATCH, and stores nothing', async () => {
    const long = await c.post('/v1/webhooks', {
      url: 'https://example.com/described',
      event_types: ['*'],
      description: 'd'.repeat(2_000_000),
    });
    expect(long.status).toBe(400);
    expect(long.body.error).toEqual({
      type: 'invalid_request_error',
      param: 'description',
      message: 'Invalid description: must have at most 1,000 characters (it has 2,000,000)',
    });
    expect((await c.get('/v1/webhooks')).body.data.map((w: { url: string }) => w.url)).not.toContain('https://example.com/described');
    const hook = await c.post('/v1/webhooks', { url: 'https://example.com/described', event_types: ['*'], description: 'd'.repeat(1000) });
    expect(hook.status).toBe(201);
    const patch = await c.patch(`/v1/webhooks/${hook.body.id}`, { description: 'd'.repeat(1001) });
    expect(patch.body.error).toMatchObject({
      param: 'description',
      message: 'Invalid description: must have at most 1,000 characters (it has 1,001)',
    });
    await c.del(`/v1/webhooks/${hook.body.id}`);
  });

  it('names the exact key of asset_urls whose name breaks the key rule, and the rule', async () => {
    const unnamed = await c.put('/v1/brand', {
      fields: { name: 'Harbor' },
      asset_urls: { logo: 'https://cdn.example.com/logo.png', '': 'https://cdn.example.com/x.png' },
    });
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.error).toEqual({
      type: 'invalid_request_error',
      param: 'asset_urls[""]',
      message: 'Invalid key asset_urls[""]: must have at least 1 character',
    });
    const key = 'logo-x'.repeat(34);
    const long = await c.put('/v1/brand', { fields: { name: 'Harbor' }, asset_urls: { [key]: 'https://cdn.example.com/x.png' } });
    expect(long.body.error).toEqual({
      type: 'invalid_request_error',
      param: `asset_urls["${key}"]`,
      message: `Invalid key asset_urls["${key}"]: must have at most 200 characters (it has 204)`,
    });
    expect((await c.get('/v1/brand')).body.fields).toBeNull();
  });

  it('says why a webhook address on a private or loopback host is refused, in one sentence naming the field, the host and why', async () => {
    const literal = await c.post('/v1/webhooks', { url: 'https://10.0.0.8/hook', event_types: ['*'] });
    expect(literal.status).toBe(400);
    expect(literal.body.error).toEqual({
      type: 'invalid_request_error',
      param: 'url',
      message:
        'Invalid url: is refused: the host 10.0.0.8 is a private or reserved address, and webhooks are never sent into private networks (they could reach services not meant to be public)',
    });
    const loop = await c.post('/v1/webhooks', { url: 'https://127.0.0.1:8443/hook', event_types: ['*'] });
    expect(loop.body.error).toMatchObject({
      param: 'url',
      message:
        'Invalid url: is refused: the host 127.0.0.1 is a loopback address, and webhooks go to loopback receivers only when the server runs with --allow-insecure-webhooks (for local development)',
    });
    expect((await c.get('/v1/webhooks')).body.total_count).toBe(0);
  });

  it('takes a brand image address as a pack asset\'s link is written (a full https:// address, or "" for none), under an asset key', async () => {
    for (const [url, words] of [
      ['javascript:alert(1)', 'must be an https:// address'],
      ['http://cdn.example.com/logo.png', 'must be an https:// address'],
      ['logo.png', 'must be an https:// address'],
      ['https://cdn example.com/logo.png', 'must be a full web address'],
    ]) {
      const r = await c.put('/v1/brand', { fields: { name: 'Harbor' }, asset_urls: { logo: url } });
      expect(r.status, url).toBe(400);
      expect(r.body.error, url).toMatchObject({ param: 'asset_urls.logo', message: `Invalid asset_urls.logo: ${words}` });
    }
    const unnamed = await c.put('/v1/brand', { fields: { name: 'Harbor' }, asset_urls: { '': 'https://cdn.example.com/logo.png' } });
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.error.param).toBe('asset_urls[""]');
    expect((await c.get('/v1/brand')).body.fields).toBeNull();
    const set = await c.put('/v1/brand', {
      fields: { name: 'Harbor' },
      asset_urls: { logo: 'https://cdn.example.com/logo.png', favicon: '' },
    });
    expect(set.status).toBe(200);
    expect(set.body.asset_urls).toEqual({ logo: 'https://cdn.example.com/logo.png', favicon: '' });
  });

  it('says a rule the store checks in the form a schema check says it: Invalid <field>: …', async () => {
    const t = (await c.post('/v1/transactions', { name: 'Words' })).body;
    const rate = await c.patch(`/v1/transactions/${t.id}`, { commission_rate: '101' });
    expect(rate.body.error).toEqual({
      type: 'invalid_request_error',
      param: 'commission_rate',
      message: 'Invalid commission_rate: must be a percentage of at most 100',
    });
    const price = await c.patch(`/v1/transactions/${t.id}`, { sale_price: '-5' });
    expect(price.body.error).toMatchObject({
      param: 'sale_price',
      message: 'Invalid sale_price: must be a non-negative decimal string, such as 350000 or 2.5',
    });
    const date = await c.patch(`/v1/transactions/${t.id}`, { contract_date: '2026-02-30' });
    expect(date.body.error).toMatchObject({ param: 'contract_date' });
    const value = await c.post('/v1/deals', { name: 'Huge', stage_id: stageId, value: '1000000000000000' });
    expect(value.body.error).toMatchObject({
      param: 'value',
      message: 'Invalid value: must be less than 1,000,000,000,000,000 (at most 15 digits before the decimal point)',
    });
    const hook = await c.post('/v1/webhooks', { url: 'http://example.com/hook', event_types: ['*'] });
    expect(hook.body.error).toMatchObject({ param: 'url', message: 'Invalid url: must use https://' });
    const ws = (await server.admin.post('/admin/workspaces', { name: 'Past', slug: `past-${kind}-${Date.now()}` })).body;
    const key = await server.admin.post(`/admin/workspaces/${ws.id}/api-keys`, {
      scopes: ['read_contacts'],
      expires_at: '2020-01-01T00:00:00Z',
    });
    expect(key.body.error).toMatchObject({ param: 'expires_at', message: 'Invalid expires_at: must be in the future' });
    for (const r of [rate, price, date, value, hook, key]) {
      expect(r.status).toBe(400);
      expect(message(r)).toMatch(new RegExp(`^Invalid ${r.body.error.param}: (must|is) `));
    }
  });

  it('answers a method a known path does not take with 405 naming the methods it takes, and an unknown path with 404', async () => {
    const put = await c.put('/v1/contacts/con_x', { first_name: 'A' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('DELETE, GET, HEAD, PATCH');
    expect(put.body.error).toEqual({
      type: 'invalid_request_error',
      message: 'PUT is not a method of /v1/contacts/{contact_id}; it takes DELETE, GET, HEAD, PATCH',
    });
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
    expect(r.body.error).toEqual({
      type: 'invalid_request_error',
      message: 'The request body is larger than 14,046,552 bytes, the most the API takes (a media upload of a 10 MiB file as base64)',
    });
  });

  it('refuses a compressed body with a 415 that says so, not as malformed JSON', async () => {
    const { gzipSync } = await import('node:zlib');
    const res = await fetch(`${server.base}/v1/contacts`, {
      method: 'POST',
      headers: { authorization: c.key ? `Bearer ${c.key}` : '', 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ first_name: 'G', last_name: 'Z' })),
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({
      error: {
        type: 'invalid_request_error',
        message: 'Request bodies are read as sent: Content-Encoding gzip is not supported; send the JSON uncompressed',
      },
    });
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
    const key = await server.admin.post(`/admin/workspaces/${ws.id}/api-keys`, {
      scopes: ['read_contacts'],
      expires_at: '',
      member_id: '',
    });
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
