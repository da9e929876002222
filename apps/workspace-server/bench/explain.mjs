// Prints the query plans of the list queries over a workspace of 100,000 contacts (plus a second
// workspace), as markdown for docs/store.md. Usage: node bench/explain.mjs [DATABASE_URL]
import { openStore, createWorkspace, contactListQueries } from '../dist/index.js';
import { seedContacts } from './seed-bulk.mjs';

const url = process.argv[2] ?? process.env.DATABASE_URL;
const schema = `explain_${Date.now()}`;
const store = url ? await openStore({ databaseUrl: url, schema }) : await openStore({ memory: true });
const ws = await createWorkspace(store.db, { name: 'Explain', slug: 'explain' }, new Date());
const other = await createWorkspace(store.db, { name: 'Other', slug: 'other' }, new Date());
await seedContacts(store.db, ws.id, 100000);
await seedContacts(store.db, other.id, 1000, new Date('2024-01-01'));
const cursor = Buffer.from(JSON.stringify(['2025-01-01T10:00:00.000Z', 'con_x'])).toString('base64url');
const cases = [
  ['first page', { limit: 100 }],
  ['a later page (cursor)', { limit: 100, cursor }],
  ['q matching 10% of contacts', { limit: 100, q: 'harbor' }],
  ['q matching one contact', { limit: 100, q: 'user77777@' }],
  ['exact email', { limit: 100, email: 'user5@example.com' }],
];
const explain = async (sql, params) =>
  (await store.db.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) ${sql}`, params)).rows.map((r) => r['QUERY PLAN']).join('\n');
let out = `Store: ${url ? 'PostgreSQL' : 'PGlite'}; 100,000 contacts in the workspace, 1,000 in another.\n`;
for (const [title, f] of cases) {
  const q = contactListQueries(ws.id, f);
  out += `\n#### GET /v1/contacts — ${title}\n\n\`\`\`\n${await explain(q.pageSql, q.pageParams)}\n\`\`\`\n`;
}
const q = contactListQueries(ws.id, { limit: 100 });
out += `\n#### total_count (the documented exception: proportional to the matches)\n\n\`\`\`\n${await explain(q.countSql, q.countParams)}\n\`\`\`\n`;
process.stdout.write(out);
if (url) await store.db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
await store.close();
