// Prints docs/query-plans.md: the query plans of the list endpoints over a workspace of 100,000
// contacts, 20,000 deals and 20,000 transactions (plus a second workspace). The SQL is captured
// from the real store functions, not restated. Usage, after `npx tsc -b apps/workspace-server`:
//   node apps/workspace-server/bench/explain.mjs DATABASE_URL > docs/query-plans.md
// Without a URL it prints the same plans on PGlite.
import {
  openStore,
  contactPageCache,
  createWorkspace,
  listContactsJson,
  listDeals,
  listTransactions,
  setContactTextCache,
} from '../dist/index.js';
import { seedContacts } from './seed-bulk.mjs';

const url = process.argv[2] ?? process.env.DATABASE_URL;
const schema = `explain_${Date.now()}`;
const store = url ? await openStore({ databaseUrl: url, schema }) : await openStore({ memory: true });
const db = store.db;
const ws = await createWorkspace(db, { name: 'Explain', slug: 'explain' }, new Date());
const other = await createWorkspace(db, { name: 'Other', slug: 'other' }, new Date());
await seedContacts(db, ws.id, 100000);
await seedContacts(db, other.id, 1000, new Date('2024-01-01'));
const stage = (await db.query(`SELECT id, pipeline_id FROM pipeline_stages WHERE workspace_id = $1 AND type = 'OPEN' LIMIT 1`, [ws.id]))
  .rows[0];
const closing = (await db.query(`SELECT id FROM closing_stages WHERE workspace_id = $1 AND status = 'active'`, [ws.id])).rows[0];
await db.query(
  `INSERT INTO deals (id, workspace_id, name, pipeline_id, stage_id, status, created_at, updated_at)
   SELECT 'deal_bulk' || g, $1, 'Deal ' || g, $2, $3, 'open', now() - g * interval '1 minute', now() FROM generate_series(1, 20000) g`,
  [ws.id, stage.pipeline_id, stage.id],
);
await db.query(
  `INSERT INTO transactions (id, workspace_id, name, side, status, stage_id, sale_price, commission_rate, gross_commission, referral_fee,
     brokerage_split_rate, team_split_rate, transaction_fees, net_commission, search_text, created_at, updated_at)
   SELECT 'txn_bulk' || g, $1, 'Txn ' || g, 'buyer', 'active', $2, '0.00', '0.00', '0.00', '0.00', '0.00', '0.00', '0.00', '0.00',
          'txn ' || g, now() - g * interval '1 minute', now() FROM generate_series(1, 20000) g`,
  [ws.id, closing.id],
);
await db.query('ANALYZE');

/** Runs a store function against a recording Db and returns the statements it issued (one spy, so caches keyed by the Db persist). */
let seen = [];
const spy = { ...db, query: (sql, params, opts) => (seen.push([sql, params ?? [], opts?.prepare !== false]), db.query(sql, params, opts)) };
/** The same recording Db with the contact text cache off (the cache is per Db object). */
const spyOff = { ...spy };
setContactTextCache(spyOff, 0);
async function capture(fn) {
  seen = [];
  await fn(spy);
  return seen;
}
const OPTIONS = '(ANALYZE, COSTS OFF, TIMING OFF, BUFFERS OFF, SUMMARY ON)';
const lines = (rows) => rows.map((r) => r['QUERY PLAN']).join('\n');
/**
 * A statement sent prepared is shown with the plan PostgreSQL uses for it once it has run six
 * times on a connection, as the server's do: its generic plan, unless that looked costlier than
 * the plans for the values (a list filtered by values). One sent unprepared is planned for its values.
 */
async function explain(sql, params, prepared) {
  if (!prepared) return { plan: lines((await db.query(`EXPLAIN ${OPTIONS} ${sql}`, params, { prepare: false })).rows), generic: false };
  const literal = (v) => (v === null ? 'NULL' : `'${(Array.isArray(v) ? `{${v.join(',')}}` : String(v)).replace(/'/g, "''")}'`);
  const args = `(${params.map(literal).join(', ')})`;
  return db.transaction(async (tx) => {
    await tx.query(`PREPARE explained AS ${sql}`, [], { prepare: false });
    for (let i = 0; i < 6; i++) await tx.query(`EXECUTE explained${args}`, [], { prepare: false });
    const { rows } = await tx.query(`EXPLAIN ${OPTIONS} EXECUTE explained${args}`, [], { prepare: false });
    const kept = await tx.query("SELECT generic_plans::int > 0 AS generic FROM pg_prepared_statements WHERE name = 'explained'", [], {
      prepare: false,
    });
    await tx.query('DEALLOCATE explained', [], { prepare: false });
    return { plan: lines(rows), generic: kept.rows[0].generic };
  });
}

// Read once through the recording Db, so the first page's contacts are in its text cache.
const first = JSON.parse(await listContactsJson(spy, ws.id, { limit: 100 }));
// Each case reads its page, as a process that does not hold it would, but for the one marked `held`;
// a case's `note` is printed under its title.
const cases = [
  ['GET /v1/contacts — first page, its contacts in the text cache', (d) => listContactsJson(d, ws.id, { limit: 100 })],
  [
    'GET /v1/contacts — first page, served before and no contact written since (the page held, not read)',
    (d) => listContactsJson(d, ws.id, { limit: 100 }),
    { held: true },
  ],
  ['GET /v1/contacts — first page, with the text cache off', () => listContactsJson(spyOff, ws.id, { limit: 100 })],
  [
    'GET /v1/contacts — a later page (cursor), read for the first time',
    (d) => listContactsJson(d, ws.id, { limit: 100, cursor: first.next_cursor }),
  ],
  [
    'GET /v1/contacts?q= matching 10% of contacts, the term searched for the first time (planned for it)',
    (d) => listContactsJson(d, ws.id, { limit: 100, q: 'harbor' }),
  ],
  [
    'GET /v1/contacts?q= matching 10% of contacts, again (its count known: the newest-first plan, prepared)',
    (d) => listContactsJson(d, ws.id, { limit: 100, q: 'harbor' }),
  ],
  [
    'GET /v1/contacts?q= matching one contact, the term searched for the first time (planned for it)',
    (d) => listContactsJson(d, ws.id, { limit: 100, q: 'user77777@' }),
  ],
  [
    'GET /v1/contacts?q= matching one contact, again (its count known: the plan by its matches, prepared)',
    (d) => listContactsJson(d, ws.id, { limit: 100, q: 'user77777@' }),
  ],
  [
    'GET /v1/contacts?q= a phone written in another format, matching one contact',
    (d) => listContactsJson(d, ws.id, { limit: 100, q: '(207) 007-7777' }),
    {
      note: `A term that reads as a phone number (\`(207) 007-7777\`) is searched as written and by its digits
(\`2070077777\`, against the digits-only form of every phone in the search text): two LIKE
conditions ORed, which PostgreSQL serves with a \`BitmapOr\` of two scans of \`contacts_ws_search\`
([api.md](api.md#contacts)). A term of digits alone, or with letters, is one condition. Once its count
is known it takes the plan by its matches, as the one-contact search above does.`,
    },
  ],
  ['GET /v1/contacts?email=', (d) => listContactsJson(d, ws.id, { limit: 100, email: 'user5@example.com' })],
  ['GET /v1/deals — first page', (d) => listDeals(d, ws.id, { limit: 100 })],
  ['GET /v1/transactions — first page', (d) => listTransactions(d, ws.id, { limit: 50, offset: 0 })],
];
let out = `# Query plans

<!-- Generated by \`node apps/workspace-server/bench/explain.mjs DATABASE_URL > docs/query-plans.md\`. Do not edit by hand. -->

The plans PostgreSQL runs for the list endpoints, captured from the store's own functions
([store.md](store.md) says why each statement is shaped as it is). A statement the server sends
prepared is shown with the plan PostgreSQL uses once it has run it six times on a connection,
marked "prepared: its generic plan" when that is the generic plan; the others are planned for
their values, as the server's are. Each list reads its page as a process that does not hold it
would, but for the one that says the page is held. The schema is fresh, so the first statements
ran on a cold cache: compare shapes, and times only within a plan. Without a URL the script prints
the same plans on PGlite, whose times are several times PostgreSQL's (WebAssembly, one thread).

Store: ${url ? 'PostgreSQL' : 'PGlite'}. The workspace holds 100,000 contacts, 20,000 deals and 20,000 transactions; another workspace holds 1,000 contacts.
`;
for (const [title, fn, { held = false, note } = {}] of cases) {
  if (!held) contactPageCache(spy).clear();
  const statements = await capture(fn);
  out += `\n## ${title}\n${note ? `\n${note}\n` : ''}`;
  for (const [sql, params, prepared] of statements) {
    const kind = sql.includes('contact_lookup_gens')
      ? sql.includes('AS head')
        ? sql.includes('AS total')
          ? 'total and page, every contact written out'
          : 'the text of the contacts not in the text cache'
        : "total, write generation and, unless the page is held at that generation, the page's ids and row versions (the texts come from the cache)"
      : statements.length === 1
        ? 'the one statement (total and page)'
        : /count\(|sum\(n\)/.test(sql.slice(0, 300))
          ? 'count'
          : 'page';
    const { plan, generic } = await explain(sql, params, prepared);
    out += `\n${kind}${generic ? ' (prepared: its generic plan)' : ''}:\n\n\`\`\`text\n${plan}\n\`\`\`\n`;
  }
}
process.stdout.write(out);
if (url) await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
await store.close();
