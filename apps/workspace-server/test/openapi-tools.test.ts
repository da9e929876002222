// The OpenAPI document the server serves, read by the tools its users run: redocly lint (the
// committed redocly.yaml: the recommended ruleset, every rule turned off says why) and
// openapi-typescript, whose generated client must compile against what the server requires and
// answers (required fields required), checked with the TypeScript compiler; and a JSON Schema
// 2020-12 validator (Ajv), which must take the document as one and compile every schema in it.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, lintFromString } from '@redocly/openapi-core';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTION_PATH, LIST_PATH, type WorkspaceCollection } from '@setup-pack/core';
import { expectError, startServer, type TestServer } from './harness.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
let server: TestServer;
let doc: string;
beforeAll(async () => {
  server = await startServer('pglite');
  doc = JSON.stringify((await server.anon.get('/v1/openapi.json')).body);
});
afterAll(() => server.close());

describe("the OpenAPI document, as its users' tools read it", () => {
  it("serves every collection of core's contract where the installer reads it, and writes where it writes", () => {
    const paths = (JSON.parse(doc) as { paths: Record<string, Record<string, unknown>> }).paths;
    for (const c of Object.keys(COLLECTION_PATH) as WorkspaceCollection[]) {
      expect(paths[LIST_PATH[c] ?? COLLECTION_PATH[c]]?.get, `GET ${LIST_PATH[c] ?? COLLECTION_PATH[c]}`).toBeDefined();
    }
    for (const c of [
      'tags',
      'contact_stages',
      'lead_sources',
      'custom_fields',
      'pipelines',
      'message_templates',
      'media',
      'smart_lists',
      'automations',
    ] as const) {
      expect(paths[COLLECTION_PATH[c]]?.post, `POST ${COLLECTION_PATH[c]}`).toBeDefined();
      expect(paths[`${COLLECTION_PATH[c]}/{id}`]?.delete, `DELETE ${COLLECTION_PATH[c]}/{id}`).toBeDefined();
    }
    expect(paths[COLLECTION_PATH.brand]?.put).toBeDefined();
  });

  it('redocly lint: 0 errors and 0 warnings under the committed config', async () => {
    const config = await loadConfig({ configPath: join(ROOT, 'redocly.yaml') });
    const problems = await lintFromString({ source: doc, absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? ''}`)).toEqual([]);
  });

  it('openapi-typescript: a client using the generated types compiles, with required fields required', async () => {
    const types = astToString(await openapiTS(JSON.parse(doc)));
    const dir = mkdtempSync(join(tmpdir(), 'openapi-client-'));
    writeFileSync(join(dir, 'api.ts'), types);
    // Reading a required field as a plain value compiles only when the field is not optional.
    writeFileSync(
      join(dir, 'client.ts'),
      `
import type { components, paths } from './api';
type S = components['schemas'];
export const contact = (c: S['Contact']): [string, string | null, unknown[]] => [c.id, c.first_name, c.emails];
export const deal = (d: S['Deal']): [string, string, string] => [d.id, d.pipeline.id, d.stage.type];
export const activity = (a: S['Activity']): [string, string] => [a.id, a.type];
export const transaction = (t: S['Transaction']): [string, string] => [t.id, t.status];
export const error = (e: S['Error']): string => e.error.message;
type ListContacts = paths['/v1/contacts']['get']['responses'][200]['content']['application/json'];
export const page = (p: ListContacts): [boolean, S['Contact'][]] => [p.has_more, p.data];
`,
    );
    // The same file must fail where a field is optional: the check can fail.
    writeFileSync(
      join(dir, 'optional.ts'),
      `
import type { components } from './api';
export const note = (c: components['schemas']['Contact']): { x: number } => ({ x: c.id });
`,
    );
    const compile = (file: string) => {
      const program = ts.createProgram([join(dir, file)], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        skipLibCheck: true,
      });
      return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    };
    expect(compile('client.ts')).toEqual([]);
    expect(compile('optional.ts').join('\n')).toMatch(/Type 'string' is not assignable to type 'number'/);
  });

  it('Ajv (JSON Schema 2020-12) takes the document whole and compiles every request and response schema in it', () => {
    const parsed = JSON.parse(doc) as {
      components: { schemas: Record<string, unknown> };
      paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, { content?: unknown }> }>>;
    };
    const id = 'https://workspace.test/openapi.json';
    const ajv = addFormats(new Ajv2020({ strict: false }));
    // Adding it fails when two inlined copies of one pack schema both claim its $id.
    ajv.addSchema({ ...parsed, $id: id });
    const at = (...tokens: string[]) => `${id}#/${tokens.map((t) => t.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
    const refs = Object.keys(parsed.components.schemas).map((name) => at('components', 'schemas', name));
    for (const [path, ops] of Object.entries(parsed.paths))
      for (const [method, op] of Object.entries(ops)) {
        if (op.requestBody) refs.push(at('paths', path, method, 'requestBody', 'content', 'application/json', 'schema'));
        for (const [code, r] of Object.entries(op.responses))
          if (r.content) refs.push(at('paths', path, method, 'responses', code, 'content', 'application/json', 'schema'));
      }
    for (const $ref of refs) expect(() => ajv.compile({ $ref }), $ref).not.toThrow();
    expect(refs.length).toBeGreaterThan(100);
  });
});

describe('catalog objects in the OpenAPI document', () => {
  type Op = { responses: Record<string, { content?: { 'application/json': { schema: Record<string, any> } } }> };
  const parsed = () => JSON.parse(doc) as { paths: Record<string, Record<string, Op>> };
  const schemaOf = (path: string, method: string, code: string) =>
    parsed().paths[path][method].responses[code].content!['application/json'].schema;
  /** The object schema of a response: a list's item, or the response itself. */
  const objectOf = (path: string, method: string, code: string) => {
    const sch = schemaOf(path, method, code);
    return sch.properties?.data?.items ?? sch;
  };
  const always = ['id', 'name', 'created_at', 'updated_at'];
  const routes: [string, string, string][] = [
    ['/v1/message-templates', 'get', '200'],
    ['/v1/message-templates/{id}', 'get', '200'],
    ['/v1/message-templates', 'post', '201'],
    ['/v1/message-templates/{id}', 'patch', '200'],
    ['/v1/smart-lists', 'get', '200'],
    ['/v1/smart-lists/{id}', 'get', '200'],
    ['/v1/smart-lists', 'post', '201'],
    ['/v1/automations', 'get', '200'],
    ['/v1/automations/{id}', 'get', '200'],
    ['/v1/automations', 'post', '201'],
    ['/v1/automations/{id}/activate', 'post', '200'],
    ['/v1/media', 'get', '200'],
    ['/v1/media/{id}/content', 'get', '200'],
    ['/v1/media', 'post', '201'],
    ['/v1/media/{id}', 'put', '200'],
    ['/v1/custom-fields', 'get', '200'],
    ['/v1/custom-fields', 'post', '201'],
  ];

  it('requires id, name, created_at and updated_at (what every stored catalog object has), and nothing from its data', () => {
    for (const [path, method, code] of routes) expect(objectOf(path, method, code).required, `${method} ${path}`).toEqual(always);
    // The brand before one is set was never stored: no created_at.
    expect(objectOf('/v1/brand', 'get', '200').required).toEqual(['id', 'name', 'updated_at']);
  });

  it('real responses conform, including an object whose stored data lacks its fields', async () => {
    const ajv = addFormats(new Ajv2020({ strict: false }));
    const conforms = (path: string, method: string, code: string, body: unknown) => {
      const validate = ajv.compile(schemaOf(path, method, code));
      expect(validate(body) ? [] : validate.errors, `${method} ${path}`).toEqual([]);
    };
    const W = await server.workspace();
    const pack = JSON.parse(readFileSync(join(ROOT, 'fixtures/releases/buyer-lead-1.0.0.json'), 'utf8'));
    const { key: _k, ...list } = pack.smartLists[0];
    const { key: _t, ...template } = pack.messageTemplates[0];
    const made = {
      '/v1/message-templates': await W.client.post('/v1/message-templates', template),
      '/v1/smart-lists': await W.client.post('/v1/smart-lists', list),
      '/v1/automations': await W.client.post('/v1/automations', { document: pack.automations[2].document }),
      '/v1/media': await W.client.post('/v1/media', {
        file_name: 'logo.png',
        mime_type: 'image/png',
        data: Buffer.from('png bytes').toString('base64'),
      }),
      '/v1/custom-fields': await W.client.post('/v1/custom-fields', { name: 'Budget', data: { type: 'number' } }),
    };
    for (const [path, r] of Object.entries(made)) {
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      conforms(path, 'post', '201', r.body);
      conforms(path, 'get', '200', (await W.client.get(path)).body);
      if (path === '/v1/media')
        conforms('/v1/media/{id}/content', 'get', '200', (await W.client.get(`/v1/media/${r.body.id}/content`)).body);
      else if (path !== '/v1/custom-fields') conforms(`${path}/{id}`, 'get', '200', (await W.client.get(`${path}/${r.body.id}`)).body);
    }
    conforms(
      '/v1/automations/{id}/activate',
      'post',
      '200',
      (await W.client.post(`/v1/automations/${made['/v1/automations'].body.id}/activate`)).body,
    );
    conforms('/v1/brand', 'get', '200', (await W.client.get('/v1/brand')).body);
    // A template whose stored data has none of its fields (written before they existed): served, not a 500.
    await server.store.db.query(`UPDATE catalog_objects SET data = '{}'::jsonb WHERE id = $1`, [made['/v1/message-templates'].body.id]);
    const bare = await W.client.get(`/v1/message-templates/${made['/v1/message-templates'].body.id}`);
    expect(bare.status, JSON.stringify(bare.body)).toBe(200);
    expect(Object.keys(bare.body).sort()).toEqual([...always].sort());
    conforms('/v1/message-templates/{id}', 'get', '200', bare.body);
    expectError(await W.client.get('/v1/message-templates/tpl_missing'), 404, 'invalid_request_error');
  });
});
