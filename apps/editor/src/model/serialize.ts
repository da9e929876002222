// Export: an untouched pack is written back as the exact text it was opened from; an edited
// pack as two-space JSON with a final newline, keys in the order they came (the fixtures' form).
import type { PackValue } from './pack.js';

export interface Origin {
  value: PackValue;
  text: string;
}

/**
 * The text to export. Untouched (the value opened from `origin`): the original bytes. Otherwise
 * the pack's own JSON; with `exportedAt`, stamped with that time (kept in its place, or put after
 * `version`, where the format lists it), since the file is a new export of changed work.
 */
export function serializePack(pack: PackValue, origin?: Origin, options: { exportedAt?: Date } = {}): string {
  if (origin && origin.value === pack) return origin.text;
  const value = options.exportedAt ? stampExportedAt(pack, options.exportedAt) : pack;
  return JSON.stringify(value, null, 2) + '\n';
}

function stampExportedAt(pack: PackValue, at: Date): PackValue {
  const exportedAt = at.toISOString().replace(/\.\d{3}Z$/, 'Z');
  if ('exportedAt' in pack || !('version' in pack)) return { ...pack, exportedAt };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(pack)) {
    out[k] = v;
    if (k === 'version') out.exportedAt = exportedAt;
  }
  return out;
}

export function exportFileName(pack: PackValue): string {
  const name = typeof pack.name === 'string' && pack.name ? pack.name : 'pack';
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'pack';
  const version = typeof pack.version === 'string' && /^[\w.-]+$/.test(pack.version) ? `-${pack.version}` : '';
  return `${slug}${version}.json`;
}
