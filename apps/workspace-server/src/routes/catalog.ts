import type { FastifyPluginAsync } from 'fastify';
import { createObjectForAdmin } from './catalog-admin.js';
import { catalogContentRoutes } from './catalog-content.js';
import { catalogLedgerRoutes } from './catalog-ledger.js';
import { catalogPipelineRoutes } from './catalog-pipelines.js';
import { catalogResourceRoutes } from './catalog-resources.js';
import type { RouteDeps } from './context.js';

/** Catalog endpoints the installer needs (docs/catalog-api.md), registered with one line in the app factory. */
export const catalogRoutes: FastifyPluginAsync<RouteDeps> = async (app, deps) => {
  await app.register(catalogResourceRoutes, deps);
  await app.register(catalogPipelineRoutes, deps);
  await app.register(catalogContentRoutes, deps);
  await app.register(catalogLedgerRoutes, deps);
  await app.register(createObjectForAdmin, deps);
};
