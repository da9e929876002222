import type { FastifyPluginAsync } from 'fastify';
import type { RouteDeps } from '../../http/context.js';
import { callerOf } from './caller.js';
import { str } from '../../http/schemas.js';

export const meRoutes: FastifyPluginAsync<RouteDeps> = async (app) => {
  app.get(
    '/v1/me',
    {
      schema: {
        summary: 'Identity of the calling key',
        tags: ['identity'],
        response: {
          200: {
            type: 'object',
            properties: {
              workspace: { type: 'object', properties: { id: str, name: str, slug: str } },
              api_key: { type: 'object', properties: { id: str, key_prefix: str, scopes: { type: 'array', items: str } } },
              rate_limit_per_minute: { type: 'integer' },
            },
          },
        },
      },
    },
    async (req) => {
      const { workspace, key } = callerOf(req);
      return {
        workspace: { id: workspace.id, name: workspace.name, slug: workspace.slug },
        api_key: { id: key.id, key_prefix: key.key_prefix, scopes: key.scopes.map((s) => s.toUpperCase()) },
        rate_limit_per_minute: workspace.rate_limit_per_minute,
      };
    },
  );
};
