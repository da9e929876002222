import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../http/context.js';
import { eventRoutes } from './events-routes.js';
import { webhookRoutes } from './routes.js';
import { WebhookWorker, type WebhookOptions } from './worker.js';

export type { WebhookOptions } from './worker.js';
export { WebhookWorker } from './worker.js';

declare module 'fastify' {
  interface FastifyInstance {
    webhooks: WebhookWorker;
  }
}

/** Webhook and event routes plus the delivery worker, started with the app and stopped on close. */
export async function registerWebhooks(app: FastifyInstance, deps: RouteDeps, opts: WebhookOptions = {}): Promise<WebhookWorker> {
  const worker = new WebhookWorker(deps.db, deps.clock, { ...opts, onWarning: opts.onWarning ?? ((m) => app.log.warn(m)) });
  app.decorate('webhooks', worker);
  await app.register(webhookRoutes, { ...deps, worker });
  await app.register(eventRoutes, deps);
  // A successful write may have added outbox rows: wake the worker instead of waiting for the poll.
  app.addHook('onResponse', async (req, reply) => {
    if (req.method !== 'GET' && req.method !== 'HEAD' && reply.statusCode < 300) worker.nudge();
  });
  app.addHook('onReady', async () => worker.start());
  app.addHook('onClose', async () => worker.stop());
  return worker;
}
