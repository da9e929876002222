import type { FastifyPluginAsync } from 'fastify';
import {
  createTransaction,
  deleteTransaction,
  getTransaction,
  getTransactionSettings,
  getWorkflow,
  listTransactions,
  moneyFields,
  rateFields,
  sides,
  statuses,
  transactionDateFields,
  updateTransaction,
} from './store.js';
import { typed } from '../../http/typed.js';
import type { RouteDeps } from '../../http/context.js';
import { callerOf } from '../workspaces/caller.js';
import { nid, nline, nnotes, nparagraph, nstr, ref, str } from '../../http/schemas.js';

const INT32_MAX = 2147483647;
const nEnum = <const V extends readonly string[]>(values: V) => ({ type: ['string', 'null'], enum: [...values, null] }) as const;
const idParams = { type: 'object', required: ['id'], properties: { id: str } } as const;
const countsSchema = {
  type: 'object',
  properties: Object.fromEntries(statuses.map((s) => [s, { type: 'string', pattern: '^\\d+$' }])),
};

const createBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: nline,
    side: nEnum(sides),
    status: nEnum(statuses),
    deal_id: nid,
    contact_id: nid,
    listing_key: nline,
    sale_price: nstr,
    commission_rate: nstr,
    projected_close_date: nstr,
    notes: nnotes,
    stage_id: nid,
    checklist_template_id: nid,
    idempotency_key: nline,
  },
} as const;

const patchBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: nline,
    side: nEnum(sides),
    status: nEnum(statuses),
    fell_through_reason: nparagraph,
    notes: nnotes,
    deal_id: nid,
    contact_id: nid,
    listing_key: nline,
    ...Object.fromEntries([...moneyFields, ...rateFields, 'gross_commission', ...transactionDateFields].map((f) => [f, nstr])),
    stage_id: nid,
    deal_disposition: nEnum(['reopen', 'lost', 'leave_won']),
    reopen_stage_id: nid,
    deal_lost_reason: nparagraph,
  },
} as const;

const workflowSchema = {
  type: 'object',
  properties: {
    activities: {
      type: 'array',
      items: { type: 'object', properties: { id: str, title: str, description: str, created_at: { type: 'string', format: 'date-time' } } },
    },
    default_reopen_stage_id: str,
    parties: {
      type: 'array',
      items: { type: 'object', properties: { id: str, contact_id: str, name: str, role: str, relationship_label_id: str } },
    },
    reopen_stages: { type: 'array', items: { type: 'object', properties: { id: str, name: str } } },
    tasks: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: str,
          title: str,
          completed: { type: 'boolean' },
          due_date: str,
          milestone: str,
          offset_days: { type: 'integer' },
        },
      },
    },
  },
};

const settingsSchema = {
  type: 'object',
  properties: {
    closing_stages: {
      type: 'array',
      items: { type: 'object', properties: { id: str, name: str, status: str, position: { type: 'integer' } } },
    },
    checklist_templates: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: str,
          name: str,
          items: {
            type: 'array',
            items: { type: 'object', properties: { id: str, title: str, milestone: str, offset_days: { type: 'integer' } } },
          },
        },
      },
    },
  },
};

export const transactionRoutes: FastifyPluginAsync<RouteDeps> = async (plugin, { db, clock }) => {
  const app = typed(plugin);
  const read = { scope: 'read_transactions', feature: 'transactions' };
  const write = { scope: 'write_transactions', feature: 'transactions' };

  app.get(
    '/v1/transactions',
    {
      config: read,
      schema: {
        summary: 'List transactions by offset, with status counts over every match',
        tags: ['transactions'],
        querystring: {
          type: 'object',
          properties: {
            status: { type: 'string', enum: [...statuses] },
            side: { type: 'string', enum: [...sides] },
            search: str,
            contact_id: str,
            deal_id: str,
            stage_id: str,
            closing_from: str,
            closing_to: str,
            // The spec says "up to 200" (cursor lists say "1 to 100"): 0 answers the counts alone.
            limit: { type: 'integer', minimum: 0, maximum: 200, default: 50, description: 'Up to 200; 0 returns no rows, only the counts' },
            offset: { type: 'integer', minimum: 0, maximum: INT32_MAX, default: 0 },
          },
        },
        response: { 200: { type: 'object', properties: { data: { type: 'array', items: ref('Transaction') }, counts: countsSchema } } },
      },
    },
    async (req) => listTransactions(db, callerOf(req).workspace.id, req.query),
  );

  app.post(
    '/v1/transactions',
    {
      config: write,
      schema: {
        summary: 'Open a transaction (idempotent with idempotency_key)',
        tags: ['transactions'],
        body: createBody,
        response: { 200: ref('Transaction') },
      },
    },
    async (req) => createTransaction(db, callerOf(req).workspace.id, req.body, clock.now()),
  );

  app.get(
    '/v1/transactions/:id',
    {
      config: read,
      schema: { summary: 'Get a transaction', tags: ['transactions'], params: idParams, response: { 200: ref('Transaction') } },
    },
    async (req) => getTransaction(db, callerOf(req).workspace.id, req.params.id),
  );

  app.patch(
    '/v1/transactions/:id',
    {
      config: write,
      schema: {
        summary: 'Update a transaction (only fields present change)',
        tags: ['transactions'],
        params: idParams,
        body: patchBody,
        response: { 200: ref('Transaction') },
      },
    },
    async (req) => {
      const { workspace, key } = callerOf(req);
      return updateTransaction(db, workspace.id, req.params.id, req.body, key.scopes, clock.now());
    },
  );

  app.delete(
    '/v1/transactions/:id',
    {
      config: write,
      schema: {
        summary: 'Delete a transaction',
        tags: ['transactions'],
        params: idParams,
        response: { 200: { type: 'object', properties: { deleted_id: str, success: { type: 'boolean' } } } },
      },
    },
    async (req) => deleteTransaction(db, callerOf(req).workspace.id, req.params.id, clock.now()),
  );

  app.get(
    '/v1/transactions/:id/workflow',
    {
      config: read,
      schema: {
        summary: 'Workflow of a transaction: timeline, parties, checklist, reopen stages',
        tags: ['transactions'],
        params: idParams,
        response: { 200: workflowSchema },
      },
    },
    async (req) => getWorkflow(db, callerOf(req).workspace.id, req.params.id),
  );

  app.get(
    '/v1/transaction-settings',
    {
      config: read,
      schema: { summary: 'Closing stages and checklist templates', tags: ['transactions'], response: { 200: settingsSchema } },
    },
    async (req) => getTransactionSettings(db, callerOf(req).workspace.id),
  );
};
