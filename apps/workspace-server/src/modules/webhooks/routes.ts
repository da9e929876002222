import type { FastifyPluginAsync } from 'fastify';
import { badRequest, invalidField } from '../../shared/errors.js';
import { checkResolvedHost, checkWebhookUrl } from './ssrf.js';
import {
  createEndpoint,
  deleteEndpoint,
  deliveryStatuses,
  enableEndpoint,
  getDelivery,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  replayDelivery,
  replaySince,
  rotateSecret,
  updateEndpoint,
} from './store.js';
import type { WebhookWorker } from './worker.js';
import { typed, type TypedApp } from '../../http/typed.js';
import type { RouteDeps } from '../../http/context.js';
import { callerOf } from '../workspaces/caller.js';
import { listOf, nparagraph, nstr, nts, pagingQuery, str, TEXT_LIMITS, ts, tsIn } from '../../http/schemas.js';

export interface WebhookRouteDeps extends RouteDeps {
  worker: WebhookWorker;
}

const endpointSchema = {
  type: 'object',
  properties: {
    id: str,
    url: str,
    description: nstr,
    event_types: { type: 'array', items: str },
    status: { type: 'string', enum: ['unverified', 'verified', 'disabled'] },
    signing_key_type: { type: 'string', enum: ['secret', 'code_word'] },
    verified_at: nts,
    disabled_at: nts,
    disabled_reason: nstr,
    consecutive_failures: { type: 'integer' },
    created_at: ts,
    updated_at: ts,
  },
};
const withSecret = {
  ...endpointSchema,
  properties: { ...endpointSchema.properties, secret: { ...str, description: 'The signing secret; shown only in this response' } },
};

const attemptSchema = {
  type: 'object',
  properties: {
    attempt_number: { type: 'integer' },
    started_at: ts,
    outcome: { type: 'string', enum: ['succeeded', 'failed', 'interrupted'] },
    status_code: { type: ['integer', 'null'] },
    latency_ms: { type: ['integer', 'null'] },
    error: nstr,
    response_excerpt: nstr,
  },
};
const deliverySchema = {
  type: 'object',
  properties: {
    id: str,
    endpoint_id: str,
    event_id: str,
    event_type: str,
    status: { type: 'string', enum: [...deliveryStatuses] },
    attempt_count: { type: 'integer' },
    next_attempt_at: nts,
    last_status_code: { type: ['integer', 'null'] },
    last_error: nstr,
    event_created_at: ts,
    created_at: ts,
    updated_at: ts,
    completed_at: nts,
    attempts: { type: 'array', items: attemptSchema },
  },
};

/** The most event types one webhook subscribes to by name (more is a list to be replaced by "*"). */
const EVENT_TYPES_MAX = 100;
const eventTypes = {
  type: 'array',
  minItems: 1,
  maxItems: EVENT_TYPES_MAX,
  items: { type: 'string', minLength: 1, maxLength: 100 },
  description: 'Event types, or ["*"] for everything',
} as const;
const urlField = { type: 'string', minLength: 1, maxLength: TEXT_LIMITS.url } as const;
const idParams = { type: 'object', required: ['webhook_id'], properties: { webhook_id: str } } as const;
const deliveryParams = {
  type: 'object',
  required: ['webhook_id', 'delivery_id'],
  properties: { webhook_id: str, delivery_id: str },
} as const;
const tags = ['webhooks'];

/** A webhook address as registration takes it: well formed, allowed by the policy, resolving to an allowed host. */
async function checkUrl(raw: string, worker: WebhookRouteDeps['worker']): Promise<string> {
  const c = checkWebhookUrl(raw, worker.policy);
  if ('error' in c) throw invalidField('url', c.error);
  if ('refused' in c) throw invalidField('url', `is refused: ${c.refused}`);
  const why = await checkResolvedHost(c.url, worker.policy);
  if (why) throw invalidField('url', `is refused: ${why}`);
  return c.url.toString();
}

export const webhookRoutes: FastifyPluginAsync<WebhookRouteDeps> = async (plugin, deps) => {
  const app = typed(plugin);
  endpointRoutes(app, deps);
  checkRoutes(app, deps);
  deliveryRoutes(app, deps);
  adminWebhookRoutes(app, deps);
};

/** Registering, reading, changing, deleting, re-keying and re-enabling an endpoint. */
function endpointRoutes(app: TypedApp, { db, clock, worker }: WebhookRouteDeps): void {
  app.post(
    '/v1/webhooks',
    {
      config: { scope: 'write_webhooks' },
      schema: {
        summary: 'Register an endpoint (unverified until POST /v1/webhooks/{webhook_id}/verify succeeds); the secret is returned once',
        tags,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['url', 'event_types'],
          properties: { url: urlField, event_types: eventTypes, description: nparagraph },
        },
        response: { 201: withSecret },
      },
    },
    async (req, reply) => {
      const body = req.body;
      const url = await checkUrl(body.url, worker);
      const { endpoint, secret } = await createEndpoint(db, callerOf(req).workspace.id, { ...body, url }, clock.now());
      return reply.code(201).send({ ...endpoint, secret });
    },
  );

  app.get(
    '/v1/webhooks',
    {
      config: { scope: 'read_webhooks' },
      schema: {
        summary: 'List endpoints, newest first',
        tags,
        querystring: { type: 'object', properties: pagingQuery },
        response: { 200: listOf(endpointSchema) },
      },
    },
    async (req) => listEndpoints(db, callerOf(req).workspace.id, req.query),
  );

  app.get(
    '/v1/webhooks/:webhook_id',
    {
      config: { scope: 'read_webhooks' },
      schema: { summary: 'Get an endpoint', tags, params: idParams, response: { 200: endpointSchema } },
    },
    async (req) => getEndpoint(db, callerOf(req).workspace.id, req.params.webhook_id),
  );

  app.patch(
    '/v1/webhooks/:webhook_id',
    {
      config: { scope: 'write_webhooks' },
      schema: {
        summary: 'Update an endpoint; a new url clears verification and fails what was queued for the old one',
        tags,
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { url: urlField, event_types: eventTypes, description: nparagraph },
        },
        response: { 200: endpointSchema },
      },
    },
    async (req) => {
      const body = { ...req.body };
      if (body.url !== undefined) body.url = await checkUrl(body.url, worker);
      return updateEndpoint(db, callerOf(req).workspace.id, req.params.webhook_id, body, clock.now());
    },
  );

  app.delete(
    '/v1/webhooks/:webhook_id',
    {
      config: { scope: 'write_webhooks' },
      schema: {
        summary: 'Delete an endpoint and its delivery log',
        tags,
        params: idParams,
        response: { 200: { type: 'object', properties: { id: str, deleted: { type: 'boolean' } } } },
      },
    },
    async (req) => deleteEndpoint(db, callerOf(req).workspace.id, req.params.webhook_id),
  );

  app.post(
    '/v1/webhooks/:webhook_id/rotate-secret',
    {
      config: { scope: 'write_webhooks' },
      schema: {
        summary: 'Replace the signing secret; the new one is returned once and signs every later attempt',
        tags,
        params: idParams,
        response: { 200: withSecret },
      },
    },
    async (req) => {
      const { endpoint, secret } = await rotateSecret(db, callerOf(req).workspace.id, req.params.webhook_id, clock.now());
      return { ...endpoint, secret };
    },
  );

  app.post(
    '/v1/webhooks/:webhook_id/enable',
    {
      config: { scope: 'write_webhooks' },
      schema: {
        summary: 'Re-enable a disabled endpoint (resets its consecutive failures)',
        tags,
        params: idParams,
        response: { 200: endpointSchema },
      },
    },
    async (req) => {
      const ep = await enableEndpoint(db, callerOf(req).workspace.id, req.params.webhook_id, clock.now());
      worker.deliveriesDue();
      return ep;
    },
  );
}

/** Proving an endpoint answers: the verification challenge and a test event. */
function checkRoutes(app: TypedApp, { worker }: WebhookRouteDeps): void {
  app.post(
    '/v1/webhooks/:webhook_id/verify',
    {
      config: { scope: 'write_webhooks' },
      schema: {
        summary:
          'Send a signed webhook.verification event with a random data.challenge; verified when the endpoint answers 2xx with the challenge in the body',
        tags,
        params: idParams,
        response: {
          200: {
            type: 'object',
            properties: {
              verified: { type: 'boolean' },
              endpoint: endpointSchema,
              delivery_id: str,
              status_code: { type: ['integer', 'null'] },
              error: nstr,
              latency_ms: { type: 'integer' },
            },
          },
        },
      },
    },
    async (req) => worker.verify(callerOf(req).workspace.id, req.params.webhook_id),
  );

  app.post(
    '/v1/webhooks/:webhook_id/test',
    {
      config: { scope: 'write_webhooks' },
      schema: {
        summary: 'Send test: queue a webhook.ping event through the full delivery pipeline (verified endpoints only)',
        tags,
        params: idParams,
        response: { 202: { type: 'object', properties: { delivery_id: str, event_id: str } } },
      },
    },
    async (req, reply) => reply.code(202).send(await worker.ping(callerOf(req).workspace.id, req.params.webhook_id)),
  );
}

/** The delivery log and replays. */
function deliveryRoutes(app: TypedApp, { db, clock, worker }: WebhookRouteDeps): void {
  app.get(
    '/v1/webhooks/:webhook_id/deliveries',
    {
      config: { scope: 'read_webhooks' },
      schema: {
        summary: "The endpoint's deliveries, newest first, each with every attempt's status, latency and response excerpt",
        tags,
        params: idParams,
        querystring: {
          type: 'object',
          properties: {
            ...pagingQuery,
            status: { type: 'string', description: `${deliveryStatuses.join(', ')}; comma-separated for several` },
            event_type: str,
            event_id: str,
            created_after: tsIn,
          },
        },
        response: { 200: listOf(deliverySchema) },
      },
    },
    async (req) => listDeliveries(db, callerOf(req).workspace.id, req.params.webhook_id, req.query),
  );

  app.get(
    '/v1/webhooks/:webhook_id/deliveries/:delivery_id',
    {
      config: { scope: 'read_webhooks' },
      schema: { summary: 'Get one delivery with its attempts', tags, params: deliveryParams, response: { 200: deliverySchema } },
    },
    async (req) => {
      const p = req.params;
      return getDelivery(db, callerOf(req).workspace.id, p.webhook_id, p.delivery_id);
    },
  );

  app.post(
    '/v1/webhooks/:webhook_id/deliveries/:delivery_id/replay',
    {
      config: { scope: 'write_webhooks' },
      schema: {
        summary: 'Send one delivery again now, with a fresh retry budget and the same X-Service-Delivery-Id',
        tags,
        params: deliveryParams,
        response: { 200: deliverySchema },
      },
    },
    async (req) => {
      const p = req.params;
      const d = await replayDelivery(db, callerOf(req).workspace.id, p.webhook_id, p.delivery_id, clock.now());
      worker.deliveriesDue();
      return d;
    },
  );

  app.post(
    '/v1/webhooks/:webhook_id/replay',
    {
      config: { scope: 'write_webhooks' },
      schema: {
        summary: 'Replay every failed delivery of events created since a time; include_missed also queues events the endpoint never got',
        tags,
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['since'],
          properties: {
            since: tsIn,
            until: { ...tsIn, 'x-empty-is-unset': true },
            include_missed: { type: 'boolean', default: false },
          },
        },
        response: { 200: { type: 'object', properties: { replayed: { type: 'integer' }, queued_missed: { type: 'integer' } } } },
      },
    },
    async (req) => {
      const r = await replaySince(db, callerOf(req).workspace.id, req.params.webhook_id, req.body, clock.now());
      worker.deliveriesDue();
      return r;
    },
  );
}

/** An endpoint registered by the admin, as the dashboard does. */
function adminWebhookRoutes(app: TypedApp, { db, clock, worker }: WebhookRouteDeps): void {
  // The dashboard's stand-in: older endpoints sign with the SHA-256 of a code word.
  app.post(
    '/admin/workspaces/:workspace_id/webhooks',
    {
      config: { auth: 'admin' },
      schema: {
        summary:
          'Create an endpoint as the dashboard does; with code_word it signs with the hex SHA-256 of the code word and no secret is returned',
        tags: ['admin'],
        params: { type: 'object', required: ['workspace_id'], properties: { workspace_id: str } },
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['url', 'event_types'],
          properties: {
            url: urlField,
            event_types: eventTypes,
            description: nparagraph,
            code_word: { type: 'string', minLength: 1 },
            verified: { type: 'boolean' },
          },
        },
        response: { 201: { ...withSecret, properties: { ...withSecret.properties, secret: nstr } } },
      },
    },
    async (req, reply) => {
      const body = req.body;
      const url = await checkUrl(body.url, worker);
      const { workspace_id } = req.params;
      const { rows } = await db.query('SELECT 1 FROM workspaces WHERE id = $1', [workspace_id]);
      if (!rows[0]) throw badRequest('No such workspace', 'workspace_id');
      const { endpoint, secret } = await createEndpoint(db, workspace_id, { ...body, url }, clock.now());
      return reply.code(201).send({ ...endpoint, secret });
    },
  );
}
