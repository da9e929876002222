import type { RouteOptions } from 'fastify';
import { resolvePackRef } from './pack-schemas.js';

/**
 * Builds the OpenAPI 3.1 document from the very schemas Fastify validates and serialises with,
 * collected by an onRoute hook: there is no second, hand-written copy to drift.
 */
export function buildOpenApi(routes: RouteOptions[], shared: { $id: string }[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const schema = (r.schema ?? {}) as Record<string, any>;
    if (schema.hide || r.url === '*') continue;
    const methods = ([] as string[]).concat(r.method as string | string[]).map((m) => m.toLowerCase());
    if (methods.includes('head')) continue;
    const path = r.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const policy = (r.config ?? {}) as { auth?: string; scope?: string | string[] };
    const parameters: unknown[] = [];
    for (const [where, s] of [['path', schema.params], ['query', schema.querystring]] as const) {
      for (const [name, prop] of Object.entries<any>(s?.properties ?? {})) {
        parameters.push({ name, in: where, required: where === 'path' || (s.required ?? []).includes(name), schema: rewriteRefs(prop) });
      }
    }
    const responses: Record<string, unknown> = {};
    for (const [code, s] of Object.entries<any>(schema.response ?? {})) {
      responses[code] = { description: s.description ?? 'Success', content: { 'application/json': { schema: rewriteRefs(s) } } };
    }
    responses.default = { description: 'Error envelope', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    const op: Record<string, unknown> = {
      summary: schema.summary,
      tags: schema.tags,
      parameters,
      responses,
      security: policy.auth === 'none' ? [] : [{ [policy.auth === 'admin' ? 'adminToken' : 'apiKey']: [] }],
    };
    if (policy.scope) op['x-required-scopes'] = ([] as string[]).concat(policy.scope);
    if (schema.body) op.requestBody = { required: true, content: { 'application/json': { schema: rewriteRefs(schema.body) } } };
    for (const m of methods) (paths[path] ??= {})[m] = op;
  }
  const components = Object.fromEntries(shared.map(({ $id, ...rest }) => [$id, rewriteRefs(rest)]));
  return {
    openapi: '3.1.0',
    info: { title: 'Workspace CRM REST API', version: '1' },
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'Workspace API key' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN of the server' },
      },
    },
  };
}

/**
 * Fastify's shared-schema references ("Contact#") become OpenAPI component references; references
 * into the published pack schemas are inlined, so the document stands alone.
 */
function rewriteRefs(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(rewriteRefs);
  if (s && typeof s === 'object') {
    const ref = (s as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && /^https?:/.test(ref)) {
      const { $ref: _, ...rest } = s as Record<string, unknown>;
      const target = resolvePackRef(ref);
      if (target === undefined) throw new Error(`OpenAPI: cannot resolve ${ref}`);
      return rewriteRefs({ ...(target as object), ...rest });
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s)) {
      out[k] = k === '$ref' && typeof v === 'string' && !v.startsWith('#/') ? `#/components/schemas/${v.replace(/#$/, '')}` : rewriteRefs(v);
    }
    return out;
  }
  return s;
}
