import type { FastifyPluginAsync } from 'fastify';
import { allScopes } from '../../shared/scopes.js';
import { createApiKey, createMember, createWorkspace, plans, revokeApiKey } from './store.js';
import type { RouteDeps } from '../../http/context.js';
import { nstr, ntsIn, str, ts } from '../../http/schemas.js';
import { typed, type TypedApp } from '../../http/typed.js';

/** The dashboard's stand-in. Outside test suites drive this contract: keep it exact. */
export const adminRoutes: FastifyPluginAsync<RouteDeps> = async (plugin, deps) => {
  adminAccountRoutes(typed(plugin), deps);
};

const admin = { auth: 'admin' as const };
const wsParams = { type: 'object', required: ['workspace_id'], properties: { workspace_id: str } } as const;

/** Workspaces, their API keys and members. */
function adminAccountRoutes(app: TypedApp, { db, clock }: RouteDeps): void {
  app.post(
    '/admin/workspaces',
    {
      config: admin,
      schema: {
        summary: 'Create a workspace with the defaults a real one has',
        tags: ['admin'],
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'slug'],
          properties: {
            name: { type: 'string', minLength: 1 },
            slug: {
              type: 'string',
              pattern: '^[a-z0-9][a-z0-9-]{0,62}$',
              'x-pattern-words': 'must be 1 to 63 lower-case letters, digits and hyphens, starting with a letter or digit',
            },
            plan: { type: 'string', enum: [...plans] },
            rate_limit_per_minute: { type: 'integer', minimum: 1, maximum: 1000000 },
          },
        },
        response: {
          201: {
            type: 'object',
            properties: { id: str, name: str, slug: str, plan: str, rate_limit_per_minute: { type: 'integer' }, created_at: ts },
          },
        },
      },
    },
    async (req, reply) => reply.code(201).send(await createWorkspace(db, req.body, clock.now())),
  );

  app.post(
    '/admin/workspaces/:workspace_id/api-keys',
    {
      config: admin,
      schema: {
        summary: 'Create an API key; the secret is returned once',
        tags: ['admin'],
        params: wsParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['scopes'],
          properties: {
            scopes: {
              type: 'array',
              minItems: 1,
              items: { type: 'string', enum: [...allScopes, ...allScopes.map((s) => s.toUpperCase())] },
            },
            name: nstr,
            expires_at: { ...ntsIn, 'x-empty-is-unset': true, description: 'When the key stops working; null or "" never' },
            member_id: {
              ...nstr,
              minLength: 1,
              'x-empty-is-unset': true,
              description: 'Team member the key acts as the creator of (decides private-mailbox visibility)',
            },
          },
        },
        response: { 201: { type: 'object', properties: { id: str, key_prefix: str, scopes: { type: 'array', items: str }, secret: str } } },
      },
    },
    async (req, reply) => {
      const { workspace_id } = req.params;
      return reply.code(201).send(await createApiKey(db, workspace_id, req.body, clock.now()));
    },
  );

  app.delete(
    '/admin/api-keys/:key_id',
    {
      config: admin,
      schema: {
        summary: 'Revoke an API key',
        tags: ['admin'],
        params: { type: 'object', required: ['key_id'], properties: { key_id: str } },
        response: { 200: { type: 'object', properties: { id: str, revoked: { type: 'boolean' } } } },
      },
    },
    async (req) => revokeApiKey(db, req.params.key_id, clock.now()),
  );

  app.post(
    '/admin/workspaces/:workspace_id/members',
    {
      config: admin,
      schema: {
        summary: 'Add a team member',
        tags: ['admin'],
        params: wsParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'email'],
          properties: { name: { type: 'string', minLength: 1 }, email: { type: 'string', minLength: 3 } },
        },
        response: { 201: { type: 'object', properties: { id: str, name: str, email: str, created_at: ts } } },
      },
    },
    async (req, reply) => {
      const { workspace_id } = req.params;
      return reply.code(201).send(await createMember(db, workspace_id, req.body, clock.now()));
    },
  );
}
