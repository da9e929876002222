import type { Migration } from '../../db/migrate.js';

/**
 * Catalog and install-ledger tables, appended to the one migration set. Generic
 * catalog objects (custom fields, message templates, smart lists, automations, media, brand and
 * the lookup-only types) share one table: the server stores their fields, packs stay opaque.
 */
export const catalogMigrations: Migration[] = [
  {
    version: 601,
    name: 'catalog objects, pipeline details, creation idempotency, install ledgers',
    sql: `
CREATE TABLE catalog_objects (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  collection text NOT NULL,
  name text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX catalog_objects_ws ON catalog_objects (workspace_id, collection, created_at DESC, id DESC);

ALTER TABLE pipelines ADD COLUMN description text;
ALTER TABLE pipeline_stages ADD COLUMN color text;
ALTER TABLE pipeline_stages ADD COLUMN probability integer;

-- One row per creation made with an idempotency key: a retry answers with the same object.
CREATE TABLE catalog_idempotency (
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  key text NOT NULL,
  collection text NOT NULL,
  object_id text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, key)
);

CREATE TABLE install_ledgers (
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  pack_id text NOT NULL,
  ledger jsonb,
  revision integer NOT NULL DEFAULT 0,
  lock_token text,
  lock_holder text,
  lock_expires_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, pack_id)
);
`,
  },
];
