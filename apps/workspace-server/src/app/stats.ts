// GET /admin/stats: this process's own counters (the contacts module's caches, the database
// layer's batches, the webhook worker's fan-outs), for an operator next to /metrics.
import type { FastifyPluginAsync } from 'fastify';
import { batchStats } from '../db/batch.js';
import type { RouteDeps } from '../http/context.js';
import { typed } from '../http/typed.js';
import { contactPageCache, contactTextCache } from '../modules/contacts/cache.js';

/** The process's own counters: caches, batches and webhook fan-out. */
export const statsRoutes: FastifyPluginAsync<RouteDeps> = async (plugin, { db }) => {
  const app = typed(plugin);
  const count = { type: 'integer' };
  const counters = (properties: string[]) => ({ type: 'object', properties: Object.fromEntries(properties.map((p) => [p, count])) });
  app.get(
    '/admin/stats',
    {
      // The process's own counters: nothing asks the store.
      config: { auth: 'admin', database: false },
      schema: {
        summary: "This server process's caches and batches (with --workers, the process that answered)",
        tags: ['admin'],
        response: {
          200: {
            type: 'object',
            properties: {
              pid: count,
              contact_texts: counters(['entries', 'characters', 'capacity', 'hits', 'misses', 'received']),
              list_pages: counters(['entries', 'characters', 'capacity', 'hits']),
              batches: counters(['statements', 'requests', 'waiting']),
              webhooks: { type: 'object', properties: { fan_outs: count, relays_nudges: { type: 'boolean' } } },
            },
          },
        },
      },
    },
    async (req) => {
      const [texts, pages, batches] = [contactTextCache(db), contactPageCache(db), batchStats(db)];
      const worker = req.server.webhooks; // the delivery worker (registerWebhooks)
      return {
        pid: process.pid,
        contact_texts: {
          entries: texts.count,
          characters: texts.used,
          capacity: texts.capacity,
          hits: texts.hits,
          misses: texts.misses,
          received: texts.received,
        },
        list_pages: { entries: pages.count, characters: pages.used, capacity: pages.capacity, hits: pages.hits },
        batches: { statements: batches.batches, requests: batches.batched, waiting: batches.waiting },
        webhooks: { fan_outs: worker.fanOuts, relays_nudges: worker.relayNudges !== undefined },
      };
    },
  );
};
