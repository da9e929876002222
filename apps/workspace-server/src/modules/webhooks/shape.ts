import { activitySchema } from '../activities/schemas.js';
import { contactSchema } from '../contacts/schemas.js';
import { dealSchema } from '../deals/schemas.js';
import { transactionSchema } from '../transactions/schemas.js';

/**
 * The outbox stores data as jsonb, which keeps keys in its own order (shortest first). Deliveries
 * put them back in the order the matching GET uses, so a payload reads like the API's responses.
 */
/** As much of a JSON Schema as the ordering reads: an object's properties, an array's items, a union's branches. */
interface Shape {
  type?: unknown;
  properties?: Record<string, Shape>;
  items?: Shape;
  anyOf?: readonly Shape[];
}

const schemaByPrefix: [string, Shape][] = [
  ['contact.', contactSchema],
  ['deal.', dealSchema],
  ['transaction.', transactionSchema],
  ['note.', { ...activitySchema, properties: { ...activitySchema.properties, contact_id: { type: 'string' } } }],
];

function ordered(value: unknown, schema: Shape | undefined): unknown {
  if (Array.isArray(value)) return schema?.items ? value.map((v: unknown) => ordered(v, schema.items)) : value;
  if (!value || typeof value !== 'object') return value;
  const properties = schema?.properties ?? (schema?.anyOf ?? []).find((s) => s.properties)?.properties;
  if (!properties) return value;
  const src = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(properties)) if (k in src) out[k] = ordered(src[k], properties[k]);
  for (const k of Object.keys(src)) if (!(k in out)) out[k] = src[k];
  return out;
}

export function orderEventData(type: string, data: unknown): unknown {
  const hit = schemaByPrefix.find(([p]) => type.startsWith(p));
  return hit ? ordered(data, hit[1]) : data;
}
