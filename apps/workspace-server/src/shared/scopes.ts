import { COLLECTIONS, type WorkspaceCollection } from '@setup-pack/core';

/**
 * Scopes are read_<resource> / write_<resource>; write implies read; full_access grants all.
 * Each resource a route names in its scope is listed here, so keys can be issued for it: the
 * CRM's own records, every collection of the workspace-API contract (core's COLLECTIONS: a
 * collection added there is grantable at once), the install ledgers, and webhooks with their events.
 */
export const scopeResources: readonly string[] = [
  'contacts',
  'deals',
  'transactions',
  ...(Object.keys(COLLECTIONS) as WorkspaceCollection[]),
  'install_ledgers',
  'webhooks',
  'events',
];

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
