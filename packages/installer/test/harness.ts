// The real workspace server, in-process on a loopback port over an in-memory PGlite store, with
// a manual clock the installer's sleep advances: rate-limit windows pass without real waiting.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import type { AddressInfo } from 'node:net';
import { canonicalize, normalizeName, type Pack } from '@setup-pack/core';
import { EXTERNAL_NAMES } from '@setup-pack/testkit';
import { buildServer, ManualClock, openStore, type Store } from '@setup-pack/workspace-server';
import { WorkspaceClient, type ClientOptions } from '../src/index.js';
import { fileURLToPath } from 'node:url';
import { main, makeColors, type CommandContext } from 'setup-pack';

export const ADMIN = 'installer-test-admin';
const FIXTURES = new URL('../../../fixtures/', import.meta.url);
export const loadPack = (rel: string): Pack => JSON.parse(readFileSync(new URL(rel, FIXTURES), 'utf8'));

export interface Server {
  base: string;
  clock: ManualClock;
  store: Store;
  close(): Promise<void>;
  admin(method: string, path: string, body?: unknown): Promise<any>;
  /** A workspace with the two members the fixtures name, and a full-access key. */
  workspace(opts?: { rateLimit?: number; members?: string[] }): Promise<{ id: string; key: string }>;
}

let store: Store | null = null;

/** In-memory PGlite by default; real PostgreSQL (a schema of its own per file) when TEST_DATABASE_URL is set, as in CI. */
async function openTestStore(): Promise<Store> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return openStore({ memory: true });
  return openStore({ databaseUrl: url, schema: `inst_${Math.random().toString(36).slice(2, 10)}`, poolSize: 5 });
}

export async function startServer(): Promise<Server> {
  store ??= await openTestStore();
  const clock = new ManualClock('2026-11-21T22:00:00.000Z');
  const app = await buildServer({ store, clock, adminToken: ADMIN });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  let n = 0;
  return {
    base,
    clock,
    store,
    admin,
    async close() {
      await app.close();
      await store?.close();
      store = null;
    },
    async workspace(opts = {}) {
      const slug = `inst-${Date.now().toString(36)}-${++n}-${Math.random().toString(36).slice(2, 6)}`;
      const ws = await admin('POST', '/admin/workspaces', { name: slug, slug, rate_limit_per_minute: opts.rateLimit ?? 100000 });
      for (const [i, name] of (opts.members ?? ['Jordan Lee', 'Avery Brooks']).entries()) {
        await admin('POST', `/admin/workspaces/${ws.id}/members`, { name, email: `member${i}@example.test` });
      }
      const key = await admin('POST', `/admin/workspaces/${ws.id}/api-keys`, { scopes: ['full_access'] });
      return { id: ws.id, key: key.secret };
    },
  };
}

/** A client whose waiting advances the server's clock instead of sleeping. */
export function clientFor(server: Server, key: string, extra: Partial<ClientOptions> = {}, base = server.base): WorkspaceClient {
  return new WorkspaceClient({
    baseUrl: base,
    apiKey: key,
    now: () => server.clock.now().getTime(),
    sleep: async (ms) => server.clock.advance(ms),
    ...extra,
  });
}

/** Counts requests by method through a fetch wrapper (what the server saw, not what the client thinks). */
export function countingFetch() {
  const counts = { GET: 0, POST: 0, PUT: 0, PATCH: 0, DELETE: 0, status429: 0 };
  const f: typeof fetch = async (input, init) => {
    const m = (init?.method ?? 'GET') as keyof typeof counts;
    counts[m]++;
    const res = await fetch(input, init);
    if (res.status === 429) counts.status429++;
    return res;
  };
  return { fetch: f, counts, writes: () => counts.POST + counts.PUT + counts.PATCH + counts.DELETE };
}

/**
 * One server for a test file: started before its tests, closed after them. Returns a getter,
 * since the server exists only once beforeAll has run.
 */
export function useServer(): () => Server {
  let server: Server | undefined;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  return () => {
    if (!server) throw new Error('the test server is not started (call useServer() at the top of the file)');
    return server;
  };
}

export const FIXTURES_DIR = fileURLToPath(FIXTURES);

/** Runs the setup-pack CLI in this process (its real main), capturing what it writes. */
export async function cli(argv: string[], env: Record<string, string>, cwd = FIXTURES_DIR, tty = false) {
  let stdout = '';
  let stderr = '';
  const ctx: CommandContext = {
    cwd,
    env,
    stdout: { write: (t) => void (stdout += t), isTTY: tty },
    stderr: { write: (t) => void (stderr += t), isTTY: tty },
    colors: () => makeColors(false),
  };
  const code = await main(argv, ctx);
  return { code, stdout, stderr };
}

/** A snapshot (export --all) with what differs between workspaces set aside: packId, name, media addresses. */
export function upToWorkspaceIds(pack: Pack): Pack {
  const text = JSON.stringify({ ...pack, packId: 'fresh', name: 'snapshot' }).replace(
    /https:\/\/media\.workspace\.example\/[^/"]+\/[^/"]+\//g,
    'https://media.workspace.example/ws/media/',
  );
  return canonicalize(JSON.parse(text));
}

/**
 * A proxy in front of the server at `target` for tests of a workspace that misbehaves part-way: each
 * request is handed to `intercept` with its body first (and the body), which answers it itself (returns true) or
 * lets it through (false), at once or when the promise it returns settles (a request held back); what goes through is forwarded with its key and content type, and the
 * answer comes back with its status and the rate-limit headers, its body as `answer` gives it back
 * (another server's words or fields).
 */
export async function proxyTo(
  target: string,
  intercept: (req: IncomingMessage, res: ServerResponse, body: Buffer) => boolean | Promise<boolean>,
  answer: (status: number, text: string) => string = (_, text) => text,
) {
  const proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (await intercept(req, res, Buffer.concat(chunks))) return;
    const headers: Record<string, string> = {};
    for (const h of ['authorization', 'content-type']) if (req.headers[h]) headers[h] = String(req.headers[h]);
    const up = await fetch(`${target}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    const out: Record<string, string> = {};
    for (const h of ['content-type', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']) {
      const v = up.headers.get(h);
      if (v !== null) out[h] = v;
    }
    res.writeHead(up.status, out);
    res.end(answer(up.status, await up.text()));
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  return {
    base: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        proxy.closeAllConnections();
        proxy.close(() => r());
      }),
  };
}

const LOOKUP_COLLECTION: Record<string, string> = {
  team: 'teams',
  pond: 'ponds',
  website: 'websites',
  form: 'forms',
  appointment_type: 'appointment_types',
  appointment_outcome: 'appointment_outcomes',
  program: 'programs',
  relationship_label: 'relationship_labels',
};

/** For the property suites: a fresh workspace holding every object the generator may refer to by name (EXTERNAL_NAMES). */
export async function fuzzWorkspace(server: Server): Promise<WorkspaceClient> {
  return (await fuzzWorkspaceKey(server)).c;
}

/** fuzzWorkspace, with its key (for a second client of the same workspace). */
export async function fuzzWorkspaceKey(server: Server): Promise<{ c: WorkspaceClient; key: string }> {
  const ws = await server.workspace({ members: [...EXTERNAL_NAMES.user!] });
  for (const [type, names] of Object.entries(EXTERNAL_NAMES)) {
    if (type === 'user') continue;
    for (const name of names!) await server.admin('POST', `/admin/workspaces/${ws.id}/lookups/${LOOKUP_COLLECTION[type]}`, { name });
  }
  return { c: clientFor(server, ws.key), key: ws.key };
}

/** Names a new workspace already holds (its default stages, sources, pipeline), normalised: a pack item of such a name is adopted. */
export async function defaultNames(c: WorkspaceClient): Promise<Set<string>> {
  const names = new Set<string>();
  for (const path of [
    '/v1/tags',
    '/v1/contact-stages',
    '/v1/lead-sources',
    '/v1/custom-fields',
    '/v1/pipeline-details',
    '/v1/message-templates',
    '/v1/smart-lists',
    '/v1/automations',
  ]) {
    for (const o of await c.listAll<{ name: string }>(path)) names.add(normalizeName(o.name));
  }
  return names;
}

/** Every item name of a pack, and the names its created references give. */
export function namesOf(pack: Pack): string[] {
  const out = [...(pack.resources ?? []), ...(pack.messageTemplates ?? []), ...(pack.smartLists ?? []), ...(pack.pipelines ?? [])].map(
    (i) => i.name,
  );
  for (const a of pack.automations ?? []) {
    out.push(a.document.name);
    for (const r of a.document.references ?? []) if (r.name && r.id.startsWith('new-')) out.push(r.name);
  }
  return out;
}

/** Collections whose objects an install creates by name: where a duplicated object would show. */
const NAMED_COLLECTIONS = [
  '/v1/tags',
  '/v1/contact-stages',
  '/v1/lead-sources',
  '/v1/custom-fields',
  '/v1/pipelines',
  '/v1/message-templates',
  '/v1/media',
  '/v1/smart-lists',
  '/v1/automations',
];

/** Every name (trimmed, case-insensitive; a media file's name) a collection of the workspace holds more than once, as `path: name`. */
export async function duplicateNames(c: WorkspaceClient): Promise<string[]> {
  const out: string[] = [];
  for (const p of NAMED_COLLECTIONS) {
    const names = (await c.listAll<{ name?: string; file_name?: string }>(p)).map((o) => normalizeName(o.name ?? o.file_name ?? ''));
    for (const n of new Set(names)) if (names.filter((m) => m === n).length > 1) out.push(`${p}: ${n}`);
  }
  return out;
}
