// Every answer that is not a route's own: errors in the API's envelope (a database fault as a 503,
// a client's fault never as a 500), input no route takes, and unknown routes (404/405).
import { count, escapeToken, pointerParam, unstorableBody, unstorableText, WORKSPACE_LIMITS } from '@setup-pack/core';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ApiError, badRequest, envelope, invalidField } from '../shared/errors.js';
import { databaseFault } from '../db/faults.js';
import { notJson } from './bodies.js';

/** Query parameters sent twice are ambiguous; the spec answers 400 instead of guessing. */
function duplicateQueryParam(url: string): string | null {
  const i = url.indexOf('?');
  if (i < 0) return null;
  const seen = new Set<string>();
  for (const key of new URLSearchParams(url.slice(i + 1)).keys()) {
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return null;
}

/**
 * A foreign-key violation names an object that does not exist: 404 when the path named it (the
 * workspace of an admin route), 400 naming the body field otherwise.
 */
function foreignKeyError(e: { code?: string; detail?: string }, params: unknown): ApiError | null {
  if (e.code !== '23503') return null;
  // 'Key (created_by_member_id)=(mem_x) is not present in table "members"'; of a composite key the last column is the field.
  const m = /Key \(([^)]*)\)=\((.*)\) is not present in table "([a-z_]+)"/.exec(e.detail ?? '');
  const column = m ? m[1].split(', ').pop()! : 'id';
  const what = (m?.[3] ?? 'object').replace(/s$/, '').replace(/_/g, ' ');
  const inPath = params && typeof params === 'object' && column in params;
  return new ApiError(
    inPath ? 404 : 400,
    'invalid_request_error',
    m ? `No such ${what}: ${column} ${JSON.stringify(m[2].split(', ').pop())}` : 'A referenced object does not exist',
    column,
  );
}

/**
 * Errors Node's HTTP parser raises before a request exists (headers over 16 KB, a malformed
 * request line): written straight to the socket, but still in the envelope.
 */
export function rawClientError(err: NodeJS.ErrnoException, socket: import('node:net').Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, text, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [
          431,
          'Request Header Fields Too Large',
          'The request line and headers are larger than 16 KB (a URL that long carries too much: send it in a body)',
        ]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'The request was not received in time']
        : [400, 'Bad Request', 'The request is not valid HTTP'];
  const body = JSON.stringify(envelope('invalid_request_error', message));
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${text}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  socket.destroy(err);
}

const isEmptyObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;

/**
 * The 400 of a JSON body sent to an operation that takes none (docs/api.md, "Conventions"): a GET's
 * parameters are in its query; elsewhere a field is named as an unknown one is, since the
 * operation has no field at all.
 */
function bodyNotTaken(method: string, url: string, body: unknown): ApiError {
  if (method === 'GET' || method === 'HEAD')
    return badRequest(`A ${method} request takes no body: send its parameters in the query string`);
  const operation = `${method} ${url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
  const first = body && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body)[0] : undefined;
  if (first === undefined) return badRequest(`${operation} takes no body: send none (or {})`);
  const param = pointerParam(`/${escapeToken(first)}`);
  return badRequest(`Received unknown parameter: ${param} (${operation} takes no body)`, param);
}

/** Input no route takes: a body on an operation without one, a repeated query parameter, text PostgreSQL cannot store. */
export function refuseUntakenInput(app: FastifyInstance): void {
  // A query parameter sent twice, and text PostgreSQL cannot store (NUL, lone surrogates), are
  // refused before any route sees them.
  app.addHook('preValidation', async (req) => {
    // A duplicate is checked after authentication, like every other 400: a keyless request is a 401, and a keyed one
    // counts against its workspace's limit (docs/api.md, "Rate limit"); it was refused in onRequest,
    // before the key was read, and so went uncounted. A route that authenticates in its statement
    // is authenticated by the error handler.
    // An operation without a body schema takes no body: a JSON body on one (a GET's filters, a
    // DELETE's "force", a field for POST …/test) is refused rather than ignored, as an unknown body
    // field is. White space alone is no body, and so is {}, which carries nothing to ignore.
    if (req.body !== undefined && req.routeOptions.url !== undefined && !req.routeOptions.schema?.body && !isEmptyObject(req.body)) {
      throw bodyNotTaken(req.method, req.routeOptions.url, req.body);
    }
    const dup = duplicateQueryParam(req.url);
    if (dup) throw new ApiError(400, 'invalid_request_error', `Query parameter ${dup} was sent more than once`, dup);
    // A body's fields each nest as deep as a pack may (unstorableBody).
    const bad = unstorableText(req.params) ?? unstorableText(req.query) ?? unstorableBody(req.body);
    if (bad) throw invalidField(bad.param, bad.what);
  });
}

/** Every error in the API's envelope; a database fault as a 503, a client's fault never as a 500. */
export function answerErrors(app: FastifyInstance, bodyLimit: number, leave: (workspaceId: string) => void): void {
  app.setErrorHandler(async (err: unknown, req, reply) => {
    // A request that failed before its route's statement authenticated it (a 400 of its query, a
    // store error): authenticated now, so a bad key is still a 401 and the request still counts.
    // Not when the store itself failed: asking it again would wait as long again for a 503.
    const deferred = req.deferredAuth;
    if (deferred && !deferred.settled && databaseFault(err)) {
      deferred.settled = true;
      leave(deferred.workspaceId);
    } else if (deferred && !deferred.settled) {
      try {
        await deferred.settle();
      } catch (e) {
        err = e;
      }
    }
    const fault = app.database.answer(err);
    if (fault) err = fault;
    if (err instanceof ApiError) {
      return reply
        .code(err.statusCode)
        .headers(err.headers)
        .send(envelope(err.type, err.message, err.param, err.fields));
    }
    const e = err as { statusCode?: number; code?: string; message?: string; detail?: string };
    const fk = foreignKeyError(e, req.params);
    if (fk)
      return reply
        .code(fk.statusCode)
        .headers(fk.headers)
        .send(envelope(fk.type, fk.message, fk.param));
    const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
    if (status === 415 || e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      // A Content-Type Fastify cannot read (no subtype, a stray character): refused before any parser.
      const refusal = notJson(req.headers['content-type']);
      return reply.code(415).send(envelope(refusal.type, refusal.message));
    }
    if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      // Fastify's "Request body is too large" said neither how large a body may be nor why.
      return reply
        .code(413)
        .send(
          envelope(
            'invalid_request_error',
            `The request body is larger than ${count(bodyLimit)} bytes, the most the API takes (a media upload of a ${WORKSPACE_LIMITS.mediaFileBytes / 1048576} MiB file as base64)`,
          ),
        );
    }
    if (status >= 400 && status < 500) {
      // Fastify's own client errors (malformed JSON, empty body, too large): keep status, use our envelope.
      return reply.code(status).send(envelope('invalid_request_error', e.message ?? 'Invalid request'));
    }
    req.log.error({ err: e }, 'request failed');
    return reply.code(500).send(envelope('api_error', 'An internal error occurred; it is safe to retry with backoff'));
  });
}

/** A path the API has with a method it does not take is a 405 naming those it takes; any other, a 404. */
export function answerUnknownRoutes(app: FastifyInstance, routes: readonly RouteOptions[]): void {
  /** The methods each route path takes, as patterns over a request's path; built at the first unmatched request. */
  let pathMethods: { pattern: RegExp; path: string; methods: Set<string> }[] | undefined;
  const methodsOf = (path: string) => {
    if (!pathMethods) {
      const byPath = new Map<string, Set<string>>();
      for (const r of routes) {
        if (!byPath.has(r.url)) byPath.set(r.url, new Set());
        for (const m of ([] as string[]).concat(r.method)) byPath.get(r.url)!.add(m);
      }
      pathMethods = [...byPath].map(([url, methods]) => ({
        path: url.replace(/:([A-Za-z0-9_]+)/g, '{$1}'),
        methods,
        pattern: new RegExp(
          `^${url
            .split(/(:[A-Za-z0-9_]+|\*)/)
            .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
            .join('')}$`,
        ),
      }));
    }
    return pathMethods.find((p) => p.pattern.test(path));
  };

  // A path the API has, with a method it does not take (PUT for PATCH), is 405 naming the methods it
  // does take (and Allow); a path it does not have is 404.
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    const known = methodsOf(path);
    // A route that takes the method and found nothing (a file missing under /editor/) is a 404.
    if (known && !known.methods.has(req.method)) {
      const allowed = [...known.methods].sort();
      reply.header('Allow', allowed.join(', '));
      return reply
        .code(405)
        .send(envelope('invalid_request_error', `${req.method} is not a method of ${known.path}; it takes ${allowed.join(', ')}`));
    }
    reply.code(404).send(envelope('invalid_request_error', `Unrecognized request URL (${req.method} ${path})`));
  });
}
