// The server fuzzed from its own OpenAPI document, as a client generator or an attacker would:
// for every operation, requests built by fast-check from its parameter and body schemas, valid
// ones and hostile mutations (NUL and lone surrogates, huge strings, wrong types, missing and
// unknown fields, duplicate and unknown query parameters, foreign cursors, bad escapes, bad
// content types, bodies that are not JSON). Every answer must be below 500, every error the
// documented envelope with a documented type, every success valid against its documented schema,
// and every refused write (4xx) leaves every table of the store as it was.
// On PGlite always; on PostgreSQL too when TEST_DATABASE_URL is set. FUZZ_RUNS scales the requests
// per operation (docs/testing.md); FUZZ_SEED replays a run.
import fc from 'fast-check';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzConfig } from '@setup-pack/testkit';
import { ADMIN_TOKEN, startServer, TEST_DATABASE_URL, type StoreKind, type TestServer } from './harness.js';

type Schema = Record<string, any>;
const { numRuns, seed, timeoutMs } = fuzzConfig('API from its OpenAPI document', 100);
// Requests per operation: the run count spread over the ~100 operations, at least 8.
const perOp = Math.max(8, Math.ceil(numRuns / 10));

/** Tables a refused request may still change, and why. */
const CHANGED_BY_EVERY_REQUEST: Record<string, string> = {
  rate_limit_windows: 'every authenticated request counts in its window, refused or not',
  webhook_deliveries: 'the delivery worker, on its own time',
  webhook_attempts: 'the delivery worker, on its own time',
  outbox_cursor: "the delivery worker moves it past earlier requests' events, on its own time",
};

const HOSTILE = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  'x'.repeat(70_000),
  '%ED%A0%80',
  '../../etc',
  ' ',
  '',
  '😀',
  'null',
  '-1',
  '1e309',
];
const hostileString = fc.constantFrom(...HOSTILE);

/** An arbitrary of values valid for `schema` (the subset of JSON Schema the document uses). */
function valid(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 5) return fc.constant(null);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alts = schema.anyOf ?? schema.oneOf;
  if (alts) return fc.oneof(...alts.map((s: Schema) => valid(s, depth + 1)));
  const types: string[] = Array.isArray(schema.type)
    ? schema.type
    : schema.type
      ? [schema.type]
      : ['string', 'integer', 'boolean', 'object'];
  return fc.oneof(...types.map((t) => validOfType(t, schema, depth)));
}

function validOfType(type: string, schema: Schema, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 100_000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'string': {
      if (schema.format === 'date-time')
        return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
      if (schema.format === 'date')
        return fc
          .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10));
      if (schema.format === 'email') return fc.emailAddress();
      if (schema.format === 'uri') return fc.webUrl();
      if (schema.format === 'uuid') return fc.uuid();
      if (schema.pattern) {
        try {
          return fc
            .stringMatching(new RegExp(schema.pattern))
            .filter((s) => s.length >= (schema.minLength ?? 0) && s.length <= (schema.maxLength ?? Infinity));
        } catch {
          /* a pattern fast-check cannot read: plain strings */
        }
      }
      return fc.string({
        minLength: schema.minLength ?? 0,
        maxLength: Math.max(schema.minLength ?? 0, Math.min(schema.maxLength ?? 24, 24)),
      });
    }
    case 'array':
      return fc.array(valid(schema.items, depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3)),
      });
    case 'object': {
      const props: Record<string, Schema> = schema.properties ?? {};
      const required: string[] = schema.required ?? [];
      if (!Object.keys(props).length)
        return fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.string({ maxLength: 6 }), fc.integer()), { maxKeys: 2 });
      const rec: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, s] of Object.entries(props)) rec[k] = valid(s, depth + 1);
      return fc.record(rec, { requiredKeys: required.filter((k) => k in props) });
    }
    default:
      return fc.constant(null);
  }
}

/** A mutation of a valid value: a leaf replaced by hostile text or a value of another type, a required field dropped, an unknown one added. */
function mutate(value: unknown): fc.Arbitrary<unknown> {
  const wrong = fc.oneof(hostileString, fc.constantFrom(null, 0, -1, 2 ** 53, true, [], {}, [1, 'a'], { a: 1 }));
  const paths: (string | number)[][] = [];
  const walk = (v: unknown, at: (string | number)[]) => {
    paths.push(at);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...at, i]));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...at, k]);
  };
  walk(value, []);
  return fc
    .tuple(fc.constantFrom(...paths), wrong, fc.constantFrom('replace', 'drop', 'add'), fc.string({ minLength: 1, maxLength: 8 }))
    .map(([path, w, how, extra]) => {
      if (path.length === 0) return how === 'replace' ? w : value;
      const copy = structuredClone(value) as Record<string | number, unknown>;
      let parent: Record<string | number, unknown> = copy;
      for (const p of path.slice(0, -1)) parent = parent[p] as Record<string | number, unknown>;
      const last = path[path.length - 1];
      if (how === 'drop' && !Array.isArray(parent)) delete parent[last];
      else if (how === 'add' && !Array.isArray(parent))
        Object.defineProperty(parent, `unknown_${extra}`, { value: w, enumerable: true, writable: true, configurable: true });
      else parent[last] = w;
      return copy;
    });
}

/** encodeURIComponent, except that a lone surrogate goes out as its WTF-8 bytes (as a sloppy client sends it) instead of throwing. */
function encodePath(s: string): string {
  return s.replace(/[\s\S]/gu, (ch) => {
    const u = ch.charCodeAt(0);
    if (ch.length === 1 && u >= 0xd800 && u <= 0xdfff)
      return [0xe0 | (u >> 12), 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    return encodeURIComponent(ch);
  });
}

interface Operation {
  method: string;
  path: string;
  op: Schema;
}

function operations(doc: Schema): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(item)) out.push({ method: method.toUpperCase(), path, op });
  }
  return out;
}

for (const kind of ['pglite', 'postgres'] as StoreKind[]) {
  const skip = kind === 'postgres' && !TEST_DATABASE_URL ? 'TEST_DATABASE_URL is not set' : '';
  describe.skipIf(skip)(`the API fuzzed from its OpenAPI document on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    let server: TestServer;
    let doc: Schema;
    let key: string;
    let ajv: Ajv2020;
    let tables: string[] = [];
    /**
     * The workspace's data, one digest per table, to show that a refused request wrote nothing.
     * Left out: what every request changes (its rate-limit window) and what the delivery worker
     * writes on its own time; of events, the columns a request gives (not the transaction id, which the database does).
     */
    const snapshot = async (): Promise<Record<string, string>> => {
      const parts = tables.map((t) => {
        const row = t === 'events' ? '(x.id, x.workspace_id, x.type, x.data, x.changed_fields, x.created_at)' : 'x';
        return `SELECT '${t}' AS t, count(*)::text || ' ' || md5(coalesce(string_agg(${row}::text, '|' ORDER BY ${row}::text), '')) AS h FROM "${t}" x`;
      });
      const { rows } = await server.store.db.query<{ t: string; h: string }>(parts.join(' UNION ALL '));
      return Object.fromEntries(rows.map((r) => [r.t, r.h]));
    };
    /** Ids the server handed out, for path parameters that name a real object now and then. */
    const ids: string[] = [];
    const cursors: string[] = [];
    beforeAll(async () => {
      server = await startServer(kind);
      doc = (await server.anon.get('/v1/openapi.json')).body;
      const ws = await server.workspace();
      key = ws.key;
      // A few real objects, so some requests reach the routes' success paths.
      for (const [p, body] of [
        ['/v1/contacts', { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' }],
        ['/v1/tags', { name: 'Hot' }],
        ['/v1/message-templates', { name: 'Hi', channel: 'sms', body: 'Hello' }],
      ] as const) {
        const r = await ws.client.post(p, body);
        if (r.body?.id) ids.push(r.body.id);
      }
      ids.push(ws.id);
      const page = await ws.client.get('/v1/contacts?limit=1');
      if (page.body?.next_cursor) cursors.push(page.body.next_cursor);
      ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
      addFormats(ajv);
      // The document stands alone: pack subschemas are inlined (without their $id).
      ajv.addSchema(doc, 'openapi');
      const { rows } = await server.store.db.query<{ tablename: string }>(
        'SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename',
      );
      tables = rows.map((r) => r.tablename).filter((t) => !(t in CHANGED_BY_EVERY_REQUEST));
      expect(tables).toEqual(expect.arrayContaining(['contacts', 'events', 'catalog_objects', 'install_ledgers']));
    });
    afterAll(() => server?.close());

    it(
      `answers every operation below 500, in the envelope or in its documented shape (${perOp} requests each)`,
      async () => {
        const ops = operations(doc);
        expect(ops.length).toBeGreaterThan(80);
        const failures: string[] = [];
        const errorSchema = ajv.compile({ $ref: 'openapi#/components/schemas/Error' });
        const answered2xx = new Set<string>();
        let refusedWrites = 0;
        for (const { method, path, op } of ops) {
          const params: Schema[] = op.parameters ?? [];
          const bodySchema: Schema | undefined = op.requestBody?.content?.['application/json']?.schema;
          const pathArb = fc.record(
            Object.fromEntries(
              params
                .filter((p) => p.in === 'path')
                .map((p) => [
                  p.name,
                  fc.oneof(
                    { weight: 3, arbitrary: fc.constantFrom(...ids) },
                    { weight: 2, arbitrary: valid(p.schema) },
                    { weight: 1, arbitrary: hostileString },
                  ),
                ]),
            ),
          );
          const queryArb = fc.tuple(
            fc.record(
              Object.fromEntries(
                params
                  .filter((p) => p.in === 'query')
                  .map((p) => [
                    p.name,
                    fc.oneof(
                      { weight: 4, arbitrary: valid(p.schema) },
                      { weight: 1, arbitrary: hostileString },
                      { weight: 1, arbitrary: fc.constantFrom(...(p.name === 'cursor' && cursors.length ? cursors : ['x'])) },
                    ),
                  ]),
              ),
              { requiredKeys: [] },
            ),
            fc.constantFrom('', '', '', '', '', '', 'unknown_param=1', 'unknown_param=1', 'limit=1&limit=2', 'cursor=eyJ4IjoxfQ'),
          );
          const bodyArb: fc.Arbitrary<{ text?: string; type?: string }> = bodySchema
            ? fc.oneof(
                { weight: 4, arbitrary: valid(bodySchema).map((b) => ({ text: JSON.stringify(b) })) },
                {
                  weight: 4,
                  arbitrary: valid(bodySchema)
                    .chain(mutate)
                    .map((b) => ({ text: JSON.stringify(b) })),
                },
                {
                  weight: 1,
                  arbitrary: fc.constantFrom(
                    { text: '{"a":', type: 'application/json' },
                    { text: 'name=x', type: 'application/x-www-form-urlencoded' },
                    { text: 'hi', type: 'text/plain' },
                    { text: '', type: 'application/json' },
                    { text: '[]' },
                    { text: '"x"' },
                  ),
                },
              )
            : fc.constant({});
          await fc.assert(
            fc.asyncProperty(pathArb, queryArb, bodyArb, async (pathParams, [query, extraQuery], body) => {
              let url = path.replace(/\{([^}]+)\}/g, (_, name) => encodePath(String((pathParams as Record<string, unknown>)[name] ?? 'x')));
              const qs = new URLSearchParams();
              for (const [k, v] of Object.entries(query as Record<string, unknown>))
                if (v !== undefined) qs.append(k, typeof v === 'string' ? v : JSON.stringify(v));
              const q = [qs.toString(), extraQuery].filter(Boolean).join('&');
              if (q) url += `?${q}`;
              const token = path.startsWith('/admin') ? ADMIN_TOKEN : key;
              const headers: Record<string, string> = { authorization: `Bearer ${token}` };
              if (body.text !== undefined) headers['content-type'] = body.type ?? 'application/json';
              const before = method === 'GET' ? undefined : await snapshot();
              const res = await fetch(`${server.base}${url}`, {
                method,
                headers,
                body: method === 'GET' || method === 'DELETE' ? undefined : body.text,
              });
              const text = await res.text();
              const where = `${method} ${url.slice(0, 200)} ${body.text ? body.text.slice(0, 200) : ''}`;
              if (res.status >= 500) return void failures.push(`${res.status} ${where}: ${text.slice(0, 200)}`);
              if (before && res.status >= 400) {
                // Refused: nothing of it may be left behind, in any table.
                const after = await snapshot();
                const changed = tables.filter((t) => before[t] !== after[t]);
                if (changed.length) failures.push(`${res.status} but wrote to ${changed.join(', ')}: ${where}: ${text.slice(0, 200)}`);
                refusedWrites++;
              }
              const json = (() => {
                try {
                  return text ? JSON.parse(text) : undefined;
                } catch {
                  return Symbol.for('not json');
                }
              })();
              if (res.status >= 400) {
                if (!errorSchema(json)) failures.push(`${res.status} outside the envelope: ${where}: ${text.slice(0, 200)}`);
                return;
              }
              answered2xx.add(`${method} ${path}`);
              const documented = op.responses?.[String(res.status)]?.content?.['application/json']?.schema;
              if (!documented) return;
              const pointer = `openapi#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${res.status}/content/application~1json/schema`;
              const check = ajv.getSchema(pointer) ?? ajv.compile({ $ref: pointer });
              if (!check(json)) failures.push(`${res.status} not as documented: ${where}: ${ajv.errorsText(check.errors)}`);
            }),
            { numRuns: perOp, seed },
          );
          if (failures.length > 20) break;
        }
        expect(failures.slice(0, 20)).toEqual([]);
        // The success paths were reached, not only refusals: operations that answered 2xx at least once.
        console.log(`api fuzz: ${answered2xx.size} of ${ops.length} operations answered 2xx at least once`);
        expect(answered2xx.size).toBeGreaterThanOrEqual(10);
        // The no-partial-write check ran: refused writes were compared before and after.
        expect(refusedWrites).toBeGreaterThan(ops.length);
      },
      timeoutMs(300),
    );
  });
}
