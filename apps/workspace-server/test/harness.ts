import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { ManualClock } from '../src/shared/clock.js';
import { openStore, type Store } from '../src/open-store.js';
import { buildServer, type ServerOptions } from '../src/server.js';
import type { WebhookOptions } from '../src/modules/webhooks/index.js';

export type StoreKind = 'pglite' | 'postgres';
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
export const ADMIN_TOKEN = 'test-admin-token';

/** A fresh schema per call, so test files sharing one PostgreSQL database never see each other. */
export function uniqueSchema(prefix = 't'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** TEST_DATABASE_URL with `schema` first on its search path: the DATABASE_URL of a process that is to use that schema. */
export function schemaUrl(schema: string): string {
  if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set');
  return `${TEST_DATABASE_URL}${TEST_DATABASE_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema},public`)}`;
}

/** A new schema on TEST_DATABASE_URL, created now: its name, and the DATABASE_URL of a process that uses it. */
export async function createSchema(prefix: string, schema = uniqueSchema(prefix)): Promise<{ schema: string; url: string }> {
  const db = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await db.connect();
  try {
    await db.query(`CREATE SCHEMA "${schema}"`);
  } finally {
    await db.end();
  }
  return { schema, url: schemaUrl(schema) };
}

export async function openTestStore(kind: StoreKind, schema = uniqueSchema()): Promise<Store> {
  if (kind === 'postgres') {
    if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set');
    return openStore({ databaseUrl: TEST_DATABASE_URL, schema, poolSize: 5 });
  }
  return openStore({ memory: true });
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

export class Client {
  constructor(
    readonly base: string,
    readonly key?: string,
  ) {}

  withKey(key: string | undefined): Client {
    return new Client(this.base, key);
  }

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const h: Record<string, string> = { ...headers };
    if (this.key && !('authorization' in h)) h.authorization = `Bearer ${this.key}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      if (!('content-type' in h)) h['content-type'] = 'application/json';
    }
    const res = await fetch(`${this.base}${path}`, { method, headers: h, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // non-JSON bodies are returned as text so a test can assert on them
    }
    return { status: res.status, headers: res.headers, body: parsed };
  }

  /**
   * A request as sent, over node:http: any method with any body bytes (fetch sends no body with a
   * GET or HEAD) and exactly the headers given besides the key (no Content-Type added).
   */
  raw(method: string, path: string, body: string | Buffer | undefined, headers: Record<string, string> = {}): Promise<Reply> {
    const h: Record<string, string> = { ...headers };
    if (this.key && !('authorization' in h)) h.authorization = `Bearer ${this.key}`;
    if (body !== undefined) h['content-length'] = String(Buffer.byteLength(body));
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${this.base}${path}`, { method, headers: h }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            // as call(): non-JSON answers stay text
          }
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
          resolve({ status: res.statusCode ?? 0, headers, body: parsed });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  get = (path: string, headers?: Record<string, string>) => this.call('GET', path, undefined, headers);
  post = (path: string, body?: unknown, headers?: Record<string, string>) => this.call('POST', path, body, headers);
  patch = (path: string, body?: unknown, headers?: Record<string, string>) => this.call('PATCH', path, body, headers);
  put = (path: string, body?: unknown, headers?: Record<string, string>) => this.call('PUT', path, body, headers);
  del = (path: string, headers?: Record<string, string>) => this.call('DELETE', path, undefined, headers);
}

export interface TestServer {
  app: FastifyInstance;
  store: Store;
  clock: ManualClock;
  base: string;
  admin: Client;
  anon: Client;
  /** Creates a workspace (high rate limit unless given) and a key with the scopes. */
  workspace(opts?: {
    scopes?: string[];
    rate_limit_per_minute?: number;
    plan?: string;
  }): Promise<{ id: string; key: string; client: Client; keyId: string }>;
  key(workspaceId: string, scopes: string[], extra?: Record<string, unknown>): Promise<{ id: string; secret: string; client: Client }>;
  close(): Promise<void>;
}

/** The real server on an ephemeral loopback port, over a real store. */
export async function startServer(
  kind: StoreKind,
  opts: { store?: Store; clock?: ManualClock; webhooks?: WebhookOptions; server?: Partial<ServerOptions> } = {},
): Promise<TestServer> {
  const store = opts.store ?? (await openTestStore(kind));
  const clock = opts.clock ?? new ManualClock('2026-03-02T10:00:00.000Z');
  const app = await buildServer({ store, clock, adminToken: ADMIN_TOKEN, webhooks: opts.webhooks, ...opts.server });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const admin = new Client(base, ADMIN_TOKEN);
  const anon = new Client(base);
  let n = 0;
  const server: TestServer = {
    app,
    store,
    clock,
    base,
    admin,
    anon,
    async key(workspaceId, scopes, extra = {}) {
      const r = await admin.post(`/admin/workspaces/${workspaceId}/api-keys`, { scopes, ...extra });
      if (r.status !== 201) throw new Error(`key creation failed: ${r.status} ${JSON.stringify(r.body)}`);
      return { id: r.body.id, secret: r.body.secret, client: new Client(base, r.body.secret) };
    },
    async workspace(o = {}) {
      const slug = `ws-${Date.now().toString(36)}-${++n}-${randomBytes(3).toString('hex')}`;
      const r = await admin.post('/admin/workspaces', {
        name: `Test ${slug}`,
        slug,
        rate_limit_per_minute: o.rate_limit_per_minute ?? 100000,
        ...(o.plan ? { plan: o.plan } : {}),
      });
      if (r.status !== 201) throw new Error(`workspace creation failed: ${r.status} ${JSON.stringify(r.body)}`);
      const k = await server.key(r.body.id, o.scopes ?? ['full_access']);
      return { id: r.body.id, key: k.secret, client: k.client, keyId: k.id };
    },
    async close() {
      await app.close();
      if (!opts.store) await store.close();
    },
  };
  return server;
}

export function expectError(r: Reply, status: number, type: string, param?: string) {
  const ok =
    r.status === status &&
    r.body?.error?.type === type &&
    typeof r.body.error.message === 'string' &&
    (param === undefined || r.body.error.param === param);
  if (!ok) throw new Error(`expected ${status} ${type}${param ? ` param=${param}` : ''}, got ${r.status} ${JSON.stringify(r.body)}`);
}

const bin = fileURLToPath(new URL('../bin/workspace-server.js', import.meta.url));
const distBin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  base: string;
  stdout: () => string;
  exited: Promise<number | null>;
}

/** Starts `workspace-server serve --port 0 ...args` as a real process and waits for its "listening on" line. */
export async function startServerProcess(args: string[], env: Record<string, string>): Promise<ServerProcess> {
  if (!existsSync(distBin)) throw new Error('apps/workspace-server/dist/bin.js is missing: run `npx tsc -b apps/workspace-server` first');
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearInterval(timer);
        resolve(m[1]);
      }
    }, 25);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`server exited with ${code}: ${err}`));
    });
  });
  return { child, base, stdout: () => out, exited };
}

/**
 * Registers beforeAll/afterAll for one server, and on PostgreSQL a second one on the same schema
 * (two processes sharing one database, as `--workers` or a load balancer runs them).
 */
export function serversSharingAStore(kind: StoreKind, prefix: string): { readonly s: TestServer; readonly other: TestServer | undefined } {
  let s: TestServer;
  let other: TestServer | undefined;
  beforeAll(async () => {
    const schema = uniqueSchema(prefix);
    s = await startServer(kind, kind === 'postgres' ? { store: await openTestStore(kind, schema) } : {});
    if (kind === 'postgres') other = await startServer(kind, { store: await openTestStore(kind, schema) });
  });
  afterAll(async () => {
    await s?.close();
    await other?.close();
    // Stores passed in are the caller's to close.
    if (kind === 'postgres') for (const x of [s, other]) await x?.store.close();
  });
  return {
    get s() {
      return s;
    },
    get other() {
      return other;
    },
  };
}
