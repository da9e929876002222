import type { FastifyRequest } from 'fastify';
import type { Caller, StatementAuth } from './store.js';

// The workspace and key a request was authenticated as belong to this module: the server's
// authentication hook (app/auth.ts) sets them, and every route reads them through callerOf.
declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
    /** Set for an authInStatement route: the authentication its statement is to carry. */
    deferredAuth?: StatementAuth & { settled: boolean };
  }
}

export function callerOf(req: FastifyRequest): Caller {
  if (!req.caller) throw new Error('route used without key authentication (or before its deferred authentication settled)');
  return req.caller;
}
