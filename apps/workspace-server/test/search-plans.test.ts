import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Queryable, QueryOptions } from '../src/db/db.js';
import { openStore, type Store } from '../src/open-store.js';
import { searchPlan } from '../src/modules/contacts/list.js';
import { type Client, startServer, TEST_DATABASE_URL, type TestServer, uniqueSchema } from './harness.js';

/**
 * A search's page takes one of two prepared plans once its term's count is known (modules/contacts/list.ts,
 * searchPlan; docs/store.md, "A search's plan"): a common term reads the workspace newest first
 * until the page is full, a rare one reads its matches by the trigram index and sorts them. The
 * first search of a term is planned for it. Whichever plan serves it, a search must return the
 * same contacts in the same order, page after page.
 */
describe('searchPlan', () => {
  it('walks newest first when a page is found sooner that way than by reading every match, or the workspace is small', () => {
    // 101 rows of 100,000 contacts: reading newest first visits about 101 × 100,000 ÷ total.
    expect(searchPlan({ total: '10000', size: '100000' }, 101)).toBe('walk'); // ~1,010 visited against 10,000
    expect(searchPlan({ total: '3179', size: '100000' }, 101)).toBe('walk'); // ~3,177 against 3,179
    expect(searchPlan({ total: '3178', size: '100000' }, 101)).toBe('matches'); // ~3,178.1 against 3,178
    expect(searchPlan({ total: '1', size: '100000' }, 101)).toBe('matches');
    expect(searchPlan({ total: '0', size: '100000' }, 101)).toBe('matches');
    expect(searchPlan({ total: '50', size: '50' }, 21)).toBe('walk'); // every contact matches
    // A small workspace is read whole for less than the trigram index costs.
    expect(searchPlan({ total: '10', size: '100' }, 21)).toBe('walk');
    expect(searchPlan({ total: '0', size: '1000' }, 21)).toBe('walk');
    expect(searchPlan({ total: '0', size: '1001' }, 21)).toBe('matches');
  });

  it('leaves a search with no count to be planned for its term, unless its workspace is known to be small', () => {
    expect(searchPlan(undefined, 101)).toBeUndefined();
    expect(searchPlan(undefined, 101, 1001)).toBeUndefined();
    expect(searchPlan(undefined, 101, 1000)).toBe('walk');
    expect(searchPlan(undefined, 21, 0)).toBe('walk');
  });
});

interface Sent {
  sql: string;
  params: unknown[];
  prepare: boolean;
}

/** The store's Db, recording every statement it is sent and whether it goes prepared. */
function recording(db: Db, sent: Sent[]): Db {
  const rec = (q: Queryable): Queryable => ({
    query(sql: string, params?: unknown[], opts?: QueryOptions) {
      sent.push({ sql, params: params ?? [], prepare: opts?.prepare !== false });
      return q.query(sql, params, opts);
    },
  });
  return {
    ...db,
    query: rec(db).query,
    pool: db.pool && {
      ...db.pool,
      size: db.pool.size,
      saturated: () => db.pool!.saturated(),
      withConnection: (fn) => db.pool!.withConnection((c) => fn(rec(c))),
    },
    transaction: (fn) => db.transaction((tx) => fn(rec(tx))),
  };
}

const N = 3000;
const BASE = Date.parse('2026-01-01T00:00:00.000Z');
/** Contact g's search text: a third `harbor_realty`, a third `harborxrealty` (matched by `harbor_` only if `_` were a wildcard), six with one phone. */
const searchTextOf = (g: number) =>
  `${g % 3 === 0 ? 'harbor_realty' : g % 3 === 1 ? 'harborxrealty' : `company ${g}`}${g % 500 === 7 ? ' +1 (207) 555-0107 12075550107' : ''}${g % 1000 === 11 ? ' rare 50%_off' : g % 1000 === 12 ? ' rare 50xxoff' : ''}`;
/** Two contacts share each second, so the id orders a page within it. */
const createdAtOf = (g: number) => BASE - Math.floor(g / 2) * 1000;
const idOf = (g: number) => `con_s${String(g).padStart(5, '0')}`;
/** The list's order, computed here: newest first, then id descending. */
const expectedIds = (match: (text: string) => boolean) =>
  Array.from({ length: N }, (_, i) => i + 1)
    .filter((g) => match(searchTextOf(g)))
    .sort((a, b) => createdAtOf(b) - createdAtOf(a) || (idOf(b) < idOf(a) ? -1 : 1))
    .map(idOf);

describe.each([
  { kind: 'pglite', open: () => openStore({ memory: true }) },
  { kind: 'postgres', open: () => openStore({ databaseUrl: TEST_DATABASE_URL!, schema: uniqueSchema(), poolSize: 1 }) },
] as const)('a search on $kind, by either plan (PostgreSQL: needs TEST_DATABASE_URL)', ({ kind, open }) => {
  const skip = kind === 'postgres' && !TEST_DATABASE_URL;
  let store: Store;
  let s: TestServer;
  let client: Client;
  const sent: Sent[] = [];
  beforeAll(async () => {
    if (skip) return;
    store = await open();
    s = await startServer(kind, { store: { ...store, db: recording(store.db, sent) }, webhooks: { pollMs: 0 } });
    const ws = await s.workspace();
    client = ws.client;
    const gs = Array.from({ length: N }, (_, i) => i + 1);
    await store.db.query(
      `INSERT INTO contacts (id, workspace_id, first_name, last_name, custom_fields, search_text, created_at, updated_at)
       SELECT x.id, $1, 'F', 'L', '{}'::jsonb, x.text, x.at, x.at
         FROM jsonb_to_recordset($2::jsonb) AS x(id text, text text, at timestamptz)`,
      [ws.id, JSON.stringify(gs.map((g) => ({ id: idOf(g), text: searchTextOf(g), at: new Date(createdAtOf(g)).toISOString() })))],
    );
    await store.db.query('ANALYZE contacts');
  });
  afterAll(async () => {
    await s?.close();
    await store?.close();
  });

  /** Every page of a search, following next_cursor; the statements each page sent. */
  async function search(q: string, limit: number, by: Client = client) {
    const ids: string[] = [];
    const totals = new Set<number>();
    const pages: Sent[][] = [];
    let cursor: string | null = null;
    do {
      const from = sent.length;
      const r = await by.get(`/v1/contacts?limit=${limit}&q=${encodeURIComponent(q)}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      ids.push(...r.body.data.map((c: { id: string }) => c.id));
      totals.add(r.body.total_count);
      pages.push(sent.slice(from).filter((s) => s.sql.includes('search_text')));
      cursor = r.body.has_more ? r.body.next_cursor : null;
    } while (cursor);
    return { ids, totals: [...totals], pages };
  }

  /** The plan PostgreSQL keeps for a prepared statement, run again with its values. */
  async function keptPlan(s: Sent): Promise<string> {
    const { rows } = await store.db.query<{ name: string; generic_plans: string }>(
      'SELECT name, generic_plans::text FROM pg_prepared_statements WHERE statement = $1',
      [s.sql],
      { prepare: false },
    );
    expect(rows).toHaveLength(1);
    expect(Number(rows[0].generic_plans)).toBeGreaterThan(0);
    const literal = (v: unknown) => (v === null ? 'NULL' : `'${(Array.isArray(v) ? `{${v.join(',')}}` : String(v)).replace(/'/g, "''")}'`);
    const plan = await store.db.query<Record<string, string>>(
      `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, BUFFERS OFF) EXECUTE "${rows[0].name}"(${s.params.map(literal).join(', ')})`,
      [],
      { prepare: false },
    );
    return plan.rows.map((r) => Object.values(r)[0]).join('\n');
  }

  const cases = [
    // 2,000 of 3,000: a page of 101 is found within about 150 contacts read newest first.
    { q: 'harbor', limit: 100, match: (t: string) => t.includes('harbor'), plan: 'walk' },
    // `_` is a character, not LIKE's wildcard, in either plan.
    { q: 'harbor_', limit: 100, match: (t: string) => t.includes('harbor_'), plan: 'walk' },
    { q: 'Rare 50%_', limit: 2, match: (t: string) => t.includes('rare 50%_'), plan: 'matches' },
    // A phone in another format: its digits match too (a BitmapOr of the trigram index's scans).
    { q: '(207) 555-0107', limit: 4, match: (t: string) => t.includes('12075550107'), plan: 'matches' },
  ] as const;

  it.skipIf(skip).each(cases)(
    '`$q`: planned for the term first, then its $plan plan, the same contacts in the same order',
    async ({ q, limit, match, plan }) => {
      const want = expectedIds(match);
      expect(want.length).toBeGreaterThan(limit); // more than one page
      // The first pass: its first page planned for the term (its count unknown), the rest by the plan chosen.
      const first = await search(q, limit);
      expect(first.ids).toEqual(want);
      expect(first.totals).toEqual([want.length]);
      expect(first.pages[0].every((s) => !s.prepare)).toBe(true);
      expect(
        first.pages
          .slice(1)
          .flat()
          .every((s) => s.prepare),
      ).toBe(true);
      // Enough passes for PostgreSQL to settle each prepared statement on a generic plan.
      for (let i = 0; i < 6; i++) expect((await search(q, limit)).ids).toEqual(want);
      const last = await search(q, limit);
      expect(last.ids).toEqual(want);
      expect(last.totals).toEqual([want.length]);
      const statements = last.pages.flat();
      expect(statements.every((s) => s.prepare)).toBe(true);
      // The page's own scan (`contacts c`; the count, never run while cached, reads `contacts c_1`).
      for (const s of [statements[0], statements.at(-1)!]) {
        const kept = await keptPlan(s);
        if (plan === 'walk') {
          expect(kept).toMatch(/Index Scan using contacts_ws_created on contacts c\s/);
          expect(kept).toMatch(/Filter: .*strpos\(search_text/);
        } else {
          // Every match read (by the trigram index, or on a table this small a sequential scan), then
          // sorted. (The page unchanged since it was read, this run leaves it out: its nodes are
          // the plan's, "never executed", without the sort's method.)
          expect(kept).toMatch(
            /Sort Key: c\.created_at DESC, c\.id DESC\n(.*Sort Method.*\n)?\s*-> {2}(Bitmap Heap|Seq) Scan on contacts c\s/,
          );
          expect(kept).not.toMatch(/contacts_ws_created on contacts c\s/);
        }
      }
    },
  );

  it.skipIf(skip)(
    "walks a workspace of at most 1,000 contacts from a term's first search once its size is known, and counts by reading every contact",
    async () => {
      const small = await s.workspace();
      const M = 300;
      const gs = Array.from({ length: M }, (_, i) => i + 1);
      const smallId = (g: number) => `con_t${String(g).padStart(5, '0')}`;
      await store.db.query(
        `INSERT INTO contacts (id, workspace_id, first_name, last_name, custom_fields, search_text, created_at, updated_at)
       SELECT x.id, $1, 'F', 'L', '{}'::jsonb, x.text, x.at, x.at
         FROM jsonb_to_recordset($2::jsonb) AS x(id text, text text, at timestamptz)`,
        [small.id, JSON.stringify(gs.map((g) => ({ id: smallId(g), text: searchTextOf(g), at: new Date(createdAtOf(g)).toISOString() })))],
      );
      const want = (match: (t: string) => boolean) =>
        gs
          .filter((g) => match(searchTextOf(g)))
          .sort((a, b) => createdAtOf(b) - createdAtOf(a) || (smallId(b) < smallId(a) ? -1 : 1))
          .map(smallId);
      // The workspace's first search: its size unknown here, planned for the term.
      const first = await search('harbor', 50, small.client);
      expect(first.ids).toEqual(want((t) => t.includes('harbor')));
      expect(first.pages[0].every((x) => !x.prepare)).toBe(true);
      // Its size now known (300): another term's first search is walked, prepared, and so is its count.
      for (const q of ['rare 50%_', '(207) 555-0107']) {
        const r = await search(q, 1, small.client);
        expect(r.ids).toEqual(want((t) => t.includes(q) || (q.startsWith('(') && t.includes('12075550107'))));
        expect(r.ids.length).toBeGreaterThan(0);
        expect(r.totals).toEqual([r.ids.length]);
        const statements = r.pages.flat();
        expect(statements.every((x) => x.prepare)).toBe(true);
        expect(statements[0].sql).toMatch(/strpos\(c\.search_text/);
        expect(statements[0].sql).not.toMatch(/search_text LIKE/);
      }
    },
  );
});
