import type { Migration } from '../../db/migrate.js';

/**
 * Webhook endpoints, the delivery queue and its attempt log, appended to the one
 * migration set. The queue lives in the database so several server processes share it.
 */
export const webhookMigrations: Migration[] = [
  {
    version: 501,
    name: 'webhook endpoints, delivery queue, attempt log',
    sql: `
CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  url text NOT NULL,
  description text,
  event_types jsonb NOT NULL,
  signing_key text NOT NULL,
  key_kind text NOT NULL DEFAULT 'secret',
  verified_at timestamptz,
  disabled_at timestamptz,
  disabled_reason text,
  consecutive_failures integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX webhook_endpoints_ws ON webhook_endpoints (workspace_id, created_at DESC, id DESC);

-- Fan-out marks each outbox row once; the partial index keeps the scan to the undispatched tail.
ALTER TABLE events ADD COLUMN dispatched_at timestamptz;
UPDATE events SET dispatched_at = created_at;
CREATE INDEX events_undispatched ON events (created_at, id) WHERE dispatched_at IS NULL;

CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  workspace_id text NOT NULL,
  endpoint_id text NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  event_id text NOT NULL,
  event_type text NOT NULL,
  payload text NOT NULL,
  status text NOT NULL,
  attempt_count integer NOT NULL DEFAULT 0,
  failed_count integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  lease_until timestamptz,
  last_status_code integer,
  last_error text,
  event_created_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  completed_at timestamptz,
  UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (lease_until) WHERE status = 'sending';
CREATE INDEX webhook_deliveries_ep ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);

CREATE TABLE webhook_attempts (
  id text PRIMARY KEY,
  delivery_id text NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempt_number integer NOT NULL,
  started_at timestamptz NOT NULL,
  latency_ms integer,
  status_code integer,
  outcome text NOT NULL,
  error text,
  response_excerpt text,
  UNIQUE (delivery_id, attempt_number)
);
`,
  },
  {
    version: 502,
    name: 'indexes for pruning old events and finished deliveries',
    sql: `
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (completed_at) WHERE status IN ('succeeded', 'failed');
CREATE INDEX webhook_deliveries_unfinished_event ON webhook_deliveries (event_id) WHERE status IN ('pending', 'sending');
CREATE INDEX events_created ON events (created_at);
`,
  },
  {
    version: 503,
    name: 'indexes for the fair claim: due and in-flight deliveries per endpoint',
    // claimDue takes each endpoint's oldest due deliveries and counts its attempts in flight;
    // without these the planner filters the global due and lease indexes by endpoint (docs/store.md).
    sql: `
CREATE INDEX webhook_deliveries_ep_due ON webhook_deliveries (endpoint_id, next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_ep_sending ON webhook_deliveries (endpoint_id) WHERE status = 'sending';
`,
  },
  {
    version: 504,
    name: 'an outbox never updated: the fan-out advances a cursor over (transaction id, event id)',
    // Marking each event dispatched was an UPDATE that could not be HOT (dispatched_at is in a
    // partial index's predicate): a second heap tuple and every index written again per event.
    // Each event now carries its transaction's id; the fan-out reads past its one-row cursor only
    // below the oldest transaction still running (docs/store.md, "The webhook outbox and claim").
    // Events the old fan-out had not dispatched get transaction id 1, below every real one.
    sql: `
ALTER TABLE events ADD COLUMN txid xid8;
ALTER TABLE events ALTER COLUMN txid SET DEFAULT pg_current_xact_id();
UPDATE events SET txid = '1' WHERE dispatched_at IS NULL;
DROP INDEX events_undispatched;
ALTER TABLE events DROP COLUMN dispatched_at;
CREATE INDEX events_outbox ON events (txid, id);
CREATE TABLE outbox_cursor (name text PRIMARY KEY, txid xid8 NOT NULL, event_id text NOT NULL);
INSERT INTO outbox_cursor (name, txid, event_id) VALUES ('webhooks', '0', '');
`,
  },
  {
    version: 505,
    name: 'the claim reads the queue per endpoint only: the global due index goes',
    // claimDue finds the endpoints with something queued by skipping through the per-endpoint
    // index and takes each one's due deliveries from it. The global (next_attempt_at, id) index
    // was read by nothing else; the planner, when it judged the endpoints few, filtered it by
    // endpoint instead, reading every other endpoint's older deliveries first (docs/store.md,
    // "The webhook claim"). One index fewer to write for every delivery, too.
    sql: `
DROP INDEX webhook_deliveries_due;
`,
  },
  {
    version: 506,
    name: "the fan-out reads the outbox by its index, whatever the table's statistics say",
    // The fan-out's read is prepared once per connection, and a plan made while the statistics
    // said events was empty (ANALYZE of an empty table: a fresh database, or every event pruned)
    // read the whole table in a sequential scan at every fan-out until autovacuum analysed it
    // again (8 ms a read at 20,000 events). The read past the cursor runs in a function that
    // plans without sequential scans, so it walks events_outbox from the cursor however the
    // table looked when it was planned (docs/store.md, "An outbox read by its index").
    sql: `
CREATE FUNCTION outbox_past(after_txid xid8, after_id text, n int) RETURNS SETOF events LANGUAGE plpgsql STABLE SET enable_seqscan = off AS $$ BEGIN RETURN QUERY SELECT * FROM events e WHERE (e.txid, e.id) > (after_txid, after_id) AND e.txid < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY e.txid, e.id LIMIT n; END $$;
`,
  },
];
