import { LEDGER_LOCK } from '@setup-pack/core';
import type { FastifyPluginAsync } from 'fastify';
import {
  acquireLock,
  deleteLedger,
  getLedger,
  listIdempotencyKeys,
  listLedgers,
  releaseLock,
  releaseLockOf,
  writeLedger,
} from './store.js';
import { notFound } from '../../shared/errors.js';
import type { RouteDeps } from '../../http/context.js';
import { callerOf } from '../workspaces/caller.js';
import { anyObject } from './resources.js';
import { installLock, listOf, pagingQuery, str, ts } from '../../http/schemas.js';
import { typed, type TypedApp } from '../../http/typed.js';

const packParams = {
  type: 'object',
  required: ['pack_id'],
  properties: { pack_id: { type: 'string', minLength: 1, maxLength: 100 } },
} as const;
const lock = { ...installLock, type: ['object', 'null'] } as const;
const ledgerRecord = {
  type: 'object',
  properties: {
    pack_id: str,
    revision: { type: 'integer' },
    ledger: {
      ...anyObject,
      type: ['object', 'null'],
      description: 'null while a run holds the lock and has not written its first checkpoint',
    },
    lock,
    created_at: ts,
    updated_at: ts,
  },
} as const;
const holder = { type: 'string', minLength: 1, maxLength: LEDGER_LOCK.holderMaxLength } as const;
const ttl = { type: 'integer', ...LEDGER_LOCK.ttlSeconds, description: 'Seconds until the lock expires unless renewed' } as const;

/**
 * The install ledger per packId: an opaque JSON document the installer keeps (version, item key →
 * workspace id, content hashes, reference bindings) plus a lock with an expiry, so two installs
 * of one pack never run at once and a crashed run does not block the next one forever.
 */
export const catalogLedgerRoutes: FastifyPluginAsync<RouteDeps> = async (plugin, deps) => {
  const app = typed(plugin);
  ledgerReadRoutes(app, deps);
  ledgerWriteRoutes(app, deps);
};

/** The ledgers as read: every pack's, and one pack's with its lock. */
function ledgerReadRoutes(app: TypedApp, { db, clock }: RouteDeps): void {
  app.get(
    '/v1/install-ledgers',
    {
      config: { scope: 'read_install_ledgers' },
      schema: {
        summary:
          'Installed packs: one ledger per packId, and packs a run has locked before its first checkpoint (ledger null), newest first',
        tags: ['install ledger'],
        querystring: { type: 'object', properties: pagingQuery },
        response: { 200: listOf(ledgerRecord) },
      },
    },
    async (req) => {
      const q = req.query;
      return listLedgers(db, callerOf(req).workspace.id, q.limit, q.cursor, clock.now());
    },
  );

  app.get(
    '/v1/idempotency-keys',
    {
      config: { scope: 'read_install_ledgers' },
      schema: {
        summary:
          'Catalog creations made with an idempotency key, newest first (an installer resuming an interrupted run finds what it created)',
        tags: ['install ledger'],
        querystring: { type: 'object', properties: { ...pagingQuery, prefix: { type: 'string', minLength: 1, maxLength: 255 } } },
        response: { 200: listOf({ type: 'object', properties: { key: str, collection: str, object_id: str, created_at: ts } }) },
      },
    },
    async (req) => {
      const q = req.query;
      return listIdempotencyKeys(db, callerOf(req).workspace.id, q.prefix, q.limit, q.cursor);
    },
  );

  app.get(
    '/v1/install-ledgers/:pack_id',
    {
      config: { scope: 'read_install_ledgers' },
      schema: {
        summary: 'The install ledger of one pack (ledger null while a run holds the lock and has not written it yet)',
        tags: ['install ledger'],
        params: packParams,
        response: { 200: ledgerRecord },
      },
    },
    async (req) => {
      const r = await getLedger(db, callerOf(req).workspace.id, req.params.pack_id, clock.now());
      if (!r) throw notFound('install ledger', 'pack_id');
      return r;
    },
  );
}

/** Taking, renewing and giving back a pack's lock, and writing its ledger under it. */
function ledgerWriteRoutes(app: TypedApp, { db, clock }: RouteDeps): void {
  app.post(
    '/v1/install-ledgers/:pack_id/lock',
    {
      config: { scope: 'write_install_ledgers' },
      schema: {
        summary: "Take the pack's install lock (409 while another holder has it and it has not expired)",
        tags: ['install ledger'],
        params: packParams,
        body: { type: 'object', additionalProperties: false, required: ['holder'], properties: { holder, ttl_seconds: ttl } },
        response: {
          200: { type: 'object', properties: { pack_id: str, token: str, holder: str, expires_at: ts, revision: { type: 'integer' } } },
        },
      },
    },
    async (req) => {
      const b = req.body;
      return acquireLock(db, callerOf(req).workspace.id, req.params.pack_id, b.holder, b.ttl_seconds, clock.now());
    },
  );

  app.put(
    '/v1/install-ledgers/:pack_id',
    {
      config: { scope: 'write_install_ledgers' },
      schema: {
        summary: 'Write the ledger (a checkpoint) under the lock; renews the lock',
        tags: ['install ledger'],
        params: packParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['lock_token', 'ledger'],
          properties: { lock_token: str, ledger: anyObject, ttl_seconds: ttl },
        },
        response: { 200: ledgerRecord },
      },
    },
    async (req) => {
      const b = req.body;
      return writeLedger(db, callerOf(req).workspace.id, req.params.pack_id, b.lock_token, b.ledger, b.ttl_seconds, clock.now());
    },
  );

  app.post(
    '/v1/install-ledgers/:pack_id/unlock',
    {
      config: { scope: 'write_install_ledgers' },
      schema: {
        summary:
          'Release the lock: with its token, or by naming its holder (breaking the lock a crashed run left; 409 while another holder has it)',
        tags: ['install ledger'],
        params: packParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            lock_token: str,
            holder: {
              ...holder,
              description: 'Release the lock only if this holder has it (the run that crashed, as the 409 or GET named it)',
            },
          },
          // Exactly one: the oneOf for the document's readers, x-exactly-one-of for the 400 that names both.
          oneOf: [{ required: ['lock_token'] }, { required: ['holder'] }],
          'x-exactly-one-of': ['lock_token', 'holder'],
        },
        response: { 200: { type: 'object', properties: { pack_id: str, released: { type: 'boolean' } } } },
      },
    },
    async (req) => {
      const ws = callerOf(req).workspace.id;
      const packId = req.params.pack_id;
      const b = req.body;
      return b.holder !== undefined
        ? releaseLockOf(db, ws, packId, b.holder, clock.now())
        : releaseLock(db, ws, packId, b.lock_token as string);
    },
  );

  app.post(
    '/v1/install-ledgers/:pack_id/delete',
    {
      config: { scope: 'write_install_ledgers' },
      schema: {
        summary: 'Delete the ledger under the lock (after an uninstall); releases the lock',
        tags: ['install ledger'],
        params: packParams,
        body: { type: 'object', additionalProperties: false, required: ['lock_token'], properties: { lock_token: str } },
        response: { 200: { type: 'object', properties: { pack_id: str, deleted: { type: 'boolean' } } } },
      },
    },
    async (req) => deleteLedger(db, callerOf(req).workspace.id, req.params.pack_id, req.body.lock_token),
  );
}
