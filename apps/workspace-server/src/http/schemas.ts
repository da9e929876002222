/**
 * Shared JSON Schemas. Request schemas are inline (validated by our Ajv instances); response
 * schemas are registered once with app.addSchema and referenced as { $ref: 'Name#' }, so the
 * OpenAPI document lists them as components.
 */
import { API_ERROR_TYPES } from '@setup-pack/core';
export const str = { type: 'string' } as const;
export const nstr = { type: ['string', 'null'] } as const;
/** Text a person must write (a note, a name): not empty and not only whitespace (the `x-not-blank` keyword, shared/validation.ts). */
export const text = { type: 'string', 'x-not-blank': true } as const;
export const ntext = { type: ['string', 'null'], 'x-not-blank': true } as const;
/**
 * How long text a person writes may be: the API's own limits (neither the spec nor the pack format
 * sets one, and a pack carries no contacts, deals or transactions), generous for anything a person
 * writes (an email address has at most 254 characters; a note on the timeline at most 10,000), so
 * no real record is refused while a name of two million characters is. Counted in Unicode code
 * points (ajv's maxLength), as a note's body is. Stated here once; the request schemas of
 * contacts, deals and transactions take them by kind of text.
 */
export const TEXT_LIMITS = {
  /** One line: a name, an email address, a phone, a company, a listing key. */
  line: 255,
  /** A few lines: a postal address, the reason a deal was lost or a transaction fell through. */
  paragraph: 1000,
  /** A record's free notes. */
  notes: 100_000,
  /** An opaque token a client passes on (an affiliate attribution token). */
  token: 2048,
  /** A web address the server calls (a webhook's URL). */
  url: 2048,
} as const;
/**
 * The longest id a body may name: every id the API makes is far shorter (shared/ids.ts: a prefix and 24
 * hex digits), so a longer one names nothing, and is refused as too long rather than echoed whole
 * in a "No such …" (a 300,000-character deal_id was). A path id is read up to 2048 (server.ts).
 */
export const ID_MAX_LENGTH = 255;
/** An id a body names, or null / "" for none where the field allows it. */
export const nid = { type: ['string', 'null'], maxLength: ID_MAX_LENGTH } as const;
/** Optional text of each kind (null and "" allowed, as the field's own rules say). */
export const nline = { type: ['string', 'null'], maxLength: TEXT_LIMITS.line } as const;
export const nparagraph = { type: ['string', 'null'], maxLength: TEXT_LIMITS.paragraph } as const;
export const nnotes = { type: ['string', 'null'], maxLength: TEXT_LIMITS.notes } as const;
export const ts = { type: 'string', format: 'date-time' } as const;
export const nts = { type: ['string', 'null'], format: 'date-time' } as const;
export const ref = (name: string) => ({ $ref: `${name}#` });
/**
 * A timestamp a request sends (a query filter, a body field): RFC 3339 within what the store holds
 * (shared/timestamps.ts). Every date-time a request carries uses one of these two.
 */
export const tsIn = { type: 'string', format: 'date-time', 'x-stored': 'date-time' } as const;
export const ntsIn = { type: ['string', 'null'], format: 'date-time', 'x-stored': 'date-time' } as const;
/** A list's timestamp filters; the store's timeConditions states their rule. */
export const timeFilterQuery = { created_after: tsIn, created_before: tsIn, updated_after: tsIn } as const;

export const idName = { type: 'object', required: ['id', 'name'], properties: { id: str, name: str } } as const;

export function listOf(item: object) {
  return {
    type: 'object',
    required: ['data', 'has_more', 'total_count'],
    properties: {
      data: { type: 'array', items: item },
      has_more: { type: 'boolean' },
      next_cursor: nstr,
      total_count: { type: 'integer' },
    },
  };
}

export const limitParam = (max: number, dflt: number) => ({ type: 'integer', minimum: 1, maximum: max, default: dflt }) as const;
export const pagingQuery = {
  limit: limitParam(100, 20),
  cursor: { type: 'string', minLength: 1 },
} as const;

/** An install lock as the API shows it: in a ledger record, and in the error a refusal by it answers. */
export const installLock = { type: 'object', required: ['holder', 'expires_at'], properties: { holder: str, expires_at: ts } } as const;

export const errorSchema = {
  $id: 'Error',
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'message'],
      properties: {
        type: {
          type: 'string',
          enum: API_ERROR_TYPES,
        },
        message: str,
        param: str,
        lock: {
          ...installLock,
          description: "A 409 because another holder has the pack's install lock (param: lock): who holds it and until when",
        },
      },
    },
  },
};
