// Route handlers see their request's types worked out from the route's own JSON Schemas
// (json-schema-to-ts), so a request's shape is stated once, in the schema Ajv validates it
// against, and no cast in the handler restates it. Only the request side is typed: responses are
// shared schemas named by $ref (schemas.ts), whose values are the store's rows.
import type {
  FastifyInstance,
  FastifyRequest,
  FastifyTypeProvider,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
} from 'fastify';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { PackRefPatterns } from '../shared/pack-schemas.js';

// A field that takes a pack rule by $ref (pack-schemas.ts, packRef) is typed by its deserialize
// patterns, since json-schema-to-ts cannot read the pack schemas the $ref points into.
export interface RequestSchemaTypes extends FastifyTypeProvider {
  validator: RequestType<this['schema']>;
  serializer: unknown;
}

/** The type of the values a request schema accepts, as the route handlers see them. */
export type RequestType<S> = S extends JSONSchema ? FromSchema<S, { deserialize: PackRefPatterns }> : unknown;

/**
 * The body a handler of a route whose body schema is S sees, as the type provider works it out:
 * for a concrete schema, RequestType<S>. A route helper generic over its body schema hands it to
 * callbacks of this type, since RequestType<S> of a schema not yet known is not worked out.
 */
export type BodyOf<S> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  { body: S },
  RequestSchemaTypes
>['body'];

/** The plugin's instance, its handlers typed from their schemas. */
export const typed = (app: FastifyInstance) => app.withTypeProvider<RequestSchemaTypes>();
export type TypedApp = ReturnType<typeof typed>;
