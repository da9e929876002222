// The delivery worker's fair claim (claimDue) over a queue that has run for a while: 5 endpoints,
// 100,000 finished deliveries, 20 in flight, and 2,000 due, then 20,000 due (a queue fallen
// behind). Prints the plan and time of each, as markdown for docs/store.md: the claim should cost
// the same. The SQL is captured from the real claimDue, not restated.
// Usage: node bench/explain-claim.mjs [DATABASE_URL]
import { openStore, createWorkspace } from '../dist/index.js';
import { claimDue } from '../dist/modules/webhooks/store.js';

const url = process.argv[2] ?? process.env.DATABASE_URL;
if (!url) throw new Error('give a PostgreSQL URL (argument or DATABASE_URL)');
const schema = `explain_claim_${Date.now()}`;
const store = await openStore({ databaseUrl: url, schema });
const db = store.db;
const now = new Date('2026-11-22T12:00:00Z');
const ws = await createWorkspace(db, { name: 'Claim', slug: 'claim' }, now);
for (let e = 0; e < 5; e++)
  await db.query(
    `INSERT INTO webhook_endpoints (id, workspace_id, url, event_types, signing_key, verified_at, created_at, updated_at) VALUES ($1, $2, $3, '["contact.created"]', 'k', $4, $4, $4)`,
    [`ep_${e}`, ws.id, `https://hooks.example.com/${e}`, now.toISOString()],
  );
const rows = (status, n, offset, extra) =>
  db.query(
    `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, payload, status, attempt_count, next_attempt_at, lease_until, event_created_at, created_at, updated_at, completed_at)
     SELECT 'dlv_' || ($3::int + g), $1, 'ep_' || (g % 5), 'evt_' || ($3::int + g), 'contact.created', '{}', $4, 1, ${extra.next}, ${extra.lease}, $2, $2, $2, ${extra.done}
     FROM generate_series(1, $5::int) g`,
    [ws.id, now.toISOString(), offset, status, n],
  );
await rows('succeeded', 100000, 0, { next: 'NULL', lease: 'NULL', done: '$2::timestamptz' });
await rows('pending', 2000, 100000, { next: '$2::timestamptz', lease: 'NULL', done: 'NULL' });
await rows('sending', 20, 102000, { next: 'NULL', lease: "$2::timestamptz + interval '1 minute'", done: 'NULL' });
await db.query('ANALYZE');

// The statement claimDue issues, captured in a transaction that is rolled back (the claim is an UPDATE).
let captured;
await db
  .transaction(async (tx) => {
    const spy = { ...tx, query: (sql, params, opts) => ((captured ??= [sql, params ?? []]), tx.query(sql, params, opts)) };
    await claimDue(spy, new Date(now.getTime() + 1000), 64, 10_000);
    throw new Error('rollback');
  })
  .catch(() => {});
const [sql, params] = captured;
const explain = async () => {
  // EXPLAIN ANALYZE runs the claim; each run is rolled back so both see the same queue.
  const plan = await db
    .transaction(async (tx) => {
      const r = (await tx.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) ${sql}`, params)).rows
        .map((x) => x['QUERY PLAN'])
        .join('\n');
      throw Object.assign(new Error('rollback'), { plan: r });
    })
    .catch((e) => e.plan);
  return plan;
};
const time = (plan) => Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1]);
const small = await explain();
await rows('pending', 18000, 102020, { next: '$2::timestamptz', lease: 'NULL', done: 'NULL' });
await db.query('ANALYZE');
const big = await explain();
console.log(
  `#### claimDue with 2,000 due: ${time(small)} ms\n\n\`\`\`\n${small}\n\`\`\`\n\n#### claimDue with 20,000 due: ${time(big)} ms\n\n\`\`\`\n${big}\n\`\`\`\n`,
);
await db.query(`DROP SCHEMA ${schema} CASCADE`);
await store.close();
