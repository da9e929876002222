// The pack's rules, as the catalog routes see them. A request body field that carries a pack
// item's field (a tag's name, a stage's colour, a template's body) points at the published pack
// schema with $ref instead of restating its pattern or limits: the server accepts exactly what
// `setup-pack validate` accepts. Only what belongs to the workspace (ids, nulls that clear a
// field, server-set fields) is added here.
import { publishedSchemas, schemaId } from '@setup-pack/core';
import type { Asset, FilterDocument, MessageTemplate, Pipeline, PipelineStage, Resource, SmartList, StageType } from '@setup-pack/core';

// json-schema-to-ts cannot follow a $ref into the pack schemas, so a request field given by
// packRef would be typed unknown. The ref's type carries, on a type-only key, the value its rule
// accepts, read from core's pack types (which tsc holds to the published schemas, core's
// schema/types-check.ts); the route type provider (typed.ts) turns that key into the field's type.
declare const packValue: unique symbol;
/** A $ref to a pack rule; `T` is what the rule accepts (a type-only key: the schema is just the $ref). */
export type PackRef<T> = { readonly $ref: string; readonly [packValue]: T };

/** Each published schema a request field refers to, as core types its items; `common` is its $defs. */
interface PackItems {
  'message-template': MessageTemplate;
  'smart-list': SmartList;
  pipeline: Pipeline;
  stage: PipelineStage;
  resource: Resource;
  asset: Asset;
  common: { key: Resource['key']; hexColor: NonNullable<PipelineStage['color']> };
}
type Field<S extends keyof PackItems, K extends string> = K extends keyof PackItems[S] ? Exclude<PackItems[S][K], undefined> : unknown;
/** The value the rule at `pointer` accepts: a field (/properties/x) or a definition (/$defs/x). */
export type PackValue<S extends keyof PackItems, P extends string> = P extends `/properties/${infer K}`
  ? Field<S, K>
  : P extends `/$defs/${infer K}`
    ? Field<S, K>
    : unknown;

/**
 * Every value type a PackRef carries, as json-schema-to-ts deserialization patterns: a field is
 * typed as the narrowest of these its value fits (a ref matches every wider pattern too, and the
 * outputs are intersected). A ref whose type is none of these is typed unknown, never wrongly.
 */
type Pattern<T> = { pattern: PackRef<T>; output: T };
export type PackRefPatterns = [
  Pattern<string>,
  Pattern<string | null>,
  Pattern<number>,
  Pattern<MessageTemplate['channel']>,
  Pattern<StageType>,
  Pattern<FilterDocument>,
];

/** A subschema of a published pack schema, e.g. packRef('stage', '/properties/color'). */
export function packRef<S extends keyof PackItems, P extends string>(schema: S, pointer: P): PackRef<PackValue<S, P>>;
export function packRef(schema: string, pointer: string): { $ref: string };
export function packRef(schema: string, pointer: string): { $ref: string } {
  if (!publishedSchemas[schema]) throw new Error(`no published schema '${schema}'`);
  return { $ref: `${schemaId(schema)}#${pointer}` };
}

/**
 * A pack subschema inlined, for response schemas: the response serializer does not read the pack
 * schemas, so answers describe a pack field by a copy of its subschema taken from them.
 */
export function packSchema(schema: string, pointer: string): Record<string, unknown> {
  const s = resolvePackRef(packRef(schema, pointer).$ref);
  if (!s || typeof s !== 'object') throw new Error(`no subschema at ${schema}#${pointer}`);
  return s as Record<string, unknown>;
}

/** A pack field the API also accepts as null (to clear it). */
export function nullable<S extends object>(s: S): { readonly anyOf: readonly [S, { readonly type: 'null' }] } {
  return { anyOf: [s, { type: 'null' }] };
}

/** Every published schema, for the body validator's one Ajv. */
export const packSchemas: readonly Record<string, unknown>[] = Object.values(publishedSchemas);

/**
 * The subschema a pack $ref points at, with its own relative $refs made absolute: the OpenAPI
 * document inlines these, so it stands alone without the pack schemas beside it.
 */
export function resolvePackRef(ref: string): unknown {
  const [uri, fragment = ''] = ref.split('#');
  const schema = Object.values(publishedSchemas).find((s) => s.$id === uri);
  if (!schema) return undefined;
  let node: unknown = schema;
  for (const raw of fragment.split('/').filter(Boolean)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[token] : undefined;
  }
  return node === undefined ? undefined : absolutize(node, uri);
}

function absolutize(node: unknown, base: string): unknown {
  if (Array.isArray(node)) return node.map((n) => absolutize(n, base));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === '$ref' && typeof v === 'string' ? new URL(v, base).href : absolutize(v, base);
  return out;
}
