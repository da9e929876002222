import type { FastifyPluginAsync } from 'fastify';
import { getEvent, listEvents } from './store.js';
import { typed } from '../../http/typed.js';
import type { RouteDeps } from '../../http/context.js';
import { callerOf } from '../workspaces/caller.js';
import { listOf, pagingQuery, str, ts, tsIn } from '../../http/schemas.js';

const eventSchema = {
  type: 'object',
  properties: {
    id: str,
    type: str,
    created_at: ts,
    data: { type: 'object', additionalProperties: true },
    changed_fields: { type: 'array', items: str },
  },
};

/** The outbox as an API: every event the workspace produced, whether or not an endpoint got it. */
export const eventRoutes: FastifyPluginAsync<RouteDeps> = async (plugin, { db }) => {
  const app = typed(plugin);
  app.get(
    '/v1/events',
    {
      config: { scope: ['read_events', 'read_webhooks'] },
      schema: {
        summary: 'List events, newest first; filter by type (comma-separated, "contact.*" prefixes) and creation time',
        tags: ['events'],
        querystring: {
          type: 'object',
          properties: {
            ...pagingQuery,
            type: str,
            created_after: tsIn,
            created_before: tsIn,
          },
        },
        response: { 200: listOf(eventSchema) },
      },
    },
    async (req) => listEvents(db, callerOf(req).workspace.id, req.query),
  );

  app.get(
    '/v1/events/:event_id',
    {
      config: { scope: ['read_events', 'read_webhooks'] },
      schema: {
        summary: 'Get an event',
        tags: ['events'],
        params: { type: 'object', required: ['event_id'], properties: { event_id: str } },
        response: { 200: eventSchema },
      },
    },
    async (req) => getEvent(db, callerOf(req).workspace.id, req.params.event_id),
  );
};
