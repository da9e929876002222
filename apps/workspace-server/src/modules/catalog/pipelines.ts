import type { FastifyPluginAsync } from 'fastify';
import { createOnce, deletePipeline, getPipeline, insertPipeline, listPipelineDetails, updatePipeline } from './store.js';
import { notFound } from '../../shared/errors.js';
import { type RouteDeps, sendCreated } from '../../http/context.js';
import { callerOf } from '../workspaces/caller.js';
import { deleted, idempotencyKey, idParams } from './resources.js';
import { listOf, nstr, pagingQuery, str, ts } from '../../http/schemas.js';
import { nullable, packRef } from '../../shared/pack-schemas.js';
import { typed } from '../../http/typed.js';
import { COLLECTION_PATH, LIST_PATH, publishedSchemas } from '@setup-pack/core';

// A pipeline and its stages are pack items: names, colours, probabilities, stage types and the
// number of stages follow the published pipeline and stage schemas.
const stage = <F extends string>(field: F) => packRef('stage', `/properties/${field}`);
const stageType = stage('stageType');
const stageIn = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    id: { ...nstr, description: 'An existing stage of this pipeline to keep (update and move); omit to add a stage' },
    name: stage('name'),
    type: stageType,
    color: nullable(stage('color')),
    probability: nullable(stage('probability')),
  },
} as const;
const stageTypes = (publishedSchemas.stage.properties as Record<string, { enum: string[] }>).stageType.enum;
const packStages = (publishedSchemas.pipeline.properties as Record<string, { minItems?: number; maxItems?: number }>).stages;
const stages = { type: 'array', minItems: packStages.minItems, maxItems: packStages.maxItems, items: stageIn } as const;
const pipelineName = packRef('pipeline', '/properties/name');
const pipelineDescription = nullable(packRef('pipeline', '/properties/description'));

export const pipelineDetail = {
  type: 'object',
  properties: {
    id: str,
    name: str,
    description: nstr,
    position: { type: 'integer' },
    stages: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: str,
          name: str,
          type: { type: 'string', enum: stageTypes },
          color: nstr,
          probability: { type: ['integer', 'null'] },
          position: { type: 'integer' },
        },
      },
    },
    created_at: ts,
  },
} as const;

/** Pipelines with their stages: get one with stage details, create, update (add, change, reorder, remove stages), delete. */
export const catalogPipelineRoutes: FastifyPluginAsync<RouteDeps> = async (plugin, { db, clock }) => {
  const app = typed(plugin);
  app.get(
    LIST_PATH.pipelines,
    {
      config: { scope: ['read_pipelines', 'read_deals'] },
      schema: {
        summary:
          'Pipelines with descriptions and stage colors and probabilities, newest first (the lookup GET /v1/pipelines has names and types only)',
        tags: ['catalog'],
        querystring: { type: 'object', properties: pagingQuery },
        response: { 200: listOf(pipelineDetail) },
      },
    },
    async (req) => listPipelineDetails(db, callerOf(req).workspace.id, req.query.limit, req.query.cursor),
  );

  app.get(
    `${COLLECTION_PATH.pipelines}/:id`,
    {
      config: { scope: ['read_pipelines', 'read_deals'] },
      schema: {
        summary: 'A pipeline with its stages in order, with colors and probabilities',
        tags: ['catalog'],
        params: idParams,
        response: { 200: pipelineDetail },
      },
    },
    async (req) => {
      const p = await getPipeline(db, callerOf(req).workspace.id, req.params.id);
      if (!p) throw notFound('pipeline', 'id');
      return p;
    },
  );

  app.post(
    COLLECTION_PATH.pipelines,
    {
      config: { scope: 'write_pipelines' },
      schema: {
        summary: 'Create a pipeline with its stages (idempotent with idempotency_key)',
        tags: ['catalog'],
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'stages'],
          properties: { name: pipelineName, description: pipelineDescription, stages, idempotency_key: idempotencyKey },
        },
        response: { 201: pipelineDetail },
      },
    },
    async (req, reply) => {
      const ws = callerOf(req).workspace.id;
      const created = await createOnce(
        db,
        ws,
        'pipelines',
        req.body.idempotency_key,
        clock.now(),
        (tx) => insertPipeline(tx, ws, req.body, clock.now()),
        (tx, id) => getPipeline(tx, ws, id),
      );
      return sendCreated(reply, created);
    },
  );

  app.patch(
    `${COLLECTION_PATH.pipelines}/:id`,
    {
      config: { scope: 'write_pipelines' },
      schema: {
        summary: 'Update a pipeline; stages, when given, is the whole ordered list (id keeps a stage, no id adds one, left out removes it)',
        tags: ['catalog'],
        params: idParams,
        body: { type: 'object', additionalProperties: false, properties: { name: pipelineName, description: pipelineDescription, stages } },
        response: { 200: pipelineDetail },
      },
    },
    async (req) => {
      const ws = callerOf(req).workspace.id;
      return db.transaction((tx) => updatePipeline(tx, ws, req.params.id, req.body, clock.now()));
    },
  );

  app.delete(
    `${COLLECTION_PATH.pipelines}/:id`,
    {
      config: { scope: 'write_pipelines' },
      schema: { summary: 'Delete a pipeline that holds no deals', tags: ['catalog'], params: idParams, response: { 200: deleted } },
    },
    async (req) => db.transaction((tx) => deletePipeline(tx, callerOf(req).workspace.id, req.params.id)),
  );
};
