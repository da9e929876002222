import type { FastifyPluginAsync } from 'fastify';
import { createDeal, listDeals, type DealFilters, type DealInput } from '../store/deals.js';
import { callerOf, type RouteDeps } from './context.js';
import { listOf, nstr, pagingQuery, ref, str } from './schemas.js';

export const dealRoutes: FastifyPluginAsync<RouteDeps> = async (app, { db, clock }) => {
  app.get('/v1/deals', {
    config: { scope: 'read_deals' },
    schema: {
      summary: 'List deals, newest first',
      tags: ['deals'],
      querystring: {
        type: 'object',
        properties: { ...pagingQuery, pipeline_id: str, stage_id: str, contact_id: str, status: { type: 'string', enum: ['open', 'won', 'lost'] } },
      },
      response: { 200: listOf(ref('Deal')) },
    },
  }, async (req) => listDeals(db, callerOf(req).workspace.id, req.query as DealFilters));

  app.post('/v1/deals', {
    config: { scope: 'write_deals' },
    schema: {
      summary: 'Create a deal; the stage decides pipeline and status',
      tags: ['deals'],
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'stage_id'],
        properties: {
          name: { type: 'string', minLength: 1 },
          stage_id: { type: 'string', minLength: 1 },
          value: { type: ['string', 'null'], pattern: '^-?\\d+(\\.\\d{1,2})?$' },
          contact_id: nstr,
          expected_close_date: nstr,
          notes: nstr,
        },
      },
      response: { 201: ref('Deal') },
    },
  }, async (req, reply) => {
    const deal = await createDeal(db, callerOf(req).workspace.id, req.body as DealInput, clock.now());
    return reply.code(201).send(deal);
  });
};
