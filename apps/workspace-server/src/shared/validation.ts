import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { escapeToken, pointerParam, ruleWords, schemaTypeWords } from '@setup-pack/core';
import { badRequest, invalidField, type ApiError } from './errors.js';
import { packSchemas } from './pack-schemas.js';
import { storedProblem, type StoredKind } from './timestamps.js';

/** What `x-not-blank` asks, in words: a request's schema says it, and so does the store of a caller that skipped it. */
export const NOT_BLANK_WORDS = 'must not be empty or only whitespace';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * Bodies are validated strictly (no type coercion, no silent dropping of unknown fields); query
 * strings and path params are coerced from text, since that is all a URL can carry. Verbose, so
 * an error carries the value and the schema that refused it (validationError words them).
 */
function makeAjv(coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    coerceTypes: coerce,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
    verbose: true,
  });
  addFormats(ajv);
  // `x-stored: date-time | date | date-or-date-time`: a date or timestamp the store can hold
  // (timestamps.ts states the rule once). An extension keyword, so the OpenAPI document keeps it.
  ajv.addKeyword({
    keyword: 'x-stored',
    type: 'string',
    schemaType: 'string',
    errors: true,
    validate: function stored(kind: StoredKind, data: string): boolean {
      const problem = storedProblem(kind, data);
      if (problem)
        (stored as unknown as { errors: Partial<ErrorObject>[] }).errors = [{ keyword: 'x-stored', message: problem, params: { kind } }];
      return !problem;
    },
  });
  // `x-exactly-one-of: [a, b]`: a body must carry exactly one of these fields. The schema's oneOf of
  // `required` says so to the document's readers; its error ("must match exactly one schema in
  // oneOf", or the first branch's missing field) names neither, so this runs before it and does.
  ajv.addKeyword({
    keyword: 'x-exactly-one-of',
    before: 'oneOf',
    schemaType: 'array',
    errors: true,
    validate: function exactlyOne(names: string[], data: unknown): boolean {
      if (!data || typeof data !== 'object' || Array.isArray(data)) return true;
      const sent = names.filter((n) => (data as Record<string, unknown>)[n] !== undefined);
      if (sent.length === 1) return true;
      (exactlyOne as unknown as { errors: Partial<ErrorObject>[] }).errors = [
        { keyword: 'x-exactly-one-of', message: `Send exactly one of ${names.join(' or ')}`, params: { names, sent } },
      ];
      return false;
    },
  });
  // `x-not-blank: true` (NOT_BLANK_WORDS): text a person must write (a note, a contact's or a deal's name) has a
  // character other than whitespace; "   " is as empty as "" (docs/api.md, "Text fields").
  ajv.addKeyword({
    keyword: 'x-not-blank',
    type: 'string',
    schemaType: 'boolean',
    errors: true,
    validate: function notBlank(on: boolean, data: string): boolean {
      if (!on || /\S/u.test(data)) return true;
      (notBlank as unknown as { errors: Partial<ErrorObject>[] }).errors = [
        { keyword: 'x-not-blank', message: NOT_BLANK_WORDS, params: {} },
      ];
      return false;
    },
  });
  // The published pack schemas (draft 2020-12), so catalog bodies can $ref the pack's own rules.
  for (const s of packSchemas) ajv.addSchema(s);
  return ajv;
}

const bodyAjv = makeAjv(false);
const urlAjv = makeAjv(true);

/** What an integer in a URL is: decimal digits, optionally signed with a minus. */
const INTEGER_TEXT = /^-?\d+$/;
const isInteger = (s: unknown) => {
  const t = (s as { type?: unknown } | null)?.type;
  return t === 'integer' || (Array.isArray(t) && t.includes('integer'));
};

/**
 * A URL's values are text, coerced by Ajv with Number(): that would read "0x2", "1e2", "2.0" and
 * " " as integers. So every integer query or path parameter must first be written as one: decimal
 * digits, nothing else (docs/api.md: "any value that is not a 32-bit integer in range is 400").
 */
function withIntegerText(schema: { properties?: Record<string, unknown> }, validate: ValidateFunction): ValidateFunction {
  const names = Object.entries(schema.properties ?? {})
    .filter(([, s]) => isInteger(s))
    .map(([k]) => k);
  if (!names.length) return validate;
  const checked = ((data: Record<string, unknown>) => {
    for (const name of names) {
      const v = data?.[name];
      if (typeof v === 'string' && !INTEGER_TEXT.test(v)) {
        checked.errors = [
          {
            instancePath: `/${escapeToken(name)}`,
            schemaPath: `#/properties/${name}/type`,
            keyword: 'type',
            params: { type: 'integer' },
            message: 'must be integer',
          },
        ];
        return false;
      }
    }
    const ok = validate(data);
    checked.errors = validate.errors;
    return ok;
  }) as ValidateFunction;
  return checked;
}

/** A schema's types as a list (`type: 'string'` or `type: ['string', 'null']`). */
const typesOf = (s: unknown): unknown[] => {
  const t = (s as { type?: unknown } | null)?.type;
  return Array.isArray(t) ? t : [t];
};

/**
 * `x-empty-is-unset: true` on a body field: `""` is the field left unset, as a form sends an
 * empty input (the API's "empty string when unset"): null when the field takes null, else as if
 * absent. Read before validation, so `""` never meets the field's format or pattern
 * (docs/api.md, "Empty strings").
 */
function withEmptyUnset(schema: { properties?: Record<string, unknown> }, validate: ValidateFunction): ValidateFunction {
  const fields = Object.entries(schema.properties ?? {}).filter(
    ([, s]) => (s as Record<string, unknown> | null)?.['x-empty-is-unset'] === true,
  );
  if (!fields.length) return validate;
  const unset = fields.map(([name, s]) => ({ name, nullable: typesOf(s).includes('null') }));
  const checked = ((data: Record<string, unknown>) => {
    if (data && typeof data === 'object' && !Array.isArray(data)) {
      for (const { name, nullable } of unset) {
        if (data[name] !== '') continue;
        if (nullable) data[name] = null;
        else delete data[name];
      }
    }
    const ok = validate(data);
    checked.errors = validate.errors;
    return ok;
  }) as ValidateFunction;
  return checked;
}

/**
 * An empty query value (`created_after=`, `cursor=`) is the parameter left out, as the API's text
 * filters already read it ("empty string when unset"), except where a value must be chosen: an
 * integer (`limit=`) or one of a list (`status=`) stays a 400 naming it (docs/api.md).
 */
function withEmptyQueryUnset(schema: { properties?: Record<string, unknown> }, validate: ValidateFunction): ValidateFunction {
  const names = Object.entries(schema.properties ?? {})
    .filter(([, s]) => !isInteger(s) && !(s as { enum?: unknown } | null)?.enum && !typesOf(s).includes('boolean'))
    .map(([k]) => k);
  if (!names.length) return validate;
  const checked = ((data: Record<string, unknown>) => {
    for (const name of names) if (data?.[name] === '') delete data[name];
    const ok = validate(data);
    checked.errors = validate.errors;
    return ok;
  }) as ValidateFunction;
  return checked;
}

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  if (httpPart === 'body') return withEmptyUnset(schema, bodyAjv.compile(schema)) as never;
  const url = withIntegerText(schema, urlAjv.compile(schema));
  return (httpPart === 'querystring' ? withEmptyQueryUnset(schema, url) : url) as never;
};

/**
 * The error that says what is wrong. A field that is a pack rule or null fails both branches of
 * its anyOf; "must be null" and "must match a schema in anyOf" say nothing, the rule's error does.
 */
function telling(errors: ErrorObject[]): ErrorObject {
  return errors.find((x) => x.keyword !== 'anyOf' && !(x.keyword === 'type' && x.params.type === 'null')) ?? errors[0];
}

/**
 * The 400 for a failed schema. Its param names the field as core names a place in a document
 * (`pointerParam`: "/emails/0/label" → "emails[0].label"), so a key that is no identifier is quoted,
 * never spliced in: "/asset_urls/logo~1dark" → 'asset_urls["logo/dark"]'.
 */
export function validationError(errors: ErrorObject[], context: string | undefined): ApiError {
  const e = telling(errors);
  const base = pointerParam(e.instancePath);
  const join = (child: string) => pointerParam(`${e.instancePath}/${escapeToken(child)}`);
  if (e.keyword === 'required') {
    const p = join(String(e.params.missingProperty));
    return badRequest(`Missing required parameter: ${p}`, p);
  }
  if (e.keyword === 'additionalProperties') {
    const p = join(String(e.params.additionalProperty));
    return badRequest(`Received unknown parameter: ${p}`, p);
  }
  // Types in words, as the pack's findings say them ("must be an object", not ajv's "must be object").
  if (e.keyword === 'x-exactly-one-of') return badRequest(e.message ?? 'Send exactly one of the alternatives', base || undefined);
  const problem =
    e.keyword === 'type' ? `must be ${schemaTypeWords(String(e.params.type))}` : (ruleWordsOf(e) ?? e.message ?? 'is invalid');
  // A key of an object that breaks its key rule (propertyNames: a brand's asset key): the key is
  // named, in the place its value would be, and the refusal says it is the key that is wrong.
  const key = e.propertyName ?? (e.keyword === 'propertyNames' ? (e.params as { propertyName?: string }).propertyName : undefined);
  if (key !== undefined) {
    const p = join(key);
    return badRequest(`Invalid key ${p}: ${e.keyword === 'propertyNames' ? 'is not a name this object takes' : problem}`, p);
  }
  if (!base)
    return badRequest(
      `The request ${context === 'body' ? 'body' : (context ?? 'input')} ${problem}`,
      context === 'body' ? undefined : context,
    );
  if (e.keyword === 'enum') {
    return invalidField(base, `must be one of ${(e.params.allowedValues as unknown[]).map(String).join(', ')}`);
  }
  return invalidField(base, problem);
}

/**
 * A rule in the words the pack's findings use (core's ruleWords: a hex colour, an RFC 3339
 * timestamp, "at most 200 characters (it has 201)"), never ajv's regular expression or format
 * name. A pattern of the API's own (a deal's value, a workspace slug) says its words beside it in
 * its schema, as `x-pattern-words`.
 */
function ruleWordsOf(e: ErrorObject): string | undefined {
  const own: unknown = e.parentSchema?.['x-pattern-words'];
  if (e.keyword === 'pattern')
    return ruleWords(e.keyword, e.params) ?? (typeof own === 'string' ? own : 'is not written the way this field takes');
  if (e.keyword === 'format') return ruleWords(e.keyword, e.params) ?? 'is not a valid value';
  return ruleWords(e.keyword, e.params, e.data);
}
