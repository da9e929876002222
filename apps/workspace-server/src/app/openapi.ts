import type { RouteOptions } from 'fastify';
import { resolvePackRef } from '../shared/pack-schemas.js';

/**
 * Builds the OpenAPI 3.1 document from the very schemas Fastify validates and serialises with,
 * collected by an onRoute hook: there is no second, hand-written copy to drift.
 */
/** The parts of a route's JSON Schema the document reads. */
interface ObjectSchema {
  properties?: Record<string, unknown>;
  required?: string[];
}
interface RouteSchema {
  hide?: boolean;
  params?: ObjectSchema;
  querystring?: ObjectSchema;
  body?: unknown;
  response?: Record<string, { description?: string }>;
  tags?: string[];
  summary?: string;
  description?: string;
  [key: string]: unknown;
}

export function buildOpenApi(routes: RouteOptions[], shared: { $id: string }[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  for (const r of routes) {
    const schema = (r.schema ?? {}) as RouteSchema;
    if (schema.hide || r.url === '*') continue;
    const methods = ([] as string[]).concat(r.method).map((m) => m.toLowerCase());
    if (methods.includes('head')) continue;
    const path = r.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const policy = (r.config ?? {}) as { auth?: string; scope?: string | string[]; database?: false };
    const parameters: unknown[] = [];
    for (const [where, s] of [
      ['path', schema.params],
      ['query', schema.querystring],
    ] as const) {
      for (const [name, prop] of Object.entries(s?.properties ?? {})) {
        parameters.push({ name, in: where, required: where === 'path' || (s?.required ?? []).includes(name), schema: rewriteRefs(prop) });
      }
    }
    const responses: Record<string, unknown> = {};
    const authenticated = policy.auth !== 'none';
    for (const [code, s] of Object.entries(schema.response ?? {})) {
      responses[code] = {
        description: s.description ?? 'Success',
        ...(authenticated ? { headers: RATE_LIMIT_HEADERS } : {}),
        content: { 'application/json': { schema: rewriteRefs(s) } },
      };
    }
    // The error statuses this operation can answer, each in the one envelope.
    for (const code of errorStatuses(path, methods, schema, policy))
      responses[code] = { $ref: `#/components/responses/${ERRORS[code].name}` };
    const op: Record<string, unknown> = {
      operationId: operationId(methods[0], path),
      summary: schema.summary,
      tags: [tagOf(schema, path)],
      parameters,
      responses,
      security: policy.auth === 'none' ? [] : [{ [policy.auth === 'admin' ? 'adminToken' : 'apiKey']: [] }],
    };
    if (policy.scope) op['x-required-scopes'] = ([] as string[]).concat(policy.scope);
    if (schema.body) op.requestBody = { required: true, content: { 'application/json': { schema: rewriteRefs(schema.body) } } };
    else op.description = [schema.description, NO_BODY].filter(Boolean).join('\n\n');
    for (const m of methods) (paths[path] ??= {})[m] = op;
    tags.add(tagOf(schema, path));
  }
  const components = Object.fromEntries(shared.map(({ $id, ...rest }) => [$id, rewriteRefs(rest)]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Workspace CRM REST API',
      version: '1',
      description:
        'The REST API of one workspace: contacts, activities, transactions, deals, webhooks and the catalog endpoints pack installs use.',
    },
    servers: [{ url: '/', description: 'This server' }],
    tags: [...tags]
      .sort()
      .map((name) => ({ name, description: name === 'admin' ? 'Server administration (ADMIN_TOKEN)' : `The ${name} endpoints` })),
    paths,
    components: {
      schemas: components,
      headers: {
        'X-RateLimit-Limit': { description: 'Requests per minute the workspace may make', schema: { type: 'integer' } },
        'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
        'X-RateLimit-Reset': { description: 'When the window resets (Unix seconds)', schema: { type: 'integer' } },
        'Retry-After': { description: 'Seconds to wait before retrying (429 and 503)', schema: { type: 'integer' } },
      },
      responses: Object.fromEntries(
        Object.values(ERRORS).map((e) => [
          e.name,
          {
            description: e.description,
            headers:
              e.name === 'RateLimited' || e.name === 'ServiceUnavailable'
                ? { ...RATE_LIMIT_HEADERS, 'Retry-After': { $ref: '#/components/headers/Retry-After' } }
                : RATE_LIMIT_HEADERS,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        ]),
      ),
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'Workspace API key' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN of the server' },
      },
    },
  };
}

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

const ERRORS: Record<string, { name: string; description: string }> = {
  '400': { name: 'BadRequest', description: 'Malformed request or invalid field (error.param names it)' },
  '401': { name: 'Unauthorized', description: 'Missing, revoked or expired key' },
  '403': { name: 'Forbidden', description: 'The key lacks a scope, or the plan excludes the feature' },
  '404': { name: 'NotFound', description: 'No such object (including objects of another workspace)' },
  '409': { name: 'Conflict', description: 'A state conflict (a held install lock, a stage that still holds deals)' },
  '413': { name: 'PayloadTooLarge', description: 'The body is larger than the server takes' },
  '415': { name: 'UnsupportedMediaType', description: 'A body without Content-Type: application/json, or in another charset than UTF-8' },
  '429': { name: 'RateLimited', description: 'Rate limit exceeded; Retry-After gives seconds' },
  '500': { name: 'ServerError', description: 'Failure on the service side; safe to retry with backoff' },
  '503': {
    name: 'ServiceUnavailable',
    description:
      'The database is unavailable for the moment (restarting, unreachable, out of connections): the request was not carried out; retry after Retry-After seconds',
  },
};

/** What an operation without a requestBody does with one (app/errors.ts, bodyNotTaken): said on each. */
const NO_BODY =
  'Takes no request body: send none. An empty object `{}` is taken as none; a JSON body with anything in it is a 400 naming it, and a body of another type a 415.';

/**
 * Which error statuses an operation can answer, from what it takes and how it is guarded. Every
 * operation reads a body it is sent, whatever its method (app/bodies.ts), so each can answer 413 (too
 * large) and 415 (not JSON), and 400 (a JSON body it does not take, or a malformed one).
 */
function errorStatuses(
  path: string,
  methods: string[],
  schema: RouteSchema,
  policy: { auth?: string; scope?: unknown; database?: false },
): string[] {
  const out = ['400'];
  if (policy.auth !== 'none') out.push('401');
  if (policy.auth !== 'none' && policy.auth !== 'admin' && policy.scope !== undefined) out.push('403');
  if (path.includes('{')) out.push('404');
  if (/lock|ledger|pipeline|stage/.test(path) && !methods.includes('get')) out.push('409');
  out.push('413', '415');
  if (policy.auth !== 'none' && policy.auth !== 'admin') out.push('429');
  out.push('500');
  if (policy.database !== false) out.push('503');
  return out;
}

/** An operation's tag: its schema's own, else its resource (/v1/<resource>/…) or admin. */
function tagOf(schema: { tags?: string[] }, path: string): string {
  const [, root, resource] = path.split('/');
  return schema.tags?.[0] ?? (root === 'admin' ? 'admin' : resource);
}

/** A stable operationId from the method and path: post /v1/contacts/{contact_id}/notes → postContactsNotes. */
function operationId(method: string, path: string): string {
  const words = path
    .replace(/\{[^}]+\}/g, '')
    .replace(/^\/(v1|admin)\//, (_, p: string) => (p === 'admin' ? 'admin/' : ''))
    .split(/[/_-]/)
    .filter(Boolean);
  const by = path.match(/\{([a-z_]+)\}$/) ? 'ById' : '';
  return method + words.map((w) => w[0].toUpperCase() + w.slice(1)).join('') + by;
}

/**
 * Fastify's shared-schema references ("Contact#") become OpenAPI component references; references
 * into the published pack schemas are inlined, so the document stands alone. An inlined copy of a
 * whole pack schema leaves its $id and $schema behind: a copy is not that schema, and two copies
 * claiming one $id make a JSON Schema validator refuse the whole document (its own $refs were made
 * absolute and are inlined in turn, so nothing resolves against the dropped $id).
 */
function rewriteRefs(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(rewriteRefs);
  if (s && typeof s === 'object') {
    const ref = (s as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && /^https?:/.test(ref)) {
      const { $ref: _, ...rest } = s as Record<string, unknown>;
      const target = resolvePackRef(ref);
      if (target === undefined) throw new Error(`OpenAPI: cannot resolve ${ref}`);
      const { $id: _id, $schema: _schema, ...copy } = target as Record<string, unknown>;
      return rewriteRefs({ ...copy, ...rest });
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s)) {
      out[k] =
        k === '$ref' && typeof v === 'string' && !v.startsWith('#/') ? `#/components/schemas/${v.replace(/#$/, '')}` : rewriteRefs(v);
    }
    return out;
  }
  return s;
}
