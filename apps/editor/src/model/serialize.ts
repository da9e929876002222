// Export: an untouched pack is written back as the exact text it was opened from; an edited
// pack as two-space JSON with a final newline, keys in the order they came (the fixtures' form).
import type { PackValue } from './pack.js';

export interface Origin {
  value: PackValue;
  text: string;
}

export function serializePack(pack: PackValue, origin?: Origin): string {
  if (origin && origin.value === pack) return origin.text;
  return JSON.stringify(pack, null, 2) + '\n';
}

export function exportFileName(pack: PackValue): string {
  const name = typeof pack.name === 'string' && pack.name ? pack.name : 'pack';
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'pack';
  const version = typeof pack.version === 'string' && /^[\w.-]+$/.test(pack.version) ? `-${pack.version}` : '';
  return `${slug}${version}.json`;
}
