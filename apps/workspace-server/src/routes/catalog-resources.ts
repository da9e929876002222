import { COLLECTION_PATH } from '@setup-pack/core';
import type { FastifyPluginAsync } from 'fastify';
import {
  createOnce, deleteNamed, deleteObject, findNamed, findObject, getObject, insertNamed, insertObject, listObjects, updateNamed, updateObject,
} from '../catalog/store.js';
import { callerOf, type RouteDeps, sendCreated } from './context.js';
import { listOf, nline, nstr, pagingQuery, str, ts } from './schemas.js';
import { nullable, packRef } from './pack-schemas.js';

export const idempotencyKey = { ...nline, description: 'Reusing the same key retries one creation safely' } as const;
export const idParams = { type: 'object', required: ['id'], properties: { id: str } } as const;
export const deleted = { type: 'object', properties: { id: str, deleted: { type: 'boolean' } } } as const;
export const anyObject = { type: 'object', additionalProperties: true } as const;
/**
 * What every catalog object (catalog/store.ts, toObject) always has: its row's id, name and
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

type Q = { limit: number; cursor?: string };

/**
 * Creatable reference types: tags, contact stages and lead sources (the tables the lookups list)
 * gain create, update and delete; custom fields get the whole set. Lookup-only types (teams,
 * ponds, websites, forms, appointment types and outcomes, programs, relationship labels) are listed.
 */
export const catalogResourceRoutes: FastifyPluginAsync<RouteDeps> = async (app, { db, clock }) => {
  const named = [
    { table: 'tags', path: COLLECTION_PATH.tags, scope: 'tags', what: 'tag', extra: { color }, out: { color: nstr } },
    { table: 'contact_stages', path: COLLECTION_PATH.contact_stages, scope: 'contact_stages', what: 'contact stage', extra: {}, out: { position: { type: 'integer' } } },
    { table: 'lead_sources', path: COLLECTION_PATH.lead_sources, scope: 'lead_sources', what: 'lead source', extra: {}, out: {} },
  ] as const;

  for (const n of named) {
    const item = { type: 'object', properties: { id: str, name: str, ...n.out, created_at: ts } };
    app.post(n.path, {
      config: { scope: `write_${n.scope}` },
      schema: {
        summary: `Create a ${n.what} (idempotent with idempotency_key)`,
        tags: ['catalog'],
        body: { type: 'object', additionalProperties: false, required: ['name'], properties: { name, ...n.extra, idempotency_key: idempotencyKey } },
        response: { 201: item },
      },
    }, async (req, reply) => {
      const ws = callerOf(req).workspace.id;
      const body = req.body as { name: string; color?: string | null; idempotency_key?: string | null };
      const created = await createOnce(db, ws, n.table, body.idempotency_key, clock.now(),
        (tx) => insertNamed(tx, ws, n.table, body, clock.now()), (tx, id) => findNamed(tx, ws, n.table, id));
      return sendCreated(reply, created);
    });

    app.patch(`${n.path}/:id`, {
      config: { scope: `write_${n.scope}` },
      schema: {
        summary: `Update a ${n.what}`,
        tags: ['catalog'],
        params: idParams,
        body: { type: 'object', additionalProperties: false, properties: { name, ...n.extra } },
        response: { 200: item },
      },
    }, async (req) => updateNamed(db, callerOf(req).workspace.id, n.table, (req.params as { id: string }).id, req.body as never, n.what, clock.now()));

    app.delete(`${n.path}/:id`, {
      config: { scope: `write_${n.scope}` },
      schema: { summary: `Delete a ${n.what}`, tags: ['catalog'], params: idParams, response: { 200: deleted } },
    }, async (req) => deleteNamed(db, callerOf(req).workspace.id, n.table, (req.params as { id: string }).id, n.what, clock.now()));
  }

  // Custom fields: name and an open data object (field type, options...).
  const field = { type: 'object', required: catalogObjectRequired, properties: { id: str, name: str, data: anyObject, created_at: ts, updated_at: ts } };
  app.get(COLLECTION_PATH.custom_fields, {
    config: { scope: ['read_custom_fields', 'read_contacts'] },
    schema: { summary: 'Custom fields', tags: ['catalog'], querystring: { type: 'object', properties: pagingQuery }, response: { 200: listOf(field) } },
  }, async (req) => {
    const q = req.query as Q;
    return listObjects(db, callerOf(req).workspace.id, 'custom_fields', q.limit, q.cursor);
  });
  app.post(COLLECTION_PATH.custom_fields, {
    config: { scope: 'write_custom_fields' },
    schema: {
      summary: 'Create a custom field (idempotent with idempotency_key)',
      tags: ['catalog'],
      body: { type: 'object', additionalProperties: false, required: ['name'], properties: { name, data: anyObject, idempotency_key: idempotencyKey } },
      response: { 201: field },
    },
  }, async (req, reply) => {
    const ws = callerOf(req).workspace.id;
    const body = req.body as { name: string; data?: Record<string, unknown>; idempotency_key?: string | null };
    const created = await createOnce(db, ws, 'custom_fields', body.idempotency_key, clock.now(),
      (tx) => insertObject(tx, ws, 'custom_fields', 'cfd', body.name, { data: body.data ?? {} }, clock.now()),
      (tx, id) => findObject(tx, ws, 'custom_fields', id));
    return sendCreated(reply, created);
  });
  app.patch(`${COLLECTION_PATH.custom_fields}/:id`, {
    config: { scope: 'write_custom_fields' },
    schema: { summary: 'Update a custom field', tags: ['catalog'], params: idParams, body: { type: 'object', additionalProperties: false, properties: { name, data: anyObject } }, response: { 200: field } },
  }, async (req) => {
    const ws = callerOf(req).workspace.id;
    const { id } = req.params as { id: string };
    const body = req.body as { name?: string; data?: Record<string, unknown> };
    const cur = await getObject(db, ws, 'custom_fields', id, 'custom field');
    return updateObject(db, ws, 'custom_fields', id, body.name ?? cur.name, { data: body.data ?? cur.data }, clock.now(), 'custom field');
  });
  app.delete(`${COLLECTION_PATH.custom_fields}/:id`, {
    config: { scope: 'write_custom_fields' },
    schema: { summary: 'Delete a custom field', tags: ['catalog'], params: idParams, response: { 200: deleted } },
  }, async (req) => deleteObject(db, callerOf(req).workspace.id, 'custom_fields', (req.params as { id: string }).id, 'custom field'));

  const lookups = [
    ['teams', COLLECTION_PATH.teams, 'Teams'], ['ponds', COLLECTION_PATH.ponds, 'Lead ponds'], ['websites', COLLECTION_PATH.websites, 'Websites'], ['forms', COLLECTION_PATH.forms, 'Website forms'],
    ['appointment_types', COLLECTION_PATH.appointment_types, 'Appointment types'], ['appointment_outcomes', COLLECTION_PATH.appointment_outcomes, 'Appointment outcomes'],
    ['programs', COLLECTION_PATH.programs, 'Programs'], ['relationship_labels', COLLECTION_PATH.relationship_labels, 'Relationship labels'],
  ] as const;
  for (const [collection, path, summary] of lookups) {
    app.get(path, {
      config: { scope: `read_${collection}` },
      schema: { summary: `${summary} (lookup)`, tags: ['lookups'], querystring: { type: 'object', properties: pagingQuery }, response: { 200: listOf({ type: 'object', properties: { id: str, name: str, created_at: ts } }) } },
    }, async (req) => {
      const q = req.query as Q;
      return listObjects(db, callerOf(req).workspace.id, collection, q.limit, q.cursor);
    });
  }
};
