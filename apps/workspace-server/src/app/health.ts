import type { FastifyInstance } from 'fastify';
import { envelope } from '../shared/errors.js';
import { RETRY_AFTER_SECONDS } from './db-faults.js';

export interface HealthOptions {
  /**
   * Settles when the process is warm (`serve` opens its pool's connections and primes its caches
   * before it settles): /readyz answers 503 until then, so a balancer sends a cold process nothing.
   * Absent: warm from the start.
   */
  warming?: Promise<unknown>;
}

const status = (value: string) => ({ type: 'object', required: ['status'], properties: { status: { type: 'string', enum: [value] } } });

/**
 * GET /healthz and GET /readyz (docs/api.md, "Health, readiness and metrics"), for load balancers and
 * supervisors: neither needs a key nor counts against a rate limit. /healthz says the process
 * answers, asking nothing of the store; /readyz that it is warm and its store answers a trivial
 * statement within CHECK_TIMEOUT_MS.
 */
export function registerHealth(app: FastifyInstance, opts: HealthOptions = {}): void {
  let warm = opts.warming === undefined;
  void opts.warming?.then(
    () => (warm = true),
    () => undefined,
  );
  /** The check under way: requests that arrive meanwhile share it rather than each asking the store. */
  let checking: Promise<string | undefined> | undefined;
  const check = () => (checking ??= app.database.check().finally(() => (checking = undefined)));

  app.get(
    '/healthz',
    {
      config: { auth: 'none', database: false },
      schema: {
        summary: 'Whether the server process answers (asks nothing of the database)',
        tags: ['health'],
        response: { 200: status('ok') },
      },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      config: { auth: 'none' },
      schema: {
        summary: 'Whether the server is ready for traffic: warmed up, and its database answers a trivial statement within 2 s',
        description: 'A 503 `service_unavailable` (with Retry-After) says why not: still warming up, or the database did not answer.',
        tags: ['health'],
        response: { 200: status('ready'), 503: { $ref: 'Error#' } },
      },
    },
    async (_req, reply) => {
      const why = warm ? await check() : 'warming up (opening connections, priming caches)';
      if (why === undefined) return { status: 'ready' };
      return reply
        .code(503)
        .header('Retry-After', String(RETRY_AFTER_SECONDS))
        .send(envelope('service_unavailable', `Not ready: ${why}`));
    },
  );
}
