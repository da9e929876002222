import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, TEST_DATABASE_URL, type StoreKind, type TestServer } from './harness.js';

/**
 * GET /v1/contacts is written by PostgreSQL as JSON text (modules/contacts/list.ts, contactTextSelect);
 * GET /v1/contacts/:id goes through the Contact schema's serialiser. The two must be the same
 * bytes, for text that needs escaping and for custom fields whose jsonb text differs from JSON's.
 */
function defineContactsJson(kind: StoreKind) {
  let s: TestServer;
  let key: string;
  const ids: string[] = [];

  const raw = async (path: string, k = key) => {
    const res = await fetch(`${s.base}${path}`, { headers: { authorization: `Bearer ${k}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    return res.text();
  };

  /** A workspace of its own with a member, for the tests that write. */
  async function writerWorkspace() {
    const ws = await s.workspace();
    const member = await s.admin.post(`/admin/workspaces/${ws.id}/members`, { name: 'Writer', email: 'w@example.com' });
    const stage = (await ws.client.get('/v1/contact-stages?limit=1')).body.data[0].id;
    const source = (await ws.client.get('/v1/lead-sources?limit=1')).body.data[0].id;
    return { key: ws.key, refs: { stage, source, member: member.body.id as string } };
  }

  beforeAll(async () => {
    s = await startServer(kind);
    const ws = await s.workspace();
    key = ws.key;
    const member = await s.admin.post(`/admin/workspaces/${ws.id}/members`, { name: 'Zoë "Z" Ågren', email: 'z@example.com' });
    const stage = (await ws.client.get('/v1/contact-stages?limit=1')).body.data[0].id;
    const source = (await ws.client.get('/v1/lead-sources?limit=1')).body.data[0].id;
    await s.store.db.query(
      `INSERT INTO tags (id, workspace_id, name, color, created_at) VALUES ('tag_b', $1, 'Buyer', '#ff0000', now()), ('tag_a', $1, 'ärger\\tline', NULL, now())`,
      [ws.id],
    );
    const bodies = [
      { first_name: 'Plain', last_name: 'Person' },
      {
        first_name: 'Quote " back\\slash',
        last_name: 'Ctl \u0001\u001f\n\r\t\b\f end',
        emails: [
          { value: 'b@example.com', label: 'Work' },
          { value: 'a@example.com', label: 'Home', is_primary: true, position: 0 },
        ],
        phones: [
          { value: '+1 (207) 555-0100', label: 'Mobile' },
          { value: '207.555.0101', label: 'Fax', is_primary: true },
        ],
        address: '1 Main St',
        city: 'Portland',
        state: 'ME',
        zip_code: '04101',
        company: 'Harbor 🌊 Realty',
        job_title: '',
        notes: 'line1\nline2 \u2028 \u00e9',
        stage_id: stage,
        lead_source_id: source,
        owner_id: member.body.id,
        custom_fields: {
          zeta: 1.0,
          a: 1.5,
          // eslint-disable-next-line no-loss-of-precision -- a number JSON holds only approximately, on purpose
          big: 12345678901234567890,
          exp: 1e3,
          nested: { list: [1, 'two', null, true, { k: 'v' }] },
          ünï: '😀',
          '': '',
        },
      },
      { first_name: 'Only', last_name: 'Email', email: 'only@example.com', custom_fields: {} },
    ];
    for (const b of bodies) {
      s.clock.advance(1001); // distinct created_at (with milliseconds), so newest first is this order
      const r = await ws.client.post('/v1/contacts', b);
      expect(r.status).toBe(201);
      ids.unshift(r.body.id);
    }
    await ws.client.put(`/v1/contacts/${ids[1]}/tags/tag_b`);
    await ws.client.put(`/v1/contacts/${ids[1]}/tags/tag_a`);
    expect((await ws.client.post(`/v1/contacts/${ids[1]}/notes`, { body: 'called' })).status).toBe(201);
  });
  afterAll(async () => s?.close());

  it('writes each contact of a page byte for byte as GET /v1/contacts/:id does', async () => {
    const singles = await Promise.all(ids.map((id) => raw(`/v1/contacts/${id}`)));
    expect(JSON.parse(singles[1]).tags.map((t: { id: string }) => t.id)).toEqual(['tag_b', 'tag_a']);
    expect(JSON.parse(singles[1]).last_activity_at).not.toBeNull();
    const list = await raw('/v1/contacts?limit=100');
    expect(list).toBe(`{"data":[${singles.join(',')}],"has_more":false,"next_cursor":null,"total_count":3}`);
  });

  it('answers POST /v1/contacts, built without a read-back, with the bytes GET /v1/contacts/:id then reads, and records that contact as the event', async () => {
    const { key: k2, refs } = await writerWorkspace();
    const post = (body: unknown) => {
      s.clock.advance(1); // events are newest first by created_at
      return fetch(`${s.base}/v1/contacts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${k2}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    };
    const body = {
      first_name: 'Ünï "code"',
      last_name: 'Tab\there',
      emails: [
        { value: 'x@example.com', label: 'Other' },
        { value: 'y@example.com', label: 'Work', is_primary: true },
      ],
      phone: '+12075550199',
      company: 'Co',
      stage_id: refs.stage,
      lead_source_id: refs.source,
      owner_id: refs.member,
      custom_fields: { zz: { b: 1, a: [2.5, 'x'] }, a: 1.0, dup: 'first', ÿ: null },
    };
    for (const b of [body, { first_name: 'A', last_name: 'B' }]) {
      const res = await post(b);
      expect(res.status).toBe(201);
      const created = await res.text();
      expect(created).toBe(await raw(`/v1/contacts/${JSON.parse(created).id}`, k2));
      const events = JSON.parse(await raw('/v1/events?type=contact.created&limit=1', k2));
      expect(events.data[0].data).toEqual(JSON.parse(created));
    }
  });

  it('answers PATCH, built without a read-back, with the bytes GET then reads; keeps row ids once; records a stage change as contact.updated with its changed fields', async () => {
    const { key: k2, refs } = await writerWorkspace();
    const client = s.anon.withKey(k2);
    const stages = (await client.get('/v1/contact-stages?limit=2')).body.data.map((x: { id: string }) => x.id);
    const created = await client.post('/v1/contacts', {
      first_name: 'Pat',
      last_name: 'Ch',
      emails: [
        { value: 'a@example.com', label: 'Home' },
        { value: 'b@example.com', label: 'Work' },
      ],
      phone: '+12075550111',
      stage_id: stages[0],
      owner_id: refs.member,
      custom_fields: { zz: 1, a: 'x' },
    });
    expect(created.status).toBe(201);
    const keptId = created.body.emails[1].id;
    const patch = async (body: unknown) => {
      s.clock.advance(1);
      const res = await fetch(`${s.base}/v1/contacts/${created.body.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${k2}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toBe(await raw(`/v1/contacts/${created.body.id}`, k2));
      return JSON.parse(text);
    };
    const timeline = async () =>
      (await client.get(`/v1/contacts/${created.body.id}/activities?limit=100`)).body.data.map((a: { type: string }) => a.type);
    const events = async () => JSON.parse(await raw('/v1/events?type=contact.updated&limit=100', k2)).data;

    const changed = await patch({
      stage_id: stages[1],
      company: 'New "Co"',
      custom_fields: { b: { y: [1.5, null], x: 'ü' }, a: 1.0 },
      emails: [
        { id: keptId, value: 'b2@example.com', label: 'Work', is_primary: true },
        { id: keptId, value: 'dup@example.com', label: 'Other' },
        { value: 'new@example.com', label: 'Home' },
      ],
    });
    expect(changed.emails.map((e: { value: string }) => e.value)).toEqual(['b2@example.com', 'dup@example.com', 'new@example.com']);
    expect(changed.emails[0].id).toBe(keptId);
    expect(new Set(changed.emails.map((e: { id: string }) => e.id)).size).toBe(3);
    expect(changed.email).toBe('b2@example.com');
    expect(changed.stage.id).toBe(stages[1]);
    expect(changed.updated_at).not.toBe(created.body.updated_at);
    const [event] = await events();
    expect(event.data).toEqual(changed);
    expect(event.changed_fields).toEqual(['emails', 'company', 'stage_id', 'custom_fields']);
    expect((await timeline()).sort()).toEqual(['contact_created', 'contact_updated', 'stage_changed']);

    // The same values again (custom fields in another key order) change nothing and write nothing.
    const same = await patch({ company: 'New "Co"', custom_fields: { a: 1, b: { x: 'ü', y: [1.5, null] } } });
    expect(same).toEqual(changed);
    expect(await timeline()).toHaveLength(3);
    expect(await events()).toHaveLength(1);

    // Another field without a stage change: a timeline entry, no event; clearing the owner says so.
    const cleared = await patch({ owner_id: '', phones: null });
    expect(cleared).toMatchObject({ owner: null, phone: null, phones: [] });
    expect((await timeline()).filter((t: string) => t === 'owner_changed')).toHaveLength(1);
    expect(await events()).toHaveLength(1);
  });

  it('answers POST notes, built without a read-back, with the activity the timeline then lists, and records it as note.created', async () => {
    const { key: k2 } = await writerWorkspace();
    const client = s.anon.withKey(k2);
    const c = (await client.post('/v1/contacts', { first_name: 'Note', last_name: 'Taker' })).body;
    s.clock.advance(5);
    const res = await fetch(`${s.base}/v1/contacts/${c.id}/notes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k2}`, 'content-type': 'application/json' },
      body: JSON.stringify({ body: 'Called "back" \u00e9' }),
    });
    expect(res.status).toBe(201);
    const note = await res.text();
    const listed = JSON.parse(await raw(`/v1/contacts/${c.id}/activities?limit=1`, k2)).data[0];
    expect(note).toBe(JSON.stringify(listed));
    expect(JSON.parse(await raw(`/v1/contacts/${c.id}`, k2)).last_activity_at).toBe(listed.created_at);
    const [event] = JSON.parse(await raw('/v1/events?type=note.created&limit=1', k2)).data;
    expect(event.data).toEqual({ ...listed, contact_id: c.id });
    const missing = await client.post('/v1/contacts/con_nope/notes', { body: 'x' });
    expect(missing.status).toBe(404);
    expect(JSON.parse(await raw('/v1/events?type=note.created&limit=100', k2)).data).toHaveLength(1);
  });

  it('applies concurrent PATCHes of one contact each whole: every one answers with its change, the contact ends as one of them, one timeline entry each', async () => {
    const { key: k2 } = await writerWorkspace();
    const client = s.anon.withKey(k2);
    const c = (await client.post('/v1/contacts', { first_name: 'Race', last_name: 'Y', email: 'start@example.com' })).body;
    const n = 20;
    const replies = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        client.patch(`/v1/contacts/${c.id}`, { job_title: `title ${i}`, emails: [{ value: `p${i}@example.com`, label: 'Work' }] }),
      ),
    );
    replies.forEach((r, i) => {
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ job_title: `title ${i}`, email: `p${i}@example.com` });
    });
    const end = (await client.get(`/v1/contacts/${c.id}`)).body;
    expect(end.emails).toHaveLength(1);
    expect(end.email).toBe(`p${end.job_title.slice('title '.length)}@example.com`);
    const types = (await client.get(`/v1/contacts/${c.id}/activities?limit=100`)).body.data.map((a: { type: string }) => a.type);
    expect(types.filter((t: string) => t === 'contact_updated')).toHaveLength(n);
  });

  it('refuses a reference of another workspace or none, naming the first such field, and writes nothing', async () => {
    const other = await s.workspace();
    const otherStage = (await other.client.get('/v1/contact-stages?limit=1')).body.data[0].id;
    const { key: k2, refs } = await writerWorkspace();
    const client = s.anon.withKey(k2);
    const before = JSON.parse(await raw('/v1/contacts?limit=1', k2)).total_count;
    const eventsBefore = JSON.parse(await raw('/v1/events?type=contact.created&limit=100', k2)).data.length;
    const cases: [Record<string, string>, string, string][] = [
      [{ stage_id: otherStage }, 'stage_id', `No such contact stage: ${otherStage}`],
      [{ stage_id: refs.stage, lead_source_id: 'lsrc_nope' }, 'lead_source_id', 'No such lead source: lsrc_nope'],
      [{ lead_source_id: 'lsrc_nope', owner_id: 'mem_nope' }, 'lead_source_id', 'No such lead source: lsrc_nope'],
      [{ owner_id: 'mem_nope' }, 'owner_id', 'No such member: mem_nope'],
    ];
    for (const [refsIn, param, message] of cases) {
      const r = await client.post('/v1/contacts', { first_name: 'No', last_name: 'Write', email: 'no@example.com', ...refsIn });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param, message });
    }
    expect(JSON.parse(await raw('/v1/contacts?limit=1', k2)).total_count).toBe(before);
    expect(JSON.parse(await raw('/v1/contacts?limit=1&email=no@example.com', k2)).total_count).toBe(0);
    expect(JSON.parse(await raw('/v1/events?type=contact.created&limit=100', k2)).data.length).toBe(eventsBefore);
    const empty = await client.post('/v1/contacts', {
      first_name: 'Empty',
      last_name: 'Refs',
      stage_id: '',
      lead_source_id: '',
      owner_id: '',
    });
    expect(empty.status).toBe(201);
    expect(empty.body).toMatchObject({ stage: null, lead_source: null, owner: null });
  });

  it('pages with a cursor and counts the matches of a filter', async () => {
    const first = JSON.parse(await raw('/v1/contacts?limit=2'));
    expect(first.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 2));
    expect(first).toMatchObject({ has_more: true, total_count: 3 });
    const second = JSON.parse(await raw(`/v1/contacts?limit=2&cursor=${first.next_cursor}`));
    expect(second).toMatchObject({ data: [{ id: ids[2] }], has_more: false, next_cursor: null, total_count: 3 });
    const none = await raw('/v1/contacts?q=nobody-matches-this');
    expect(none).toBe('{"data":[],"has_more":false,"next_cursor":null,"total_count":0}');
    const q = JSON.parse(await raw(`/v1/contacts?q=${encodeURIComponent('HARBOR 🌊')}`));
    expect(q).toMatchObject({ data: [{ id: ids[1] }], total_count: 1 });
  });
}

describe('contact list JSON on PGlite', () => defineContactsJson('pglite'));
describe.skipIf(!TEST_DATABASE_URL)('contact list JSON on PostgreSQL (needs TEST_DATABASE_URL)', () => defineContactsJson('postgres'));
