/**
 * Faults of the database rather than of a request: it cannot be reached, it is starting up or
 * shutting down, it ended the connection, or no connection came free in time. Such a statement did
 * not run (or ran in a transaction the database rolled back), so the request wrote nothing and may
 * be sent again once the database answers: the API says 503, never 500 (app/db-faults.ts).
 */

/**
 * SQLSTATEs of a database that is unavailable rather than refusing the statement: class 08
 * (connection exceptions), 57P01–57P03 (administrator or crash shutdown, cannot connect now: a
 * restart), 57P05 (an idle session timed out by the server) and 53300 (too many connections).
 */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[1235]|53300)$/;

/** Socket errors of a connection to the database (node:net), in words. */
const SOCKET_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be looked up',
};

/**
 * node-postgres and its pool say these without a code: the connection ended under a statement,
 * a client already broken was asked again, the pool's wait for a connection ran out, or the pool
 * was ended (the server is closing).
 */
const DRIVER_MESSAGES = [
  /^Connection terminated/,
  /^Client has encountered a connection error and is not queryable$/,
  /^timeout exceeded when trying to connect$/,
  /^Cannot use a pool after calling end on the pool$/,
];

/** A store that cannot answer at all (the embedded store once closed): said as PostgreSQL's admin shutdown. */
export class StoreUnavailableError extends Error {
  readonly code = '57P01';
}

interface DriverError {
  code?: unknown;
  message?: unknown;
  errors?: unknown;
  cause?: unknown;
}

/**
 * What made `err` a database fault, in a few words ("connection refused", "the database system is
 * starting up (57P03)"), or undefined when it is not one (a constraint, a bug: a 4xx or a 500).
 */
export function databaseFault(err: unknown, depth = 0): string | undefined {
  if (!err || typeof err !== 'object' || depth > 3) return undefined;
  const e = err as DriverError;
  const code = typeof e.code === 'string' ? e.code : undefined;
  const message = typeof e.message === 'string' ? e.message : '';
  if (code && UNAVAILABLE_SQLSTATE.test(code)) return `${message || 'database unavailable'} (${code})`;
  if (code && SOCKET_CAUSES[code]) return SOCKET_CAUSES[code];
  if (DRIVER_MESSAGES.some((m) => m.test(message))) return message;
  // Connecting to a name with several addresses fails with each address's error in one AggregateError.
  if (Array.isArray(e.errors) && e.errors.length > 0) return databaseFault(e.errors[0], depth + 1);
  return databaseFault(e.cause, depth + 1);
}
