import type { FastifyPluginAsync } from 'fastify';
import { maxLengthOf } from '@setup-pack/core';
import { insertObject } from './store.js';
import type { RouteDeps } from '../../http/context.js';
import { str, ts } from '../../http/schemas.js';
import { typed } from '../../http/typed.js';

const LOOKUPS = [
  'teams',
  'ponds',
  'websites',
  'forms',
  'appointment_types',
  'appointment_outcomes',
  'programs',
  'relationship_labels',
] as const;

/** The dashboard's stand-in for the lookup-only types a pack must bind to (teams, ponds, ...). */
export const createObjectForAdmin: FastifyPluginAsync<RouteDeps> = async (plugin, { db, clock }) => {
  const app = typed(plugin);
  app.post(
    '/admin/workspaces/:workspace_id/lookups/:collection',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Add a team, pond, website, form, appointment type or outcome, program or relationship label',
        tags: ['admin'],
        params: {
          type: 'object',
          required: ['workspace_id', 'collection'],
          properties: { workspace_id: str, collection: { type: 'string', enum: [...LOOKUPS] } },
        },
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name'],
          properties: { name: { type: 'string', minLength: 1, maxLength: maxLengthOf('resource', 'name') } },
        },
        response: { 201: { type: 'object', properties: { id: str, name: str, created_at: ts } } },
      },
    },
    async (req, reply) => {
      const { workspace_id, collection } = req.params;
      const obj = await insertObject(db, workspace_id, collection, req.body.name, {}, clock.now());
      return reply.code(201).send(obj);
    },
  );
};
