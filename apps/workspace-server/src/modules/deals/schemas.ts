// A deal as every route answers it (the shared schema `Deal`).
import { str, nstr, ts, nts, idName } from '../../http/schemas.js';
import { packSchema } from '../../shared/pack-schemas.js';

export const dealSchema = {
  $id: 'Deal',
  type: 'object',
  properties: {
    id: str,
    name: str,
    value: nstr,
    status: { type: 'string', enum: ['open', 'won', 'lost'] },
    pipeline: idName,
    stage: {
      type: 'object',
      required: ['id', 'name', 'type'],
      properties: { id: str, name: str, type: packSchema('stage', '/properties/stageType') },
    },
    contact_id: nstr,
    listing_label: nstr,
    expected_close_date: nts,
    closed_at: nts,
    lost_reason: nstr,
    notes: nstr,
    created_at: ts,
    updated_at: ts,
  },
};

// Every field is always present (null when unset), so each is required: a generated client
// (openapi-typescript) types none of them as optional.
(dealSchema as { properties: object; required?: string[] }).required = Object.keys(dealSchema.properties);
