// The format's closed lists, read from the published schemas (the one statement of them), for
// code that needs them as values (the CLI's source layout, export, editor forms), and the length
// limits those forms and generators show.
import { publishedSchemas } from '../generated/schemas.js';
import { escapeToken } from '../json/pointer.js';
import { schemaValidator, toDiagnostic, type Guesses } from './validator.js';
import type { Diagnostic } from '../diagnostics.js';
import type { AssetRole, MessageTemplate, ReferenceType, ResourceKind, StageType } from '../types.js';

function enumOf<T extends string>(schema: string, property: string): readonly T[] {
  const values = (publishedSchemas[schema]?.properties as Record<string, { enum?: string[] }> | undefined)?.[property]?.enum;
  if (!values) throw new Error(`schemas/${schema}.schema.json has no enum at properties.${property}`);
  return Object.freeze([...values]) as readonly T[];
}

export const RESOURCE_KINDS = enumOf<ResourceKind>('resource', 'kind');
/** The schema versions a pack may say (pack.schemaVersion's enum). */
export const SCHEMA_VERSIONS: readonly number[] = Object.freeze([
  ...((publishedSchemas.pack?.properties as Record<string, { enum?: number[] }> | undefined)?.schemaVersion?.enum ?? []),
]);
export const ASSET_ROLES = enumOf<AssetRole>('asset', 'role');
/** The one format a pack says (pack.format's const), for a form that offers it. */
export const PACK_FORMAT: string = (() => {
  const value = (publishedSchemas.pack?.properties as Record<string, { const?: unknown }> | undefined)?.format?.const;
  if (typeof value !== 'string') throw new Error('schemas/pack.schema.json has no string const at properties.format');
  return value;
})();
export const REFERENCE_TYPES = enumOf<ReferenceType>('reference', 'type');
export const STAGE_TYPES = enumOf<StageType>('stage', 'stageType');
export const MESSAGE_CHANNELS = enumOf<MessageTemplate['channel']>('message-template', 'channel');

/** A string property's maxLength in a published schema, e.g. maxLengthOf('message-template', 'body'). */
export function maxLengthOf(schema: string, property: string): number {
  const n = (publishedSchemas[schema]?.properties as Record<string, { maxLength?: number }> | undefined)?.[property]?.maxLength;
  if (typeof n !== 'number') throw new Error(`schemas/${schema}.schema.json has no maxLength at properties.${property}`);
  return n;
}

/** A number property's limits in a published schema, e.g. numberLimitsOf('settings', 'daily_send_limit') → { minimum: 1, maximum: 10000 }. */
export function numberLimitsOf(schema: string, property: string): { minimum?: number; maximum?: number } {
  const p = (publishedSchemas[schema]?.properties as Record<string, { minimum?: number; maximum?: number }> | undefined)?.[property];
  if (!p || (typeof p.minimum !== 'number' && typeof p.maximum !== 'number'))
    throw new Error(`schemas/${schema}.schema.json has no minimum or maximum at properties.${property}`);
  return {
    ...(typeof p.minimum === 'number' ? { minimum: p.minimum } : {}),
    ...(typeof p.maximum === 'number' ? { maximum: p.maximum } : {}),
  };
}

/**
 * Whether a published schema accepts `value` as the property of its object, by the schema's own
 * rule for it (type, format, pattern, limits): acceptsProperty('pack', 'exportedAt', stamp) is
 * ajv-formats' date-time, as validation applies it. For a value given some other way (a CLI
 * option) that becomes that property, so that one rule decides, stated once.
 */
export function acceptsProperty(schema: string, property: string, value: unknown): boolean {
  const properties = publishedSchemas[schema]?.properties as Record<string, unknown> | undefined;
  if (!properties || !Object.prototype.hasOwnProperty.call(properties, property))
    throw new Error(`schemas/${schema}.schema.json has no properties.${property}`);
  const validate = schemaValidator(schema);
  validate({ [property]: value });
  const at = `/${escapeToken(property)}`;
  return !(validate.errors ?? []).some((e) => e.instancePath === at || e.instancePath.startsWith(`${at}/`));
}

/**
 * What a published schema says of `value` as the property of its object, by the schema's own
 * rules for that property (type, limits, pattern…): the findings validating a document that holds
 * the value at `pointer` gives about it, placed there and named by it ("pipelines[0].stages[1].
 * probability must be an integer, not a number."). Empty when the value fits. For a form that
 * reads one typed value before it sets it, so the schema stays the one statement of the rule.
 */
export function propertyFindings(schema: string, property: string, value: unknown, pointer: string): Diagnostic[] {
  const properties = publishedSchemas[schema]?.properties as Record<string, unknown> | undefined;
  if (!properties || !Object.prototype.hasOwnProperty.call(properties, property))
    throw new Error(`schemas/${schema}.schema.json has no properties.${property}`);
  const validate = schemaValidator(schema);
  const root = { [property]: value };
  validate(root);
  const at = `/${escapeToken(property)}`;
  const guesses: Guesses = new Map();
  const out: Diagnostic[] = [];
  for (const e of validate.errors ?? []) {
    if (e.instancePath !== at && !e.instancePath.startsWith(`${at}/`)) continue;
    const d = toDiagnostic(e, root, guesses, pointer + e.instancePath.slice(at.length));
    if (d) out.push(d);
  }
  return out;
}

/** The fields a published schema defines for its objects, in the schema's order, e.g. fieldsOf('edge'). */
export function fieldsOf(schema: string): readonly string[] {
  const properties = publishedSchemas[schema]?.properties;
  if (!properties || typeof properties !== 'object') throw new Error(`schemas/${schema}.schema.json has no properties`);
  return Object.freeze(Object.keys(properties));
}
