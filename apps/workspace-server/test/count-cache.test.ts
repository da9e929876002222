import { describe, expect, it } from 'vitest';
import { Client, serversSharingAStore, TEST_DATABASE_URL, type StoreKind } from './harness.js';

/**
 * Filtered contact counts are cached at the workspace's write generation (store/contacts.ts,
 * migration 4). Every way a contact can change must move the count: the API, plain SQL, a cascade
 * from a deleted stage, and on PostgreSQL another server on the same database.
 */
function defineCountCache(kind: StoreKind) {
  const servers = serversSharingAStore(kind, 'cnt');

  it('stays exact through API writes, plain SQL, cascades and other servers', async () => {
    const { s, other } = servers;
    const ws = await s.workspace();
    const count = async (query: string) => (await ws.client.get(`/v1/contacts?limit=1&${query}`)).body.total_count as number;
    const stage = (await ws.client.get('/v1/contact-stages?limit=1')).body.data[0].id as string;
    const a = (await ws.client.post('/v1/contacts', { first_name: 'A', last_name: 'One', company: 'Harbor Realty', stage_id: stage })).body.id;
    const b = (await ws.client.post('/v1/contacts', { first_name: 'B', last_name: 'Two', company: 'Bay Homes' })).body.id;
    expect(await count('q=harbor')).toBe(1);
    expect(await count('q=harbor')).toBe(1); // answered from the cache
    await ws.client.post('/v1/contacts', { first_name: 'C', last_name: 'Three', company: 'harbor view' });
    expect(await count('q=harbor')).toBe(2);
    await ws.client.patch(`/v1/contacts/${a}`, { company: 'Inland' });
    expect(await count('q=harbor')).toBe(1);
    await s.store.db.query(`UPDATE contacts SET search_text = search_text || ' harbor' WHERE id = $1`, [b]);
    expect(await count('q=harbor')).toBe(2);
    await ws.client.del(`/v1/contacts/${b}`);
    expect(await count('q=harbor')).toBe(1);
    expect(await count(`stage_id=${stage}`)).toBe(1);
    expect(await count(`stage_id=${stage}`)).toBe(1);
    await s.store.db.query('DELETE FROM contact_stages WHERE id = $1', [stage]); // contacts.stage_id is set null by the cascade
    expect(await count(`stage_id=${stage}`)).toBe(0);
    if (other) {
      const otherClient = new Client(other.base, ws.key);
      expect(await count('q=harbor')).toBe(1);
      await otherClient.post('/v1/contacts', { first_name: 'D', last_name: 'Four', company: 'Harbor Two' });
      expect(await count('q=harbor')).toBe(2);
    }
  });
}

describe('cached contact counts on PGlite', () => defineCountCache('pglite'));
describe.skipIf(!TEST_DATABASE_URL)('cached contact counts on PostgreSQL, two servers (needs TEST_DATABASE_URL)', () => defineCountCache('postgres'));
