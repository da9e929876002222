// A contact as every route answers it (the shared schema `Contact`).
import { str, nstr, ts, nts, idName } from '../../http/schemas.js';

const emailRow = {
  type: 'object',
  required: ['id', 'value', 'label', 'is_primary', 'position'],
  properties: { id: str, value: str, label: str, is_primary: { type: 'boolean' }, position: { type: 'integer' } },
};

export const contactSchema = {
  $id: 'Contact',
  type: 'object',
  properties: {
    id: str,
    first_name: str,
    last_name: str,
    email: nstr,
    phone: nstr,
    emails: { type: 'array', items: emailRow },
    phones: { type: 'array', items: emailRow },
    address: nstr,
    city: nstr,
    state: nstr,
    zip_code: nstr,
    company: nstr,
    job_title: nstr,
    notes: nstr,
    stage: { anyOf: [{ type: 'null' }, idName] },
    lead_source: { anyOf: [{ type: 'null' }, idName] },
    owner: { anyOf: [{ type: 'null' }, idName] },
    tags: { type: 'array', items: { type: 'object', properties: { id: str, name: str, color: nstr } } },
    custom_fields: { type: 'object', additionalProperties: true },
    created_at: ts,
    updated_at: ts,
    last_activity_at: nts,
  },
};

// Every field is always present (null when unset), so each is required: a generated client
// (openapi-typescript) types none of them as optional.
(contactSchema as { properties: object; required?: string[] }).required = Object.keys(contactSchema.properties);
