// Route handlers see their request's types worked out from the route's own JSON Schemas
// (json-schema-to-ts), so a request's shape is stated once, in the schema Ajv validates it
// against, and no cast in the handler restates it. Only the request side is typed: responses are
// shared schemas named by $ref (schemas.ts), whose values are the store's rows.
import type { FastifyInstance, FastifyTypeProvider } from 'fastify';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

export interface RequestSchemaTypes extends FastifyTypeProvider {
  validator: this['schema'] extends JSONSchema ? FromSchema<this['schema']> : unknown;
  serializer: unknown;
}

/** The plugin's instance, its handlers typed from their schemas. */
export const typed = (app: FastifyInstance) => app.withTypeProvider<RequestSchemaTypes>();
export type TypedApp = ReturnType<typeof typed>;
