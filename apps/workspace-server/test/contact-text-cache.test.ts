import { describe, expect, it } from 'vitest';
import { ContactTextCache, contactPageCache, contactTextCache } from '../src/modules/contacts/cache.js';
import { Client, serversSharingAStore, TEST_DATABASE_URL, type StoreKind } from './harness.js';

/**
 * GET /v1/contacts reuses a contact's JSON text while its row version and the workspace's lookup
 * generation are unchanged (modules/contacts/cache.ts ContactTextCache, migration 5). Every way a contact's
 * text can change must reach the list: each API write, plain SQL on each table a contact reads
 * from, cascades, and on PostgreSQL a second server on the same database. After each change the
 * list is compared with GET /v1/contacts/:id, which the cache does not serve.
 */
function defineTextCache(kind: StoreKind) {
  const servers = serversSharingAStore(kind, 'txt');

  it('lists every change however it is made, and reuses the text of contacts that did not change', async () => {
    const { s, other } = servers;
    const ws = await s.workspace();
    const c = ws.client;
    const sql = (text: string, params: unknown[] = []) => s.store.db.query(text, params);
    const member = (await s.admin.post(`/admin/workspaces/${ws.id}/members`, { name: 'Avery Brooks', email: 'avery@example.com' })).body
      .id as string;
    const stage = (await c.get('/v1/contact-stages?limit=1')).body.data[0].id as string;
    const source = (await c.get('/v1/lead-sources?limit=1')).body.data[0].id as string;
    const tag = (await c.post('/v1/tags', { name: 'Buyer', color: '#00aa00' })).body.id as string;
    const a = (
      await c.post('/v1/contacts', {
        first_name: 'Ann',
        last_name: 'Lee',
        email: 'ann@example.com',
        phone: '+12075550100',
        stage_id: stage,
        lead_source_id: source,
        owner_id: member,
      })
    ).body.id as string;
    const b = (await c.post('/v1/contacts', { first_name: 'Bo', last_name: 'Ray', email: 'bo@example.com' })).body.id as string;
    await c.put(`/v1/contacts/${a}/tags/${tag}`);
    const cache = contactTextCache(s.store.db);
    const pages = contactPageCache(s.store.db);

    /** The list as served, and each contact as GET /v1/contacts/:id serves it. */
    async function listMatchesContacts(client: Client = c) {
      const list = await client.get('/v1/contacts?limit=10');
      expect(list.status).toBe(200);
      const one = await Promise.all((list.body.data as { id: string }[]).map((x) => client.get(`/v1/contacts/${x.id}`)));
      expect(list.body.data).toEqual(one.map((r) => r.body));
      expect(list.body.total_count).toBe(list.body.data.length);
      return list.body.data as Record<string, any>[];
    }
    const byId = (list: Record<string, any>[], id: string) => list.find((x) => x.id === id)!;

    await listMatchesContacts();
    const [hits, pageHits] = [cache.hits, pages.hits];
    const same = await listMatchesContacts();
    // Nothing written since: the page as it was served, no contact's text even looked up.
    expect([cache.hits - hits, pages.hits - pageHits]).toEqual([0, 1]);
    // A write that changes nothing the list shows still moves the write generation: the page's ids
    // and versions are read again, and both contacts' text comes from the cache.
    await sql('UPDATE contacts SET updated_at = updated_at WHERE id = $1', [a]);
    const [hits2, pageHits2] = [cache.hits, pages.hits];
    expect(await listMatchesContacts()).toEqual(same);
    expect([cache.hits - hits2, pages.hits - pageHits2]).toEqual([1, 0]); // a's row version moved

    // A creation's response text goes into the cache: the next list writes nothing out.
    const created = (
      await c.post('/v1/contacts', {
        first_name: 'Cy',
        last_name: 'Day',
        phone: '+12075550111',
        stage_id: stage,
        owner_id: member,
        custom_fields: { b: 1, a: [2] },
      })
    ).body.id as string;
    const beforeList = cache.hits;
    const withCreated = await listMatchesContacts();
    expect(byId(withCreated, created).stage.id).toBe(stage);
    expect(cache.hits - beforeList).toBe(3);
    await c.del(`/v1/contacts/${created}`);

    await c.patch(`/v1/contacts/${a}`, { job_title: 'Broker' });
    expect(byId(await listMatchesContacts(), a).job_title).toBe('Broker');
    await c.post(`/v1/contacts/${b}/notes`, { body: 'Called back' });
    expect(byId(await listMatchesContacts(), b).last_activity_at).not.toBe(byId(same, b).last_activity_at);
    await c.put(`/v1/contacts/${b}/tags/${tag}`);
    expect(byId(await listMatchesContacts(), b).tags.map((t: { id: string }) => t.id)).toEqual([tag]);
    await c.del(`/v1/contacts/${b}/tags/${tag}`);
    expect(byId(await listMatchesContacts(), b).tags).toEqual([]);

    // Names and colours a contact shows, changed through the API and in plain SQL.
    await c.patch(`/v1/tags/${tag}`, { name: 'Buyer (hot)', color: '#ff0000' });
    expect(byId(await listMatchesContacts(), a).tags[0]).toMatchObject({ name: 'Buyer (hot)', color: '#ff0000' });
    await c.patch(`/v1/contact-stages/${stage}`, { name: 'Warm lead' });
    expect(byId(await listMatchesContacts(), a).stage.name).toBe('Warm lead');
    // A PATCH that changes nothing writes nothing, so the page is served as it was.
    await listMatchesContacts();
    const beforeSame = pages.hits;
    await c.patch(`/v1/contact-stages/${stage}`, { name: 'Warm lead' });
    await c.patch(`/v1/tags/${tag}`, { color: '#ff0000' });
    await listMatchesContacts();
    expect(pages.hits - beforeSame).toBe(1);
    // A member changed in a way no contact shows moves the lookup generation and not the write
    // generation: the page is read again (and reads the same).
    const beforeMember = pages.hits;
    const shown = await listMatchesContacts();
    await sql('UPDATE members SET email = $2 WHERE id = $1', [member, 'avery.b@example.com']);
    expect(await listMatchesContacts()).toEqual(shown);
    expect(pages.hits - beforeMember).toBe(1); // the first of the two lists only
    await sql('UPDATE members SET name = $2 WHERE id = $1', [member, 'Avery B.']);
    expect(byId(await listMatchesContacts(), a).owner.name).toBe('Avery B.');
    await sql('UPDATE lead_sources SET name = $2 WHERE id = $1', [source, 'Open house']);
    expect(byId(await listMatchesContacts(), a).lead_source.name).toBe('Open house');

    // A contact's own rows, written in plain SQL without touching the contact.
    await sql('UPDATE contact_emails SET value = $2 WHERE contact_id = $1', [a, 'ann@harbor.example']);
    expect(byId(await listMatchesContacts(), a).email).toBe('ann@harbor.example');
    await sql('DELETE FROM contact_phones WHERE contact_id = $1', [a]);
    expect(byId(await listMatchesContacts(), a).phones).toEqual([]);
    await sql(`INSERT INTO contact_tags (contact_id, tag_id, workspace_id, created_at) VALUES ($1, $2, $3, now())`, [b, tag, ws.id]);
    expect(byId(await listMatchesContacts(), b).tags).toHaveLength(1);

    // Cascades: a deleted tag leaves its contacts, a deleted stage is cleared from them.
    await c.del(`/v1/tags/${tag}`);
    const afterTag = await listMatchesContacts();
    expect(byId(afterTag, a).tags).toEqual([]);
    expect(byId(afterTag, b).tags).toEqual([]);
    await c.del(`/v1/contact-stages/${stage}`);
    expect(byId(await listMatchesContacts(), a).stage).toBeNull();
    await c.del(`/v1/contacts/${b}`);
    expect((await listMatchesContacts()).map((x) => x.id)).toEqual([a]);

    if (other) {
      // Another server on the same database: it writes, this one lists (and the reverse).
      const otherClient = new Client(other.base, ws.key);
      await listMatchesContacts(otherClient);
      await otherClient.patch(`/v1/contacts/${a}`, { company: 'Harbor Realty' });
      expect(byId(await listMatchesContacts(), a).company).toBe('Harbor Realty');
      await c.patch(`/v1/contacts/${a}`, { company: 'Bay Homes' });
      expect(byId(await listMatchesContacts(otherClient), a).company).toBe('Bay Homes');
    }
  });

  it('keeps to its size, dropping text not read since it was last passed first', () => {
    const small = new ContactTextCache(10);
    small.set('a', '1', '0', 'aaaa', 0);
    small.set('b', '1', '0', 'bbbb', 0);
    expect(small.get('a', '1', '0', 0)).toBe('aaaa'); // a is now the most recently used
    small.set('c', '1', '0', 'cccc', 0); // 12 characters: b goes
    expect(small.get('b', '1', '0', 0)).toBeUndefined();
    expect(small.get('a', '1', '0', 0)).toBe('aaaa');
    expect(small.get('c', '1', '0', 0)).toBe('cccc');
    expect(small.get('a', '2', '0', 0)).toBeUndefined(); // another row version
    expect(small.get('a', '1', '1', 0)).toBeUndefined(); // another lookup generation
    expect(small.get('a', '1', '0', 3_600_001)).toBeUndefined(); // older than an hour
  });
}

describe('contact texts shared between processes (serve --workers; test/processes.test.ts runs it for real)', () => {
  it('hands on what this process wrote, once a turn of the event loop, and keeps what another sent without sending it on', async () => {
    const here = new ContactTextCache(1000);
    const there = new ContactTextCache(1000);
    const sent: unknown[] = [];
    here.onWritten = (texts) => {
      sent.push(texts);
      there.receive(texts, 0);
    };
    there.onWritten = () => sent.push('echo');
    here.written('a', '7', '1', '{"id":"a"}', 0);
    here.written('b', '8', '1', '{"id":"b"}', 0);
    here.written('big', '9', '1', 'x'.repeat(1001), 0); // larger than the cache: neither held nor sent
    here.set('c', '9', '1', '{"id":"c"}', 0); // held only, as a received text is
    expect(sent).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([
      [
        ['a', '7', '1', '{"id":"a"}'],
        ['b', '8', '1', '{"id":"b"}'],
      ],
    ]);
    expect([there.get('a', '7', '1', 0), there.get('b', '8', '1', 0), there.received]).toEqual(['{"id":"a"}', '{"id":"b"}', 2]);
    // Kept only at the version and generation it was written at, as any entry.
    expect([there.get('a', '8', '1', 0), there.get('a', '7', '2', 0), there.get('c', '9', '1', 0)]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect([there.hits, there.misses]).toEqual([2, 3]);
    await new Promise((r) => setImmediate(r));
    expect(sent).toHaveLength(1);
  });
});

describe('contact text cache on PGlite', () => defineTextCache('pglite'));
describe.skipIf(!TEST_DATABASE_URL)('contact text cache on PostgreSQL, two servers (needs TEST_DATABASE_URL)', () =>
  defineTextCache('postgres'),
);
