import { COLLECTION_PATH } from '@setup-pack/core';
import type { FastifyPluginAsync } from 'fastify';
import {
  createOnce,
  deleteNamed,
  deleteObject,
  findNamed,
  findObject,
  getObject,
  insertNamed,
  insertObject,
  listObjects,
  updateNamed,
  updateObject,
} from './store.js';
import { type RouteDeps, sendCreated } from '../../http/context.js';
import { callerOf } from '../workspaces/caller.js';
import { listOf, nline, nstr, pagingQuery, str, ts } from '../../http/schemas.js';
import { nullable, packRef } from '../../shared/pack-schemas.js';
import { typed, type TypedApp } from '../../http/typed.js';

export const idempotencyKey = { ...nline, description: 'Reusing the same key retries one creation safely' } as const;
export const idParams = { type: 'object', required: ['id'], properties: { id: str } } as const;
export const deleted = { type: 'object', properties: { id: str, deleted: { type: 'boolean' } } } as const;
export const anyObject = { type: 'object', additionalProperties: true } as const;
/**
 * What every catalog object (modules/catalog/store.ts, toObject) always has: its row's id, name and
 * timestamps. Its other fields come from the object's stored data and may be absent (an object
 * written by an older server), so they are not required: a required field that is missing would
 * make the response serialiser answer 500.
 */
export const catalogObjectRequired = ['id', 'name', 'created_at', 'updated_at'] as const;
export const nullableObject = { type: ['object', 'null'], additionalProperties: true } as const;
// A tag, contact stage, lead source or custom field is a pack resource: its name follows the
// resource schema; a tag's colour is the pack's hex colour (or null to clear it).
const color = nullable(packRef('common', '/$defs/hexColor'));
const name = packRef('resource', '/properties/name');

/**
 * The create and update bodies of a named type with `extra` fields beside its name, built per
 * type so each route's schema keeps a type of its own: in a union of the loop's schemas,
 * json-schema-to-ts would read a field only a tag has as unknown.
 */
function namedBodies<E extends object>(extra: E) {
  return {
    create: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: { name, ...extra, idempotency_key: idempotencyKey },
    },
    update: { type: 'object', additionalProperties: false, properties: { name, ...extra } },
  } as const;
}

/**
 * Creatable reference types: tags, contact stages and lead sources (the tables the lookups list)
 * gain create, update and delete; custom fields get the whole set. Lookup-only types (teams,
 * ponds, websites, forms, appointment types and outcomes, programs, relationship labels) are listed.
 */
export const catalogResourceRoutes: FastifyPluginAsync<RouteDeps> = async (plugin, deps) => {
  const app = typed(plugin);
  namedTypeRoutes(app, deps);
  customFieldRoutes(app, deps);
  lookupOnlyRoutes(app, deps);
};

/** Tags, contact stages and lead sources: created, renamed and deleted by name. */
function namedTypeRoutes(app: TypedApp, { db, clock }: RouteDeps): void {
  const named = [
    { table: 'tags', path: COLLECTION_PATH.tags, scope: 'tags', what: 'tag', body: namedBodies({ color }), out: { color: nstr } },
    {
      table: 'contact_stages',
      path: COLLECTION_PATH.contact_stages,
      scope: 'contact_stages',
      what: 'contact stage',
      body: namedBodies({}),
      out: { position: { type: 'integer' } },
    },
    {
      table: 'lead_sources',
      path: COLLECTION_PATH.lead_sources,
      scope: 'lead_sources',
      what: 'lead source',
      body: namedBodies({}),
      out: {},
    },
  ] as const;

  for (const n of named) {
    const item = { type: 'object', properties: { id: str, name: str, ...n.out, created_at: ts } };
    app.post(
      n.path,
      {
        config: { scope: `write_${n.scope}` },
        schema: {
          summary: `Create a ${n.what} (idempotent with idempotency_key)`,
          tags: ['catalog'],
          body: n.body.create,
          response: { 201: item },
        },
      },
      async (req, reply) => {
        const ws = callerOf(req).workspace.id;
        const created = await createOnce(
          db,
          ws,
          n.table,
          req.body.idempotency_key,
          clock.now(),
          (tx) => insertNamed(tx, ws, n.table, req.body, clock.now()),
          (tx, id) => findNamed(tx, ws, n.table, id),
        );
        return sendCreated(reply, created);
      },
    );

    app.patch(
      `${n.path}/:id`,
      {
        config: { scope: `write_${n.scope}` },
        schema: {
          summary: `Update a ${n.what}`,
          tags: ['catalog'],
          params: idParams,
          body: n.body.update,
          response: { 200: item },
        },
      },
      async (req) => updateNamed(db, callerOf(req).workspace.id, n.table, req.params.id, req.body, n.what, clock.now()),
    );

    app.delete(
      `${n.path}/:id`,
      {
        config: { scope: `write_${n.scope}` },
        schema: { summary: `Delete a ${n.what}`, tags: ['catalog'], params: idParams, response: { 200: deleted } },
      },
      async (req) => deleteNamed(db, callerOf(req).workspace.id, n.table, req.params.id, n.what, clock.now()),
    );
  }
}

/** Custom fields: name and an open data object (field type, options...). */
function customFieldRoutes(app: TypedApp, { db, clock }: RouteDeps): void {
  const field = {
    type: 'object',
    required: catalogObjectRequired,
    properties: { id: str, name: str, data: anyObject, created_at: ts, updated_at: ts },
  };
  app.get(
    COLLECTION_PATH.custom_fields,
    {
      config: { scope: ['read_custom_fields', 'read_contacts'] },
      schema: {
        summary: 'Custom fields',
        tags: ['catalog'],
        querystring: { type: 'object', properties: pagingQuery },
        response: { 200: listOf(field) },
      },
    },
    async (req) => listObjects(db, callerOf(req).workspace.id, 'custom_fields', req.query.limit, req.query.cursor),
  );
  app.post(
    COLLECTION_PATH.custom_fields,
    {
      config: { scope: 'write_custom_fields' },
      schema: {
        summary: 'Create a custom field (idempotent with idempotency_key)',
        tags: ['catalog'],
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name'],
          properties: { name, data: anyObject, idempotency_key: idempotencyKey },
        },
        response: { 201: field },
      },
    },
    async (req, reply) => {
      const ws = callerOf(req).workspace.id;
      const body = req.body;
      const created = await createOnce(
        db,
        ws,
        'custom_fields',
        body.idempotency_key,
        clock.now(),
        (tx) => insertObject(tx, ws, 'custom_fields', body.name, { data: body.data ?? {} }, clock.now()),
        (tx, id) => findObject(tx, ws, 'custom_fields', id),
      );
      return sendCreated(reply, created);
    },
  );
  app.patch(
    `${COLLECTION_PATH.custom_fields}/:id`,
    {
      config: { scope: 'write_custom_fields' },
      schema: {
        summary: 'Update a custom field',
        tags: ['catalog'],
        params: idParams,
        body: { type: 'object', additionalProperties: false, properties: { name, data: anyObject } },
        response: { 200: field },
      },
    },
    async (req) => {
      const ws = callerOf(req).workspace.id;
      const { id } = req.params;
      const body = req.body;
      const cur = await getObject(db, ws, 'custom_fields', id, 'custom field');
      return updateObject(db, ws, 'custom_fields', id, body.name ?? cur.name, { data: body.data ?? cur.data }, clock.now(), 'custom field');
    },
  );
  app.delete(
    `${COLLECTION_PATH.custom_fields}/:id`,
    {
      config: { scope: 'write_custom_fields' },
      schema: { summary: 'Delete a custom field', tags: ['catalog'], params: idParams, response: { 200: deleted } },
    },
    async (req) => deleteObject(db, callerOf(req).workspace.id, 'custom_fields', req.params.id, 'custom field'),
  );
}

/** The lookup-only types: listed, never written through the API. */
function lookupOnlyRoutes(app: TypedApp, { db }: RouteDeps): void {
  const lookups = [
    ['teams', COLLECTION_PATH.teams, 'Teams'],
    ['ponds', COLLECTION_PATH.ponds, 'Lead ponds'],
    ['websites', COLLECTION_PATH.websites, 'Websites'],
    ['forms', COLLECTION_PATH.forms, 'Website forms'],
    ['appointment_types', COLLECTION_PATH.appointment_types, 'Appointment types'],
    ['appointment_outcomes', COLLECTION_PATH.appointment_outcomes, 'Appointment outcomes'],
    ['programs', COLLECTION_PATH.programs, 'Programs'],
    ['relationship_labels', COLLECTION_PATH.relationship_labels, 'Relationship labels'],
  ] as const;
  for (const [collection, path, summary] of lookups) {
    app.get(
      path,
      {
        config: { scope: `read_${collection}` },
        schema: {
          summary: `${summary} (lookup)`,
          tags: ['lookups'],
          querystring: { type: 'object', properties: pagingQuery },
          response: { 200: listOf({ type: 'object', properties: { id: str, name: str, created_at: ts } }) },
        },
      },
      async (req) => listObjects(db, callerOf(req).workspace.id, collection, req.query.limit, req.query.cursor),
    );
  }
}
