import type { FastifyReply } from 'fastify';
import type { Clock } from '../shared/clock.js';
import type { Db } from '../db/db.js';

/** What every route plugin receives. */
export interface RouteDeps {
  db: Db;
  clock: Clock;
}

/** Per-route policy, read by the auth hook: which credential, which scope, which plan feature. */
export interface RoutePolicy {
  auth?: 'key' | 'admin' | 'none';
  /** Needed scope; a list means any one of them suffices. */
  scope?: string | string[];
  feature?: string;
  /**
   * The route authenticates inside its own first statement (StatementAuth) when this process has
   * admitted the key before: one round trip instead of two (docs/store.md). Its handler must pass
   * `req.deferredAuth` on; anything that fails before it settles the authentication first.
   */
  authInStatement?: boolean;
  /**
   * The route's write shares one statement with others (db/batch.ts), its authentication in it:
   * while the pool is saturated, and always for a busy workspace's write, which is then not counted
   * apart but waits in its workspace's lane (docs/store.md, "One busy workspace"), since a batch
   * counts each request in its place. The route's store function must honour StatementAuth.busy.
   */
  batched?: boolean;
  /** false: the route never asks the store, so a database fault never reaches it (no 503 in the OpenAPI document). */
  database?: false;
}

declare module 'fastify' {
  // Declaration merging: Fastify's route config gains the policy's fields.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface FastifyContextConfig extends RoutePolicy {}
}

/**
 * Answers a creation made at most once per idempotency key: 201 with the object, and
 * `Idempotent-Replayed: true` when it is the object an earlier request with that key made, so a
 * client can tell a retry's answer from an object that existed before it asked.
 */
export function sendCreated<T>(reply: FastifyReply, created: { object: T; replayed: boolean }, show: (o: T) => unknown = (o) => o) {
  if (created.replayed) reply.header('idempotent-replayed', 'true');
  return reply.code(201).send(show(created.object));
}
