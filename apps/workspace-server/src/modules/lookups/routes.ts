import { COLLECTION_PATH } from '@setup-pack/core';
import type { FastifyPluginAsync } from 'fastify';
import { packSchema } from '../../shared/pack-schemas.js';
import { listContactStages, listLeadSources, listMembers, listPipelines, listTags } from './store.js';
import { typed } from '../../http/typed.js';
import type { RouteDeps } from '../../http/context.js';
import { callerOf } from '../workspaces/caller.js';
import { listOf, nstr, pagingQuery, str, ts } from '../../http/schemas.js';

const item = (extra: Record<string, unknown>) => ({ type: 'object', properties: { id: str, name: str, ...extra, created_at: ts } });

export const lookupRoutes: FastifyPluginAsync<RouteDeps> = async (plugin, { db }) => {
  const app = typed(plugin);
  const query = { type: 'object', properties: pagingQuery } as const;

  app.get(
    COLLECTION_PATH.tags,
    {
      config: { scope: ['read_tags', 'read_contacts'] },
      schema: { summary: 'Workspace tags', tags: ['lookups'], querystring: query, response: { 200: listOf(item({ color: nstr })) } },
    },
    async (req) => {
      const q = req.query;
      return listTags(db, callerOf(req).workspace.id, q.limit, q.cursor);
    },
  );

  app.get(
    COLLECTION_PATH.contact_stages,
    {
      config: { scope: ['read_contact_stages', 'read_contacts'] },
      schema: {
        summary: 'Contact stages',
        tags: ['lookups'],
        querystring: query,
        response: { 200: listOf(item({ position: { type: 'integer' } })) },
      },
    },
    async (req) => {
      const q = req.query;
      return listContactStages(db, callerOf(req).workspace.id, q.limit, q.cursor);
    },
  );

  app.get(
    COLLECTION_PATH.lead_sources,
    {
      config: { scope: ['read_lead_sources', 'read_contacts'] },
      schema: { summary: 'Lead sources', tags: ['lookups'], querystring: query, response: { 200: listOf(item({})) } },
    },
    async (req) => {
      const q = req.query;
      return listLeadSources(db, callerOf(req).workspace.id, q.limit, q.cursor);
    },
  );

  app.get(
    COLLECTION_PATH.members,
    {
      config: { scope: ['read_members', 'read_contacts'] },
      schema: { summary: 'Team members', tags: ['lookups'], querystring: query, response: { 200: listOf(item({ email: str })) } },
    },
    async (req) => {
      const q = req.query;
      return listMembers(db, callerOf(req).workspace.id, q.limit, q.cursor);
    },
  );

  app.get(
    COLLECTION_PATH.pipelines,
    {
      config: { scope: ['read_pipelines', 'read_deals'] },
      schema: {
        summary: 'Deal pipelines with their stages in order',
        tags: ['lookups'],
        querystring: query,
        response: {
          200: listOf(
            item({
              position: { type: 'integer' },
              stages: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { id: str, name: str, type: packSchema('stage', '/properties/stageType'), position: { type: 'integer' } },
                },
              },
            }),
          ),
        },
      },
    },
    async (req) => {
      const q = req.query;
      return listPipelines(db, callerOf(req).workspace.id, q.limit, q.cursor);
    },
  );
};
