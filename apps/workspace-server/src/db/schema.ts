import type { Migration } from './migrate.js';

/**
 * `<table>_<name>_<event>` statement triggers running `fn` with the rows changed as `changed` (the
 * new rows of an insert or update, the old ones of a deletion, unless `side` says which).
 */
function statementTriggers(
  fn: string,
  name: string,
  tables: string[],
  events: ('INSERT' | 'UPDATE' | 'DELETE')[],
  side?: 'OLD' | 'NEW',
  when?: string,
): string {
  return tables
    .flatMap((t) =>
      events.map(
        (e) =>
          `CREATE TRIGGER ${t}_${name}_${e.toLowerCase()} AFTER ${e} ON ${t} REFERENCING ${side ?? (e === 'DELETE' ? 'OLD' : 'NEW')} TABLE AS changed FOR EACH STATEMENT${when ? ` WHEN (${when})` : ''} EXECUTE FUNCTION ${fn}();`,
      ),
    )
    .join('\n');
}

/**
 * A statement that keeps the contact counts and contact row versions itself (POST /v1/contacts'
 * statement: it upserts its counter shard and writes the contact with its emails and phones)
 * says so with `set_config(ACCOUNTED_SETTING, ACCOUNTED_TOKEN, true)` before its inserts finish;
 * the count and touch triggers then are not queued for that statement. Any other statement, in the
 * same transaction or not, has another token, so for plain SQL, cascades and every other route the
 * triggers run as before. The token is the statement's start time and its text: the time alone
 * (migration 8) repeats on PGlite, whose clock counts milliseconds, so a statement right after a
 * creation in one transaction passed for it and was neither counted nor touched; another
 * statement's text differs (the creation's own text names the setting). Exported for the store's
 * statement and the tests.
 */
export const ACCOUNTED_SETTING = 'setup_pack.accounted';
export const ACCOUNTED_TOKEN = `statement_timestamp()::text || ' ' || current_query()`;
const NOT_ACCOUNTED = `current_setting('${ACCOUNTED_SETTING}', true) IS DISTINCT FROM ${ACCOUNTED_TOKEN}`;
/** Migration 8's condition, kept as that migration wrote it. */
const NOT_ACCOUNTED_8 = `current_setting('${ACCOUNTED_SETTING}', true) IS DISTINCT FROM statement_timestamp()::text`;
/** The count and touch triggers, with a condition for skipping the statements that account for themselves. */
const accountingTriggers = (
  when: string,
) => `${statementTriggers('contact_counts_keep', 'count', ['contacts'], ['INSERT', 'UPDATE', 'DELETE'], undefined, when)}
${statementTriggers('contact_rows_touch', 'touch', ['contact_emails', 'contact_phones', 'contact_tags'], ['INSERT', 'UPDATE', 'DELETE'], undefined, when)}`;
const dropAccountingTriggers = `DROP TRIGGER contacts_count_insert ON contacts;
DROP TRIGGER contacts_count_update ON contacts;
DROP TRIGGER contacts_count_delete ON contacts;
${['contact_emails', 'contact_phones', 'contact_tags'].flatMap((t) => ['insert', 'update', 'delete'].map((e) => `DROP TRIGGER ${t}_touch_${e} ON ${t};`)).join('\n')}`;

/**
 * The CRM tables the modules share (workspaces and their keys, contacts, deals, transactions,
 * activities, lookups), created together by the first migrations and changed by the ones after.
 * Append only: a released migration never changes, so these stay one set rather than being re-cut
 * by module (a database records the versions it has applied).
 */
export const crmSchemaMigrations: Migration[] = [
  {
    version: 1,
    name: 'core crm schema',
    sql: `
CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;

CREATE TABLE workspaces (
  id text PRIMARY KEY,
  name text NOT NULL,
  slug text NOT NULL UNIQUE,
  plan text NOT NULL DEFAULT 'standard',
  rate_limit_per_minute integer NOT NULL DEFAULT 120,
  created_at timestamptz NOT NULL
);

CREATE TABLE members (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  email text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX members_ws ON members (workspace_id, created_at DESC, id DESC);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name text,
  key_prefix text NOT NULL,
  secret_hash text NOT NULL UNIQUE,
  scopes jsonb NOT NULL,
  created_by_member_id text REFERENCES members(id) ON DELETE SET NULL,
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL
);

CREATE TABLE rate_limit_windows (
  workspace_id text NOT NULL,
  window_start bigint NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (workspace_id, window_start)
);

CREATE TABLE tags (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  color text,
  created_at timestamptz NOT NULL
);
CREATE INDEX tags_ws ON tags (workspace_id, created_at DESC, id DESC);

CREATE TABLE contact_stages (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  position integer NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX contact_stages_ws ON contact_stages (workspace_id, created_at DESC, id DESC);

CREATE TABLE lead_sources (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX lead_sources_ws ON lead_sources (workspace_id, created_at DESC, id DESC);

CREATE TABLE contacts (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  first_name text NOT NULL,
  last_name text NOT NULL,
  address text, city text, state text, zip_code text, company text, job_title text, notes text,
  stage_id text REFERENCES contact_stages(id) ON DELETE SET NULL,
  lead_source_id text REFERENCES lead_sources(id) ON DELETE SET NULL,
  owner_id text REFERENCES members(id) ON DELETE SET NULL,
  custom_fields jsonb NOT NULL DEFAULT '{}',
  affiliate_attribution_token text,
  search_text text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  last_activity_at timestamptz
);
CREATE INDEX contacts_ws_created ON contacts (workspace_id, created_at DESC, id DESC);
CREATE INDEX contacts_ws_stage ON contacts (workspace_id, stage_id, created_at DESC, id DESC);
CREATE INDEX contacts_ws_source ON contacts (workspace_id, lead_source_id, created_at DESC, id DESC);
CREATE INDEX contacts_ws_owner ON contacts (workspace_id, owner_id, created_at DESC, id DESC);
CREATE INDEX contacts_ws_updated ON contacts (workspace_id, updated_at);
CREATE INDEX contacts_search ON contacts USING gin (search_text public.gin_trgm_ops);

CREATE TABLE contact_emails (
  id text PRIMARY KEY,
  workspace_id text NOT NULL,
  contact_id text NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  value text NOT NULL,
  label text NOT NULL,
  is_primary boolean NOT NULL,
  position integer NOT NULL
);
CREATE INDEX contact_emails_contact ON contact_emails (contact_id, position);
CREATE INDEX contact_emails_value ON contact_emails (workspace_id, lower(value));

CREATE TABLE contact_phones (
  id text PRIMARY KEY,
  workspace_id text NOT NULL,
  contact_id text NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  value text NOT NULL,
  label text NOT NULL,
  is_primary boolean NOT NULL,
  position integer NOT NULL
);
CREATE INDEX contact_phones_contact ON contact_phones (contact_id, position);

CREATE TABLE contact_tags (
  contact_id text NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  tag_id text NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  workspace_id text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (contact_id, tag_id)
);
CREATE INDEX contact_tags_tag ON contact_tags (tag_id, contact_id);

-- Opt-outs are keyed by address, not by contact, so deleting a contact keeps them.
CREATE TABLE opt_outs (
  workspace_id text NOT NULL,
  channel text NOT NULL,
  value text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, channel, value)
);

CREATE TABLE mailboxes (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  owner_member_id text NOT NULL REFERENCES members(id) ON DELETE CASCADE,
  address text NOT NULL,
  is_private boolean NOT NULL DEFAULT false
);

CREATE TABLE activities (
  id text PRIMARY KEY,
  workspace_id text NOT NULL,
  contact_id text NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  type text NOT NULL,
  title text NOT NULL,
  description text,
  metadata jsonb,
  actor_member_id text REFERENCES members(id) ON DELETE SET NULL,
  is_private boolean NOT NULL DEFAULT false,
  mailbox_id text REFERENCES mailboxes(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX activities_contact ON activities (contact_id, created_at DESC, id DESC);

-- Texts, emails, call transcripts, voicemails, lead emails and website history: removed with the contact.
CREATE TABLE communications (
  id text PRIMARY KEY,
  workspace_id text NOT NULL,
  contact_id text NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  kind text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX communications_contact ON communications (contact_id);

CREATE TABLE pipelines (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  position integer NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX pipelines_ws ON pipelines (workspace_id, created_at DESC, id DESC);

CREATE TABLE pipeline_stages (
  id text PRIMARY KEY,
  workspace_id text NOT NULL,
  pipeline_id text NOT NULL REFERENCES pipelines(id) ON DELETE CASCADE,
  name text NOT NULL,
  type text NOT NULL,
  position integer NOT NULL
);
CREATE INDEX pipeline_stages_pipeline ON pipeline_stages (pipeline_id, position);

CREATE TABLE listings (
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  listing_key text NOT NULL,
  label text NOT NULL,
  photo_path text NOT NULL DEFAULT '',
  PRIMARY KEY (workspace_id, listing_key)
);

CREATE TABLE deals (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  value numeric(18,2),
  pipeline_id text NOT NULL REFERENCES pipelines(id),
  stage_id text NOT NULL REFERENCES pipeline_stages(id),
  status text NOT NULL,
  contact_id text REFERENCES contacts(id) ON DELETE SET NULL,
  listing_label text,
  expected_close_date timestamptz,
  closed_at timestamptz,
  lost_reason text,
  notes text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX deals_ws ON deals (workspace_id, created_at DESC, id DESC);
CREATE INDEX deals_ws_pipeline ON deals (workspace_id, pipeline_id, created_at DESC, id DESC);
CREATE INDEX deals_ws_stage ON deals (workspace_id, stage_id, created_at DESC, id DESC);
CREATE INDEX deals_ws_status ON deals (workspace_id, status, created_at DESC, id DESC);
CREATE INDEX deals_ws_contact ON deals (workspace_id, contact_id, created_at DESC, id DESC);

CREATE TABLE closing_stages (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  status text NOT NULL,
  position integer NOT NULL
);
CREATE INDEX closing_stages_ws ON closing_stages (workspace_id, position);

CREATE TABLE checklist_templates (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  items jsonb NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE TABLE transactions (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  side text NOT NULL,
  status text NOT NULL,
  stage_id text NOT NULL REFERENCES closing_stages(id),
  fell_through_reason text NOT NULL DEFAULT '',
  deal_id text REFERENCES deals(id) ON DELETE SET NULL,
  contact_id text REFERENCES contacts(id) ON DELETE SET NULL,
  listing_key text NOT NULL DEFAULT '',
  listing_label text NOT NULL DEFAULT '',
  listing_photo_path text NOT NULL DEFAULT '',
  sale_price text NOT NULL, commission_rate text NOT NULL, gross_commission text NOT NULL,
  gci_override boolean NOT NULL DEFAULT false,
  referral_fee text NOT NULL, brokerage_split_rate text NOT NULL, team_split_rate text NOT NULL,
  transaction_fees text NOT NULL, net_commission text NOT NULL,
  contract_date text NOT NULL DEFAULT '', earnest_money_due_date text NOT NULL DEFAULT '',
  inspection_date text NOT NULL DEFAULT '', appraisal_date text NOT NULL DEFAULT '',
  financing_date text NOT NULL DEFAULT '', walkthrough_date text NOT NULL DEFAULT '',
  projected_close_date text NOT NULL DEFAULT '', actual_close_date text NOT NULL DEFAULT '',
  possession_date text NOT NULL DEFAULT '',
  notes text NOT NULL DEFAULT '',
  document_count integer NOT NULL DEFAULT 0,
  idempotency_key text,
  search_text text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (workspace_id, idempotency_key)
);
CREATE INDEX transactions_ws ON transactions (workspace_id, created_at DESC, id DESC);
CREATE INDEX transactions_ws_status ON transactions (workspace_id, status, created_at DESC, id DESC);
CREATE INDEX transactions_ws_contact ON transactions (workspace_id, contact_id);
CREATE INDEX transactions_ws_deal ON transactions (workspace_id, deal_id);
CREATE INDEX transactions_search ON transactions USING gin (search_text public.gin_trgm_ops);

CREATE TABLE transaction_activities (
  id text PRIMARY KEY,
  workspace_id text NOT NULL,
  transaction_id text NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
  title text NOT NULL,
  description text,
  created_at timestamptz NOT NULL
);
CREATE INDEX transaction_activities_txn ON transaction_activities (transaction_id, created_at DESC, id DESC);

CREATE TABLE transaction_parties (
  id text PRIMARY KEY,
  workspace_id text NOT NULL,
  transaction_id text NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
  contact_id text NOT NULL DEFAULT '',
  name text NOT NULL,
  role text NOT NULL,
  relationship_label_id text NOT NULL DEFAULT ''
);
CREATE INDEX transaction_parties_txn ON transaction_parties (transaction_id);

CREATE TABLE transaction_tasks (
  id text PRIMARY KEY,
  workspace_id text NOT NULL,
  transaction_id text NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
  title text NOT NULL,
  completed boolean NOT NULL DEFAULT false,
  due_date text NOT NULL DEFAULT '',
  milestone text NOT NULL DEFAULT '',
  offset_days integer NOT NULL DEFAULT 0,
  position integer NOT NULL
);
CREATE INDEX transaction_tasks_txn ON transaction_tasks (transaction_id, position);

-- The outbox: written in the same transaction as the change; webhook deliveries build on it.
CREATE TABLE events (
  id text PRIMARY KEY,
  workspace_id text NOT NULL,
  type text NOT NULL,
  data jsonb NOT NULL,
  changed_fields jsonb,
  created_at timestamptz NOT NULL
);
CREATE INDEX events_ws ON events (workspace_id, created_at DESC, id DESC);
`,
  },
  {
    version: 2,
    name: 'contact counter, unlogged rate-limit windows',
    sql: `
-- Unfiltered contact lists read their total_count here instead of counting the workspace.
CREATE TABLE contact_counts (
  workspace_id text PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
  n bigint NOT NULL
);
INSERT INTO contact_counts (workspace_id, n) SELECT workspace_id, count(*) FROM contacts GROUP BY workspace_id;

-- Windows are disposable: skipping WAL keeps the per-request counter off the fsync path.
ALTER TABLE rate_limit_windows SET UNLOGGED;
`,
  },
  {
    version: 3,
    name: 'shard the contact counter',
    sql: `
-- One counter row per workspace serialised concurrent creations on its row lock; 16 shards do not.
ALTER TABLE contact_counts ADD COLUMN shard integer NOT NULL DEFAULT 0;
ALTER TABLE contact_counts DROP CONSTRAINT contact_counts_pkey;
ALTER TABLE contact_counts ADD PRIMARY KEY (workspace_id, shard);
`,
  },
  {
    version: 4,
    name: 'contact counts kept by triggers, with write generations',
    sql: `
-- A trigger keeps each workspace's contact count (n) and write generation (the sum of writes over
-- the shards) in the transaction that changes its contacts, so no writer (a cascade, a bulk load)
-- can skip it. A count cached at one generation is exact while the generation is unchanged. One
-- shard per transaction (its id mod 16): a transaction holds one counter row lock, so two never
-- deadlock on the counter, and concurrent ones rarely wait for each other.
ALTER TABLE contact_counts ADD COLUMN writes bigint NOT NULL DEFAULT 0;
CREATE FUNCTION contact_counts_keep() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO contact_counts (workspace_id, shard, n, writes) SELECT d.workspace_id, (txid_current() % 16)::int, CASE TG_OP WHEN 'INSERT' THEN count(*) WHEN 'DELETE' THEN -count(*) ELSE 0 END, count(*) FROM changed d WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = d.workspace_id) GROUP BY d.workspace_id ON CONFLICT (workspace_id, shard) DO UPDATE SET n = contact_counts.n + excluded.n, writes = contact_counts.writes + excluded.writes; RETURN NULL; END $$;
${statementTriggers('contact_counts_keep', 'count', ['contacts'], ['INSERT', 'UPDATE', 'DELETE'])}
`,
  },
  {
    version: 5,
    name: 'lookup generations for the contact text cache',
    sql: `
-- A contact reads as its row, its emails, phones and tags, and the names of its stage, lead source,
-- owner and tags (with the tags' colours). A contact's text cached at (its row's xmin, the
-- workspace's lookup generation) is exact while both are unchanged, because of two sets of
-- triggers that no writer (the API, plain SQL, a cascade) can skip:
-- 1. A change to a contact's emails, phones or tags writes the contact's row (a new xmin) unless
--    the same transaction already wrote it (the API's statements do: then this costs one probe).
--    Rows are locked in id order, so two such changes never deadlock on each other.
-- 2. An update or deletion of a tag, stage, lead source or member moves the lookup generation.
CREATE FUNCTION contact_rows_touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN WITH t AS (SELECT c.id FROM contacts c WHERE c.id IN (SELECT contact_id FROM changed) AND c.xmin <> pg_current_xact_id()::xid ORDER BY c.id FOR UPDATE) UPDATE contacts c SET workspace_id = c.workspace_id FROM t WHERE c.id = t.id; RETURN NULL; END $$;
${statementTriggers('contact_rows_touch', 'touch', ['contact_emails', 'contact_phones', 'contact_tags'], ['INSERT', 'UPDATE', 'DELETE'])}
CREATE TABLE contact_lookup_gens (
  workspace_id text PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
  gen bigint NOT NULL
);
CREATE FUNCTION contact_lookups_moved() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO contact_lookup_gens (workspace_id, gen) SELECT DISTINCT o.workspace_id, 1 FROM changed o WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = o.workspace_id) ON CONFLICT (workspace_id) DO UPDATE SET gen = contact_lookup_gens.gen + 1; RETURN NULL; END $$;
${statementTriggers('contact_lookups_moved', 'lookup', ['tags', 'contact_stages', 'lead_sources', 'members'], ['UPDATE', 'DELETE'], 'OLD')}
`,
  },
  {
    version: 6,
    name: 'contact search by workspace first',
    sql: `
-- A search reads only its own workspace's matches: the trigram index holds the workspace id
-- first (btree_gin gives GIN an operator class for text equality), so PostgreSQL looks up the
-- workspace's posting list and the term's trigrams in one index scan. With trigrams alone, a term
-- common across workspaces read every workspace's matches: "harbor" 10,000 rows for a tenant's
-- 10 in the tenants benchmark, 4 ms of its 4.5 (docs/store.md, "Schema and indexes").
CREATE EXTENSION IF NOT EXISTS btree_gin SCHEMA public;
CREATE INDEX contacts_ws_search ON contacts USING gin (workspace_id, search_text public.gin_trgm_ops);
DROP INDEX contacts_search;
`,
  },
  {
    version: 7,
    name: 'the touch trigger updates only when a contact needs it',
    sql: `
-- Migration 5's touch trigger ran its UPDATE of contacts even when no contact needed one (always,
-- for the API's own writes, which write the contact in the same statement): an UPDATE of no rows
-- still fires the statement triggers on contacts, so every creation with an email also ran the
-- count trigger a second time. Now the UPDATE runs only when some contact needs it.
CREATE OR REPLACE FUNCTION contact_rows_touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM 1 FROM contacts c WHERE c.id IN (SELECT contact_id FROM changed) AND c.xmin <> pg_current_xact_id()::xid LIMIT 1; IF FOUND THEN WITH t AS (SELECT c.id FROM contacts c WHERE c.id IN (SELECT contact_id FROM changed) AND c.xmin <> pg_current_xact_id()::xid ORDER BY c.id FOR UPDATE) UPDATE contacts c SET workspace_id = c.workspace_id FROM t WHERE c.id = t.id; END IF; RETURN NULL; END $$;
`,
  },
  {
    version: 8,
    name: 'count and touch triggers skip a statement that accounts for itself',
    // The creation's statement upserts its counter shard and writes its contact with the emails and
    // phones, so the count trigger (0.06 ms) and the touch trigger's probe (0.05 ms) of each creation
    // repeated or checked work already done (docs/store.md, "A creation's triggers").
    sql: `
${dropAccountingTriggers}
${accountingTriggers(NOT_ACCOUNTED_8)}
`,
  },
  {
    version: 9,
    name: 'contact filter indexes hold only contacts with the reference',
    // A list filtered by stage, lead source or owner asks for one value, never for none, so these
    // indexes need no entry for a contact without the reference: a creation without them (every
    // API creation that names none) writes three index entries fewer (docs/store.md, "The indexes
    // a creation writes").
    sql: `
DROP INDEX contacts_ws_stage;
DROP INDEX contacts_ws_source;
DROP INDEX contacts_ws_owner;
CREATE INDEX contacts_ws_stage ON contacts (workspace_id, stage_id, created_at DESC, id DESC) WHERE stage_id IS NOT NULL;
CREATE INDEX contacts_ws_source ON contacts (workspace_id, lead_source_id, created_at DESC, id DESC) WHERE lead_source_id IS NOT NULL;
CREATE INDEX contacts_ws_owner ON contacts (workspace_id, owner_id, created_at DESC, id DESC) WHERE owner_id IS NOT NULL;
`,
  },
  {
    version: 10,
    name: 'a statement accounts for itself by its start time and its text',
    // Migration 8 told the creation's statement apart by statement_timestamp() alone, which PGlite
    // gives to the millisecond: plain SQL run within the same millisecond after a creation, in its
    // transaction, skipped the count and touch triggers (a count one short, a cached contact text
    // kept after its email changed). See ACCOUNTED_TOKEN.
    sql: `
${dropAccountingTriggers}
${accountingTriggers(NOT_ACCOUNTED)}
`,
  },
  {
    version: 11,
    name: 'a deleted contact is unlinked from the transactions it was a party of',
    // A transaction's own contact_id is a foreign key (ON DELETE SET NULL); a party's is text, so
    // a deleted contact stayed a party by id. Now any deletion of contacts (the API's statement,
    // plain SQL, a cascade) empties the parties' contact_id, keeping their name and role as the
    // transaction's record of who took part; parties left pointing at deleted contacts before are
    // unlinked here. The index finds a contact's parties without reading them all.
    sql: `
CREATE INDEX transaction_parties_contact ON transaction_parties (contact_id) WHERE contact_id <> '';
CREATE FUNCTION transaction_parties_unlink() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE transaction_parties p SET contact_id = '' WHERE p.contact_id IN (SELECT id FROM changed) AND p.contact_id <> ''; RETURN NULL; END $$;
${statementTriggers('transaction_parties_unlink', 'parties', ['contacts'], ['DELETE'])}
UPDATE transaction_parties p SET contact_id = '' WHERE p.contact_id <> '' AND NOT EXISTS (SELECT 1 FROM contacts c WHERE c.id = p.contact_id);
`,
  },
  {
    version: 12,
    name: 'deals listed by updated_at',
    // GET /v1/deals takes updated_after, as contacts do (contacts_ws_updated): an incremental sync
    // of a workspace's deals reads the ones changed since, not all of them.
    sql: `
CREATE INDEX deals_ws_updated ON deals (workspace_id, updated_at);
`,
  },
  {
    version: 13,
    name: 'what a contact or transaction shows of another row moves its updated_at, whoever changes that row',
    // The API moved updated_at of the contacts that show a renamed tag, stage or lead source
    // (modules/catalog/store.ts, touchHolders) and of the deals of a changed pipeline, but a rename in plain
    // SQL (a member's name has no API) moved nothing, and a transaction shows its deal's name and
    // status, its contact's names and primary email and its closing stage's name, which moved
    // nothing at all: an incremental sync by updated_at missed them. These triggers move the rows
    // that show what changed, whoever changed it (the API, plain SQL, a cascade), unless this
    // transaction wrote them already (the API writes them itself, at its clock's time). A changed
    // deal or contact that moved its own updated_at gives the rows that show it the same instant;
    // otherwise they take the statement's time, and never a time before the one they had.
    sql: `
CREATE FUNCTION tags_shown_touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN WITH t AS (SELECT c.id FROM contacts c WHERE c.id IN (SELECT ct.contact_id FROM contact_tags ct JOIN n ON n.id = ct.tag_id JOIN o ON o.id = n.id WHERE n.name IS DISTINCT FROM o.name OR n.color IS DISTINCT FROM o.color) AND c.xmin <> pg_current_xact_id()::xid ORDER BY c.id FOR UPDATE) UPDATE contacts c SET updated_at = GREATEST(statement_timestamp(), c.updated_at + interval '1 microsecond') FROM t WHERE c.id = t.id; RETURN NULL; END $$;
CREATE TRIGGER tags_shown_update AFTER UPDATE ON tags REFERENCING OLD TABLE AS o NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION tags_shown_touch();
${[
  ['contact_stages', 'stage_id'],
  ['lead_sources', 'lead_source_id'],
  ['members', 'owner_id'],
]
  .map(
    ([
      table,
      column,
    ]) => `CREATE FUNCTION ${table}_shown_touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN WITH t AS (SELECT c.id FROM contacts c WHERE (c.workspace_id, c.${column}) IN (SELECT n.workspace_id, n.id FROM n JOIN o ON o.id = n.id WHERE n.name IS DISTINCT FROM o.name) AND c.xmin <> pg_current_xact_id()::xid ORDER BY c.id FOR UPDATE) UPDATE contacts c SET updated_at = GREATEST(statement_timestamp(), c.updated_at + interval '1 microsecond') FROM t WHERE c.id = t.id; RETURN NULL; END $$;
CREATE TRIGGER ${table}_shown_update AFTER UPDATE ON ${table} REFERENCING OLD TABLE AS o NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION ${table}_shown_touch();`,
  )
  .join('\n')}
${[
  [
    'deals',
    'deal_id',
    'n.name IS DISTINCT FROM o.name OR n.status IS DISTINCT FROM o.status',
    'CASE WHEN n.updated_at IS DISTINCT FROM o.updated_at THEN n.updated_at END',
  ],
  [
    'contacts',
    'contact_id',
    'n.first_name IS DISTINCT FROM o.first_name OR n.last_name IS DISTINCT FROM o.last_name',
    'CASE WHEN n.updated_at IS DISTINCT FROM o.updated_at THEN n.updated_at END',
  ],
  ['closing_stages', 'stage_id', 'n.name IS DISTINCT FROM o.name', 'NULL::timestamptz'],
]
  .map(
    ([
      table,
      column,
      shown,
      at,
    ]) => `CREATE FUNCTION transactions_${table}_touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN WITH ch AS (SELECT n.id, n.workspace_id, ${at} AS at FROM n JOIN o ON o.id = n.id WHERE ${shown}), t AS (SELECT x.id, ch.at FROM transactions x JOIN ch ON x.workspace_id = ch.workspace_id AND x.${column} = ch.id WHERE x.xmin <> pg_current_xact_id()::xid ORDER BY x.id FOR UPDATE OF x) UPDATE transactions x SET updated_at = GREATEST(COALESCE(t.at, statement_timestamp()), x.updated_at + interval '1 microsecond') FROM t WHERE x.id = t.id; RETURN NULL; END $$;
CREATE TRIGGER transactions_${table}_update AFTER UPDATE ON ${table} REFERENCING OLD TABLE AS o NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION transactions_${table}_touch();`,
  )
  .join('\n')}
`,
  },
];
