import type { FastifyPluginAsync } from 'fastify';
import { createDeal, listDeals } from './store.js';
import { DEAL_VALUE_PATTERN, DEAL_VALUE_WORDS, MONEY_LIMIT_WORDS } from '../../shared/money.js';
import { typed } from '../../http/typed.js';
import type { RouteDeps } from '../../http/context.js';
import { callerOf } from '../workspaces/caller.js';
import { ID_MAX_LENGTH, listOf, nid, nnotes, pagingQuery, ref, str, text, TEXT_LIMITS, timeFilterQuery } from '../../http/schemas.js';

export const dealRoutes: FastifyPluginAsync<RouteDeps> = async (plugin, { db, clock }) => {
  const app = typed(plugin);
  app.get(
    '/v1/deals',
    {
      config: { scope: 'read_deals' },
      schema: {
        summary: 'List deals, newest first',
        tags: ['deals'],
        querystring: {
          type: 'object',
          properties: {
            ...pagingQuery,
            pipeline_id: str,
            stage_id: str,
            contact_id: str,
            status: { type: 'string', enum: ['open', 'won', 'lost'] },
            ...timeFilterQuery,
          },
        },
        response: { 200: listOf(ref('Deal')) },
      },
    },
    async (req) => listDeals(db, callerOf(req).workspace.id, req.query),
  );

  app.post(
    '/v1/deals',
    {
      config: { scope: 'write_deals' },
      schema: {
        summary: 'Create a deal; the stage decides pipeline and status',
        tags: ['deals'],
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'stage_id'],
          properties: {
            name: { ...text, maxLength: TEXT_LIMITS.line },
            stage_id: { type: 'string', minLength: 1, maxLength: ID_MAX_LENGTH },
            value: {
              type: ['string', 'null'],
              pattern: DEAL_VALUE_PATTERN,
              'x-pattern-words': DEAL_VALUE_WORDS,
              'x-empty-is-unset': true,
              description: `A decimal string with at most 2 decimals (negative for credits), ${MONEY_LIMIT_WORDS} in absolute value`,
            },
            contact_id: { ...nid, 'x-empty-is-unset': true },
            expected_close_date: {
              type: ['string', 'null'],
              'x-stored': 'date-or-date-time',
              'x-empty-is-unset': true,
              description: 'RFC 3339, or YYYY-MM-DD meaning midnight UTC; "" is none',
            },
            notes: nnotes,
          },
        },
        response: { 201: ref('Deal') },
      },
    },
    async (req, reply) => {
      const deal = await createDeal(db, callerOf(req).workspace.id, req.body, clock.now());
      return reply.code(201).send(deal);
    },
  );
};
