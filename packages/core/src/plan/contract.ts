// The workspace API's contract, the parts the installer, the CLI and the server each need, stated
// once: the collections and where they live (the server's routes are registered at these paths and
// grant a scope of each collection's name; the installer reads and writes them there), the error
// types of the envelope, and the install lock's bounds (the CLI's option checks and help).

/**
 * Where each collection the installer reads and writes lives (docs/catalog-api.md): GET lists it,
 * POST creates, PATCH (PUT for media) and DELETE `<path>/{id}` change one; the brand is one object
 * at its path (GET, PUT, DELETE).
 */
export const COLLECTION_PATH = {
  tags: '/v1/tags',
  contact_stages: '/v1/contact-stages',
  lead_sources: '/v1/lead-sources',
  custom_fields: '/v1/custom-fields',
  pipelines: '/v1/pipelines',
  message_templates: '/v1/message-templates',
  media: '/v1/media',
  brand: '/v1/brand',
  smart_lists: '/v1/smart-lists',
  automations: '/v1/automations',
  members: '/v1/members',
  teams: '/v1/teams',
  ponds: '/v1/ponds',
  websites: '/v1/websites',
  forms: '/v1/forms',
  appointment_types: '/v1/appointment-types',
  appointment_outcomes: '/v1/appointment-outcomes',
  programs: '/v1/programs',
  relationship_labels: '/v1/relationship-labels',
} as const;

/**
 * Workspace collections the catalog API exposes (docs/catalog-api.md), one per entry of
 * COLLECTION_PATH. Each is a list of objects with at least `id` and (except media) `name`; the
 * scopes `read_<collection>` and `write_<collection>` grant it.
 */
export type WorkspaceCollection = keyof typeof COLLECTION_PATH;

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
