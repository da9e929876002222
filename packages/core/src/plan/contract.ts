// The workspace API's contract, the parts the installer, the CLI and the server each need, stated
// once: the collections, where they live and how their ids begin (the server's routes are
// registered at these paths, grant a scope of each collection's name and make ids with these
// prefixes; the installer reads and writes them there), the error types of the envelope, and the
// install lock's bounds (the CLI's option checks and help).

/** What the contract says of one collection. */
export interface CollectionContract {
  /**
   * Where it lives (docs/catalog-api.md): GET lists it, POST creates, PATCH (PUT for media) and
   * DELETE `<path>/{id}` change one; the brand is one object at its path (GET, PUT, DELETE).
   */
  readonly path: string;
  /** What the ids the server makes for its objects begin with, before an underscore (`tag_3f9a…`). */
  readonly idPrefix: string;
}

/** The collections the installer reads and writes (docs/catalog-api.md). */
export const COLLECTIONS = {
  tags: { path: '/v1/tags', idPrefix: 'tag' },
  contact_stages: { path: '/v1/contact-stages', idPrefix: 'cst' },
  lead_sources: { path: '/v1/lead-sources', idPrefix: 'lsr' },
  custom_fields: { path: '/v1/custom-fields', idPrefix: 'cfd' },
  pipelines: { path: '/v1/pipelines', idPrefix: 'pip' },
  message_templates: { path: '/v1/message-templates', idPrefix: 'tpl' },
  media: { path: '/v1/media', idPrefix: 'med' },
  // The brand's one object has the id `brd_<workspace id>`.
  brand: { path: '/v1/brand', idPrefix: 'brd' },
  smart_lists: { path: '/v1/smart-lists', idPrefix: 'sml' },
  automations: { path: '/v1/automations', idPrefix: 'aut' },
  members: { path: '/v1/members', idPrefix: 'mem' },
  teams: { path: '/v1/teams', idPrefix: 'tea' },
  ponds: { path: '/v1/ponds', idPrefix: 'pon' },
  websites: { path: '/v1/websites', idPrefix: 'web' },
  forms: { path: '/v1/forms', idPrefix: 'for' },
  appointment_types: { path: '/v1/appointment-types', idPrefix: 'app' },
  appointment_outcomes: { path: '/v1/appointment-outcomes', idPrefix: 'app' },
  programs: { path: '/v1/programs', idPrefix: 'pro' },
  relationship_labels: { path: '/v1/relationship-labels', idPrefix: 'rel' },
} as const satisfies Record<string, CollectionContract>;

/**
 * Workspace collections the catalog API exposes (docs/catalog-api.md), one per entry of
 * COLLECTIONS. Each is a list of objects with at least `id` and (except media) `name`; the
 * scopes `read_<collection>` and `write_<collection>` grant it.
 */
export type WorkspaceCollection = keyof typeof COLLECTIONS;

/** Where each collection lives: COLLECTIONS' paths, for a caller that needs only those. */
export const COLLECTION_PATH = Object.fromEntries(Object.entries(COLLECTIONS).map(([c, { path }]) => [c, path])) as {
  readonly [C in WorkspaceCollection]: (typeof COLLECTIONS)[C]['path'];
};

/** The `type` of the API's error envelope (`{ "error": { "type", "message", "param"? } }`, docs/api.md). */
export const API_ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'rate_limit_error',
  'api_error',
  'service_unavailable',
] as const;
export type ApiErrorType = (typeof API_ERROR_TYPES)[number];

/** Where a collection is listed when that differs from where it is written: pipelines with their stages' details. */
export const LIST_PATH: Readonly<Partial<Record<WorkspaceCollection, string>> & { pipelines: string }> = {
  pipelines: '/v1/pipeline-details',
};

/** An install ledger's lock (POST /v1/install-ledgers/{packId}/lock, renewed by each checkpoint). */
export const LEDGER_LOCK = {
  /** Seconds until a lock not renewed expires: how long a crashed run blocks the next. */
  ttlSeconds: { minimum: 5, default: 300, maximum: 3600 },
  /** The longest holder name a lock takes (the name status and a refused run show). */
  holderMaxLength: 200,
} as const;
