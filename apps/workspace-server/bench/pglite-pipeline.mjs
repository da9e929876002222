// The webhook pipeline's statements alone on an in-memory PGlite: N events of one workspace with 5
// verified endpoints, then fan-out, claim and record (every attempt acknowledged, no HTTP) in a
// loop until the queue is empty; prints the time spent in each. It separates the statements from
// the run around them (the worker's loop, HTTP, the receivers) when a backlog drains slowly.
// Usage: N=2000 node bench/pglite-pipeline.mjs
import { openStore, createWorkspace } from '../dist/index.js';
import { claimDue, recordSuccesses, fanOut } from '../dist/modules/webhooks/store.js';
const N = Number(process.env.N ?? 2000);
const store = await openStore({ memory: true });
const db = store.db;
const now = new Date();
const ws = await createWorkspace(db, { name: 'C', slug: 'c' }, now);
for (let e = 0; e < 5; e++)
  await db.query(
    `INSERT INTO webhook_endpoints (id, workspace_id, url, event_types, signing_key, verified_at, created_at, updated_at) VALUES ($1, $2, $3, '["contact.created"]', 'k', $4, $4, $4)`,
    [`ep_${e}`, ws.id, `https://h.example.com/${e}`, now.toISOString()],
  );
await db.query(
  `INSERT INTO events (id, workspace_id, type, data, created_at) SELECT 'evt_' || lpad(g::text, 6, '0'), $1, 'contact.created', jsonb_build_object('id', 'con_' || g, 'first_name', 'F'), $2::timestamptz FROM generate_series(1, $3::int) g`,
  [ws.id, now.toISOString(), N],
);
const t = { fan: 0, claim: 0, rec: 0 };
const time = async (k, f) => {
  const a = performance.now();
  const r = await f();
  t[k] += performance.now() - a;
  return r;
};
const at = new Date(now.getTime() + 1000);
let done = 0,
  rounds = 0;
for (;;) {
  const f = await time('fan', () => fanOut(db, at, 500, false));
  const c = await time('claim', () => claimDue(db, at, 64, 30_000));
  if (!c.length && !f.done) break;
  await time('rec', () =>
    recordSuccesses(
      db,
      c.map((d) => ({ d, startedAt: at, result: { statusCode: 200, error: null, body: 'ok', latencyMs: 1 } })),
      at,
    ),
  );
  done += c.length;
  rounds++;
}
console.log('N', N, 'deliveries', done, 'rounds', rounds, Object.fromEntries(Object.entries(t).map(([k, v]) => [k, Math.round(v)])));
await store.close();
