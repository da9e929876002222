import type { FastifyPluginAsync } from 'fastify';
import { createObjectForAdmin } from './admin.js';
import { catalogContentRoutes } from './content.js';
import { catalogLedgerRoutes } from './ledger.js';
import { catalogPipelineRoutes } from './pipelines.js';
import { catalogResourceRoutes } from './resources.js';
import type { RouteDeps } from '../../http/context.js';

/** Catalog endpoints the installer needs (docs/catalog-api.md), registered with one line in the app factory. */
export const catalogRoutes: FastifyPluginAsync<RouteDeps> = async (app, deps) => {
  await app.register(catalogResourceRoutes, deps);
  await app.register(catalogPipelineRoutes, deps);
  await app.register(catalogContentRoutes, deps);
  await app.register(catalogLedgerRoutes, deps);
  await app.register(createObjectForAdmin, deps);
};
