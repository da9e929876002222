import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { badRequest, type ApiError } from './errors.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * Bodies are validated strictly (no type coercion, no silent dropping of unknown fields); query
 * strings and path params are coerced from text, since that is all a URL can carry.
 */
function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({ coerceTypes: coerce, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const urlAjv = makeAjv(true);

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : urlAjv;
  return ajv.compile(schema) as never;
};

/** "/emails/0/label" → "emails[0].label": the param spelling clients use. */
function pointerToParam(pointer: string): string {
  return pointer
    .split('/')
    .filter(Boolean)
    .reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), '');
}

export function validationError(errors: ErrorObject[], context: string | undefined): ApiError {
  const e = errors[0];
  const base = pointerToParam(e.instancePath);
  const join = (child: string) => (base ? `${base}.${child}` : child);
  if (e.keyword === 'required') {
    const p = join(String(e.params.missingProperty));
    return badRequest(`Missing required parameter: ${p}`, p);
  }
  if (e.keyword === 'additionalProperties') {
    const p = join(String(e.params.additionalProperty));
    return badRequest(`Received unknown parameter: ${p}`, p);
  }
  if (!base) return badRequest(`The request ${context === 'body' ? 'body' : context ?? 'input'} ${e.message ?? 'is invalid'}`, context === 'body' ? undefined : context);
  if (e.keyword === 'enum') {
    return badRequest(`Invalid ${base}: must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`, base);
  }
  return badRequest(`Invalid ${base}: ${e.message ?? 'is invalid'}`, base);
}
