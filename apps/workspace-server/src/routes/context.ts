import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../db/db.js';
import type { Caller } from '../store/workspaces.js';

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
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
  interface FastifyContextConfig extends RoutePolicy {}
}

export function callerOf(req: FastifyRequest): Caller {
  if (!req.caller) throw new Error('route used without key authentication');
  return req.caller;
}
