/**
 * Scopes are read_<resource> / write_<resource>; write implies read; full_access grants all.
 * Each resource a route names in its scope is listed here, so keys can be issued for it: every
 * collection of the workspace-API contract (core's COLLECTION_PATH; a test holds them equal), the
 * install ledgers, and the CRM's own records.
 */
export const scopeResources = [
  'contacts',
  'deals',
  'transactions',
  'tags',
  'contact_stages',
  'lead_sources',
  'members',
  'pipelines',
  'custom_fields',
  'message_templates',
  'smart_lists',
  'automations',
  'media',
  'brand',
  'install_ledgers',
  'teams',
  'ponds',
  'websites',
  'forms',
  'appointment_types',
  'appointment_outcomes',
  'programs',
  'relationship_labels',
  'webhooks',
  'events',
] as const;

export type Scope = string;

export const allScopes: string[] = ['full_access', ...scopeResources.flatMap((r) => [`read_${r}`, `write_${r}`])];

export function isKnownScope(s: string): boolean {
  return allScopes.includes(s.toLowerCase());
}

/** The scopes any one of which allows `needed`: itself, full_access, and for read_x write_x. */
export function grantingScopes(needed: string): string[] {
  return ['full_access', needed, ...(needed.startsWith('read_') ? [`write_${needed.slice(5)}`] : [])];
}

/** True when the granted scopes allow `needed` (e.g. read_contacts is allowed by write_contacts). */
export function hasScope(granted: readonly string[], needed: string): boolean {
  return grantingScopes(needed).some((s) => granted.includes(s));
}
