// An activity as every route answers it (the shared schema `Activity`).
import { str, nstr, ts } from '../../http/schemas.js';

export const activitySchema = {
  $id: 'Activity',
  type: 'object',
  properties: {
    id: str,
    type: str,
    title: str,
    description: nstr,
    metadata: { type: ['object', 'null'], additionalProperties: true },
    actor_name: nstr,
    created_at: ts,
  },
};

// Every field is always present (null when unset), so each is required: a generated client
// (openapi-typescript) types none of them as optional.
(activitySchema as { properties: object; required?: string[] }).required = Object.keys(activitySchema.properties);
