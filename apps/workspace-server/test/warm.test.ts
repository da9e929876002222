import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRoundTrips } from '../src/db/counting.js';
import type { Db } from '../src/db/db.js';
import type { Store } from '../src/open-store.js';
import { contactPageCache, contactTextCache, setContactTextCache } from '../src/modules/contacts/cache.js';
import { createContact } from '../src/modules/contacts/create.js';
import { listContactsJson, warmContactPages } from '../src/modules/contacts/list.js';
import { createApiKey, createWorkspace, revokeApiKey, workspacesToWarm } from '../src/modules/workspaces/store.js';
import { openTestStore, TEST_DATABASE_URL, type StoreKind } from './harness.js';

/**
 * A starting `serve` reads the first pages of recently active workspaces into its contact text
 * cache before it listens (docs/store.md, "A restart under load"): their first lists then cost the
 * page's versions only, and answer exactly what an unwarmed server answers.
 */
function defineWarm(kind: StoreKind) {
  let store: Store;
  const now = new Date('2026-03-02T10:00:00.000Z');
  const ws: string[] = [];
  beforeAll(async () => {
    store = await openTestStore(kind);
    for (let i = 0; i < 4; i++) {
      const w = await createWorkspace(store.db, { name: `Warm ${i}`, slug: `warm-${kind}-${i}` }, new Date(now.getTime() + i * 1000));
      ws.push(w.id);
      const key = await createApiKey(store.db, w.id, { scopes: ['full_access'] }, new Date(now.getTime() + i * 1000));
      if (i === 3) await revokeApiKey(store.db, key.id, now);
      for (let j = 0; j < 25; j++)
        await createContact(
          store.db,
          w.id,
          { first_name: `W${i}`, last_name: `C${j}`, email: `w${i}c${j}@example.com` },
          new Date(now.getTime() + j * 1000),
        );
    }
    // Workspace 0 sent requests in the last minutes, 1 more of them; 2 none (its key is the newest).
    const window = Math.floor(now.getTime() / 60000) * 60;
    await store.db.query(
      'INSERT INTO rate_limit_windows (workspace_id, window_start, count) VALUES ($1, $3, 5), ($2, $3, 9), ($1, $4, 1)',
      [ws[0], ws[1], window, window - 3600],
    );
  });
  afterAll(async () => store?.close());

  it('chooses the busiest recent workspaces first, then the newest keys, and none without a usable key', async () => {
    expect(await workspacesToWarm(store.db, now, 10)).toEqual([ws[1], ws[0], ws[2]]);
    expect(await workspacesToWarm(store.db, now, 2)).toEqual([ws[1], ws[0]]);
  });

  it('reads first pages into the text and page caches so the first list is not read again, the same bytes, and a list after a write answers from the texts', async () => {
    // A fresh object per store view: the caches are per Db.
    const cold = countRoundTrips(store.db);
    const expected = await listContactsJson(cold, ws[1], { limit: 20 } as never);
    const warm = countRoundTrips(store.db);
    expect(await warmContactPages(warm, [ws[1], ws[0], ws[2]], { deadline: Date.now() + 60_000, connections: 1 })).toBe(3);
    expect(warm.roundTrips).toBe(1); // one statement per fifty workspaces
    const cache = contactTextCache(warm);
    const pages = contactPageCache(warm);
    warm.resetRoundTrips();
    const [hits, pageHits] = [cache.hits, pages.hits];
    const body = await listContactsJson(warm, ws[1], { limit: 20 } as never);
    expect(body).toBe(expected);
    expect(JSON.parse(body).data).toHaveLength(20);
    // Nothing written since the warming read it: the page held, no text even looked up.
    expect([cache.hits - hits, pages.hits - pageHits]).toEqual([0, 1]);
    expect(warm.roundTrips).toBe(1);
    // A contact off the page written since: the page's versions read, its texts from the cache.
    await store.db.query(
      "UPDATE contacts SET job_title = 'Moved' WHERE id = (SELECT id FROM contacts WHERE workspace_id = $1 ORDER BY created_at LIMIT 1)",
      [ws[1]],
    );
    warm.resetRoundTrips();
    const [hits2, pageHits2] = [cache.hits, pages.hits];
    expect(await listContactsJson(warm, ws[1], { limit: 20 } as never)).toBe(expected);
    expect([cache.hits - hits2, pages.hits - pageHits2]).toEqual([20, 0]);
    expect(warm.roundTrips).toBe(1);
  });

  it("spreads the pages over the pool's connections, a statement on each at once", async () => {
    const spy = (connections?: number) => {
      const seen = { sent: 0, most: 0 };
      let inFlight = 0;
      const db = {
        ...store.db,
        query: async (...a: Parameters<Db['query']>) => {
          seen.sent++;
          seen.most = Math.max(seen.most, ++inFlight);
          try {
            return await store.db.query(...a);
          } finally {
            inFlight--;
          }
        },
      } as Db;
      return { seen, run: () => warmContactPages(db, [ws[1], ws[0], ws[2]], { deadline: Date.now() + 60_000, connections }) };
    };
    // By default as many at once as the pool has connections (PostgreSQL: at least 4), each with
    // its share of the workspaces; PGlite has no pool: one statement.
    const byPool = spy();
    expect(await byPool.run()).toBe(3);
    expect(byPool.seen).toEqual(kind === 'postgres' ? { sent: 3, most: 3 } : { sent: 1, most: 1 });
    const two = spy(2);
    expect(await two.run()).toBe(3);
    expect(two.seen).toEqual({ sent: 2, most: 2 });
  });

  it('stops at its deadline, and does nothing with the cache off', async () => {
    const late = countRoundTrips(store.db);
    expect(await warmContactPages(late, ws, { deadline: Date.now() - 1 })).toBe(0);
    expect(late.roundTrips).toBe(0);
    const off = countRoundTrips(store.db);
    setContactTextCache(off, 0);
    expect(await warmContactPages(off, ws, { deadline: Date.now() + 60_000 })).toBe(0);
    expect(off.roundTrips).toBe(0);
  });
}

describe('warming a restart on PGlite', () => defineWarm('pglite'));
describe.skipIf(!TEST_DATABASE_URL)('warming a restart on PostgreSQL (needs TEST_DATABASE_URL)', () => defineWarm('postgres'));
