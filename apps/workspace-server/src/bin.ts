import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { systemClock } from './shared/clock.js';
import type { Db, Queryable } from './db/db.js';
import { primaryMetrics, workerMetrics } from './app/cluster-metrics.js';
import { openStore, type Store } from './open-store.js';
import type { FastifyInstance } from 'fastify';
import { seedDemo } from './seed.js';
import { contactTextCache, type WrittenText } from './modules/contacts/cache.js';
import { warmContactPages } from './modules/contacts/list.js';
import { workspacesToWarm } from './modules/workspaces/store.js';
import { DEFAULT_CONCURRENCY, DEFAULT_PER_ENDPOINT } from './modules/webhooks/store.js';
import { FANOUT_GAP_MS, type WebhookWorker } from './modules/webhooks/worker.js';
import { buildServer, bundledEditorDir, corsOrigin, editorRoot } from './server.js';

const usage = `workspace-server — the Workspace CRM REST API

Usage:
  workspace-server serve [--port N] [--host H] [--memory] [--data-dir D] [--seed demo] [--allow-insecure-webhooks] [--retention-days N] [--editor DIR | --no-editor] [--cors-origin ORIGIN ...] [--workers N] [--pool-size N] [--contact-cache-mb N] [--no-batching] [--no-prepared-statements] [--no-metrics] [--webhook-concurrency N] [--webhook-per-endpoint N]
  workspace-server create-workspace --name NAME --slug SLUG [--plan standard|lite] [--rate-limit N]
  workspace-server create-key --workspace WS_ID --scopes s1,s2 [--name NAME] [--expires-at RFC3339] [--member MEMBER_ID]
  workspace-server revoke-key KEY_ID
  workspace-server add-member --workspace WS_ID --name NAME --email EMAIL

Environment:
  PORT (default 8787), HOST (default 127.0.0.1), DATA_DIR (default .data/), DATABASE_URL (use PostgreSQL),
  ADMIN_TOKEN (guards /admin; serve generates one when unset). --allow-insecure-webhooks lets webhooks go to
  http:// and loopback receivers (local development only); WEBHOOK_TIMEOUT_MS shortens the 10 s acknowledgement
  timeout (tests). --webhook-concurrency N (WEBHOOK_CONCURRENCY, default ${DEFAULT_CONCURRENCY}) caps the webhook attempts each
  process has in flight; --webhook-per-endpoint N (WEBHOOK_PER_ENDPOINT, default ${DEFAULT_PER_ENDPOINT}) caps one endpoint's,
  counted in the database across every process (give all processes the same value), so a slow receiver
  cannot take every slot. --retention-days N (RETENTION_DAYS, default 30) keeps events and finished webhook
  deliveries that long (pruned hourly); 0 keeps them for ever. The installed package serves the editor
  it ships under /editor/, and a checkout the editor's build once made (npm run build -w apps/editor
  writes apps/editor/dist); --editor DIR serves another static build and --no-editor none. --cors-origin ORIGIN (repeatable; CORS_ORIGINS,
  comma-separated) lets an editor served from that origin call the API with a key (never "*").
  --workers N (WORKERS, default 1) runs N server processes on one port (node:cluster), PostgreSQL only:
  rate limits, idempotency and webhook claims live in the database, so they hold across them.
  --pool-size N (DATABASE_POOL_SIZE) sets each process's PostgreSQL connections (default two per core,
  at least 4). --contact-cache-mb N (CONTACT_CACHE_MB, default 32) keeps up to N MB of contacts' JSON text
  per process for GET /v1/contacts, each entry used only at the row version it was written at, and half
  as much again of list pages, each sent again only while no contact of its workspace was written; 0 turns
  both off. Before listening, serve reads the first pages of the workspaces most recently active into
  it (at most 2 s). When statements queue for the pool, first pages of GET /v1/contacts and POST /v1/contacts that
  wait are sent to PostgreSQL several in one statement, each answered as alone, and on the embedded store those
  that arrive together are too; --no-batching sends each on its own. --no-prepared-statements (or
  prepared_statements=false in DATABASE_URL) sends every statement unnamed, for PgBouncer in transaction
  mode. /metrics is read with ADMIN_TOKEN or METRICS_TOKEN; --no-metrics counts nothing and has no
  /metrics. The admin subcommands call
  WORKSPACE_SERVER_URL (default http://127.0.0.1:$PORT) with ADMIN_TOKEN, or --url / --admin-token.
`;

/** How long a starting server may spend warming its contact text cache, and for how many workspaces at most. */
const WARM_MS = 2_000;
const WARM_WORKSPACES = 10_000;

const COMMANDS = ['serve', 'create-workspace', 'create-key', 'revoke-key', 'add-member'];

/** One subcommand's usage line, with the environment it reads. */
function commandHelp(command: string): string {
  const line = usage.split('\n').find((l) => l.startsWith(`  workspace-server ${command} `) || l === `  workspace-server ${command}`);
  return `Usage:\n${line}\n\n${usage.slice(usage.indexOf('Environment:'))}`;
}

export async function main(argv: string[]): Promise<number | undefined> {
  const [command, ...rest] = argv;
  if (command && COMMANDS.includes(command) && (rest.includes('--help') || rest.includes('-h'))) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  try {
    switch (command) {
      case 'serve':
        return await serve(rest);
      case 'create-workspace':
      case 'create-key':
      case 'revoke-key':
      case 'add-member':
        return await adminCommand(command, rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(usage);
        return command === undefined ? 2 : 0;
      default:
        process.stderr.write(`Unknown command: ${command}\n\n${usage}`);
        return 2;
    }
  } catch (e) {
    const err = e as Error & { code?: string };
    // parseArgs' own refusals (an unknown option, a missing value) are usage errors.
    if (err.code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`workspace-server ${command}: ${err.message}; run 'workspace-server ${command} --help'\n`);
      return 2;
    }
    process.stderr.write(`${err.message}\n`);
    return 1;
  }
}

/** A connection string as it may be printed: its password replaced by ***. */
function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the DATABASE_URL given';
  }
}

/**
 * A whole number of at least `min`, read from `name` (a flag or an environment variable); undefined
 * when not given. A refusal says what it expects: `expected`, else "a whole number of at least min".
 */
function wholeNumber(
  name: string,
  text: string | undefined,
  min: number,
  expected = `a whole number of at least ${min}`,
): number | undefined {
  if (text === undefined || text === '') return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min) throw new Error(`${name} expects ${expected}, got "${text}"`);
  return Number(text);
}

/** `--flag`'s whole number or, when the flag is not given, the environment variable `env`'s. */
function countOption(values: Record<string, unknown>, flag: string, env: string, min: number, expected?: string): number | undefined {
  const given = values[flag] as string | undefined;
  return given !== undefined ? wholeNumber(`--${flag}`, given, min, expected) : wholeNumber(env, process.env[env], min, expected);
}

/** What `serve` was asked for, read and checked before anything starts. */
type ServeSettings = ReturnType<typeof serveSettings>;

function serveSettings(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      memory: { type: 'boolean', default: false },
      'data-dir': { type: 'string' },
      seed: { type: 'string' },
      'log-requests': { type: 'boolean', default: false },
      'allow-insecure-webhooks': { type: 'boolean', default: false },
      'retention-days': { type: 'string' },
      editor: { type: 'string' },
      'no-editor': { type: 'boolean', default: false },
      'cors-origin': { type: 'string', multiple: true },
      workers: { type: 'string' },
      'pool-size': { type: 'string' },
      'contact-cache-mb': { type: 'string' },
      'no-batching': { type: 'boolean', default: false },
      'no-prepared-statements': { type: 'boolean', default: false },
      'no-metrics': { type: 'boolean', default: false },
      'webhook-concurrency': { type: 'string' },
      'webhook-per-endpoint': { type: 'string' },
    },
  });
  if (values.seed !== undefined && values.seed !== 'demo') throw new Error(`Unknown seed "${values.seed}" (only "demo" exists)`);
  const port = Number(values.port ?? process.env.PORT ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`Invalid port: ${values.port ?? process.env.PORT}`);
  if (values.editor !== undefined && values['no-editor']) throw new Error('--editor DIR and --no-editor contradict each other: give one');
  if (values.editor !== undefined) editorRoot(values.editor); // before anything starts
  const databaseUrl = values.memory ? undefined : process.env.DATABASE_URL || undefined;
  const workers = countOption(values, 'workers', 'WORKERS', 1) ?? 1;
  if (workers > 1 && !databaseUrl) {
    throw new Error('--workers needs PostgreSQL (set DATABASE_URL): the embedded PGlite store belongs to one process');
  }
  const contactCacheMb = countOption(values, 'contact-cache-mb', 'CONTACT_CACHE_MB', 0);
  return {
    port,
    host: values.host ?? process.env.HOST ?? '127.0.0.1',
    seed: values.seed === 'demo',
    logRequests: values['log-requests'],
    // The installed package ships the editor's build: served unless --no-editor or another --editor DIR.
    editorDir: values['no-editor'] ? undefined : (values.editor ?? bundledEditorDir()),
    corsOrigins: [
      ...(values['cors-origin'] ?? []),
      ...(process.env.CORS_ORIGINS ?? '')
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    ].map(corsOrigin),
    workers,
    metrics: !values['no-metrics'],
    store: {
      databaseUrl,
      dataDir: resolve(values['data-dir'] ?? process.env.DATA_DIR ?? '.data/'),
      memory: values.memory,
      poolSize: countOption(values, 'pool-size', 'DATABASE_POOL_SIZE', 1),
      contactCacheChars: contactCacheMb === undefined ? undefined : contactCacheMb * 1024 * 1024,
      batching: !values['no-batching'],
      // Unset: named statements, unless DATABASE_URL says prepared_statements=false.
      preparedStatements: values['no-prepared-statements'] ? false : undefined,
    },
    webhooks: {
      allowInsecure: values['allow-insecure-webhooks'],
      retentionDays: countOption(values, 'retention-days', 'RETENTION_DAYS', 0, 'a whole number of days (0 keeps everything)'),
      concurrency: countOption(values, 'webhook-concurrency', 'WEBHOOK_CONCURRENCY', 1),
      perEndpoint: countOption(values, 'webhook-per-endpoint', 'WEBHOOK_PER_ENDPOINT', 1),
      // Test and tuning settings of the webhook worker, environment only (docs/events.md).
      timeoutMs: wholeNumber('WEBHOOK_TIMEOUT_MS', process.env.WEBHOOK_TIMEOUT_MS, 1),
      leaseMs: wholeNumber('WEBHOOK_LEASE_MS', process.env.WEBHOOK_LEASE_MS, 1),
      pollMs: wholeNumber('WEBHOOK_POLL_MS', process.env.WEBHOOK_POLL_MS, 0),
    },
  };
}

/** The store a setting names, in words for the log (its password left out). */
function storeNameOf(s: ServeSettings['store']): string {
  if (s.databaseUrl) return `PostgreSQL at ${withoutPassword(s.databaseUrl)} (DATABASE_URL)`;
  return s.memory ? 'in-memory PGlite (discarded on exit)' : `PGlite at ${s.dataDir}`;
}

/** The operator's lines (a database gone and back, stalled deliveries), said whatever the log level. */
const notice = (m: string) => process.stderr.write(`${new Date().toISOString()} workspace-server: ${m}\n`);

async function serve(args: string[]): Promise<number | undefined> {
  const settings = serveSettings(args);
  let adminToken = process.env.ADMIN_TOKEN;
  if (!adminToken) {
    adminToken = `adm_${randomBytes(16).toString('hex')}`;
    process.stderr.write(`ADMIN_TOKEN not set; generated one for this run: ${adminToken}\n`);
  }
  const { host, port, workers } = settings;
  if (workers > 1 && cluster.isPrimary)
    return primary(workers, adminToken, { ...settings.store, databaseUrl: settings.store.databaseUrl!, seed: settings.seed, host, port });
  // Listen for SIGINT/SIGTERM before anything starts: a signal that arrived between printing the
  // address and subscribing would otherwise kill the process without closing the store.
  const stopRequested = new Promise<void>((resolveStop) => {
    process.once('SIGINT', () => resolveStop());
    process.once('SIGTERM', () => resolveStop());
  });
  const storeName = storeNameOf(settings.store);
  let store: Awaited<ReturnType<typeof openStore>>;
  try {
    store = await openStore(settings.store);
  } catch (e) {
    // The driver's own words ("connect ECONNREFUSED 127.0.0.1:5433", "password authentication
    // failed") say what failed but not where: the store is named, its password left out.
    throw new Error(`cannot open the store, ${storeName}: ${(e as Error).message}`, { cause: e });
  }
  const { app, warmed } = await serverOf(settings, store, adminToken);
  const actualPort = await start(app, store, settings, storeName);
  warmed();
  // Each worker warmed its own cache; from now on the texts one writes are the others' too.
  if (cluster.isWorker) shareContactTexts(store.db);
  if (cluster.isWorker) shareFanOut(app.webhooks);
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`;
  if (cluster.isWorker) {
    // The primary says where the workers listen, once all of them do (and seeded before forking).
    process.send!({ listening: actualPort });
  } else {
    process.stdout.write(`workspace-server listening on ${baseUrl} (store: ${storeName})\n`);
    if (settings.editorDir) process.stdout.write(`Editor: ${baseUrl}/editor/\n`);
  }
  if (settings.seed && !cluster.isWorker) {
    const { workspace, key } = await seedDemo(store.db, systemClock);
    process.stdout.write(
      `Demo workspace ${workspace.name} (${workspace.id})\nBase URL: ${baseUrl}\nAPI key (full_access): ${key.secret}\n`,
    );
    process.stdout.write(`Try: curl -H "Authorization: Bearer ${key.secret}" ${baseUrl}/v1/contacts?limit=5\n`);
  }
  await stopRequested;
  await app.close();
  await store.close();
  // A worker's channel to the primary would keep it running.
  cluster.worker?.disconnect();
  return 0;
}

/** The server of one `serve` process, and the call that tells /readyz it is warm. */
async function serverOf(settings: ServeSettings, store: Store, adminToken: string): Promise<{ app: FastifyInstance; warmed: () => void }> {
  let warmed!: () => void;
  const warming = new Promise<void>((resolveWarm) => (warmed = resolveWarm));
  let clusterMetrics: (() => Promise<string>) | undefined;
  const app = await buildServer({
    store,
    clock: systemClock,
    adminToken,
    logger: { level: settings.logRequests ? 'info' : 'error' },
    metrics: settings.metrics,
    metricsToken: process.env.METRICS_TOKEN || undefined,
    processMetrics: true,
    clusterMetrics: cluster.isWorker ? () => clusterMetrics!() : undefined,
    onDatabaseState: notice,
    warming,
    // onWarning: deliveries stalled behind someone's open transaction.
    webhooks: { ...settings.webhooks, onWarning: notice },
    editorDir: settings.editorDir,
    corsOrigins: settings.corsOrigins,
  });
  // A worker's /metrics answers for the whole cluster (app/cluster-metrics.ts).
  if (cluster.isWorker && settings.metrics) clusterMetrics = workerMetrics(app.metrics);
  return { app, warmed };
}

/**
 * Listens and warms, and returns the port listened on. One process listens before warming:
 * /healthz answers and /readyz says 503 until it is warm, so a balancer or supervisor sees it
 * start (the "listening on" line still waits for the warming). A worker listens once warm: the
 * port is shared, and a cold worker would answer the whole cluster's /readyz. A start that fails
 * leaves nothing open (the pool's connections would keep the process running).
 */
async function start(app: FastifyInstance, store: Store, settings: ServeSettings, storeName: string): Promise<number> {
  const { host, port } = settings;
  const closeAll = async () => {
    await app.close().catch(() => {});
    await store.close().catch(() => {});
  };
  const warmOrClose = () =>
    warm(store.db).catch(async (e: unknown) => {
      await closeAll();
      throw new Error(`cannot warm up on the store, ${storeName}: ${(e as Error).message}`, { cause: e });
    });
  if (cluster.isWorker) await warmOrClose();
  try {
    await app.listen({ port, host });
  } catch (e) {
    await closeAll();
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE')
      throw new Error(`port ${port} on ${host} is in use by another program: stop it, or pass another --port (0 picks a free one)`, {
        cause: e,
      });
    if (err.code === 'EADDRNOTAVAIL') throw new Error(`cannot listen on ${host}: no such address on this machine (--host)`, { cause: e });
    throw e;
  }
  if (!cluster.isWorker) await warmOrClose();
  const addr = app.server.address();
  return typeof addr === 'object' && addr ? addr.port : port;
}

/**
 * A starting process's warming, before /readyz says ready: every connection of the pool opened, and
 * the most recently active workspaces' first pages read into the contact text cache (a restart's
 * first seconds: each active workspace's first list would write its contacts' texts at once, under
 * the load of all the others; docs/store.md, "A restart under load").
 */
async function warm(db: Db): Promise<void> {
  await db.pool?.open();
  await warmContactPages(db, await workspacesToWarm(db, systemClock.now(), WARM_WORKSPACES), { deadline: Date.now() + WARM_MS });
}

/** A message between a worker and the primary carrying contact texts a worker wrote. */
interface TextsMessage {
  contactTexts: WrittenText[];
}
const isTexts = (m: unknown): m is TextsMessage => Array.isArray((m as Partial<TextsMessage> | null)?.contactTexts);

/**
 * A worker's contact text cache joined to its siblings' (docs/store.md, "Texts shared between
 * workers"): the texts this process writes go to the primary, which hands them to the others, and
 * theirs come here. Each entry carries the row version and lookup generation it was written at,
 * so it is used only where it is still the contact's text, in whichever process.
 */
function shareContactTexts(db: Queryable): void {
  const cache = contactTextCache(db);
  if (cache.capacity === 0) return;
  cache.onWritten = (texts) => {
    if (process.connected) process.send!({ contactTexts: texts } satisfies TextsMessage);
  };
  process.on('message', (m) => {
    if (isTexts(m)) cache.receive(m.contactTexts, Date.now());
  });
}

/** From the primary: whether this worker is the one that fans out on writes. */
interface LeaderMessage {
  fanOutLeader: boolean;
}
/** A write's nudge, from a worker to the primary and from the primary to the worker that fans out. */
interface NudgeMessage {
  nudge: true;
}
const isLeader = (m: unknown): m is LeaderMessage => typeof (m as Partial<LeaderMessage> | null)?.fanOutLeader === 'boolean';
const isNudge = (m: unknown): m is NudgeMessage => (m as Partial<NudgeMessage> | null)?.nudge === true;

/**
 * One worker of the cluster fans out on writes (docs/store.md, "One fan-out per cluster"): the
 * primary names it, and every other worker sends its writes' nudges to it through the primary, at
 * most one a FANOUT_GAP_MS (a later one is sent when the gap has passed, so the last write's is
 * never dropped). Until the primary has named one, each worker fans out on its own writes.
 */
function shareFanOut(worker: WebhookWorker): void {
  let timer: NodeJS.Timeout | undefined;
  let last = 0;
  const relay = () => {
    if (timer) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        last = Date.now();
        if (process.connected) process.send!({ nudge: true } satisfies NudgeMessage);
      },
      Math.max(0, last + FANOUT_GAP_MS - Date.now()),
    );
    timer.unref();
  };
  process.on('message', (m) => {
    if (isLeader(m)) worker.relayNudges = m.fanOutLeader ? undefined : relay;
    else if (isNudge(m)) worker.nudgeHere();
  });
}

/**
 * serve --workers N: migrates (and seeds) once, then forks N workers that each run `serve` on the
 * same port (node:cluster shares it), and prints the address once all of them listen. A worker
 * that dies is replaced; SIGINT/SIGTERM stops them all, then the primary exits 0.
 */
async function primary(
  n: number,
  adminToken: string,
  o: { databaseUrl: string; preparedStatements?: boolean; seed: boolean; host: string; port: number },
): Promise<number> {
  let stopping = false;
  const stopRequested = new Promise<void>((resolveStop) => {
    const stop = () => {
      stopping = true;
      resolveStop();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  primaryMetrics();
  const store = await openStore({ databaseUrl: o.databaseUrl, poolSize: 1, preparedStatements: o.preparedStatements });
  let seeded: Awaited<ReturnType<typeof seedDemo>> | null = null;
  try {
    if (o.seed) seeded = await seedDemo(store.db, systemClock);
  } finally {
    await store.close();
  }
  const env = { ADMIN_TOKEN: adminToken };
  const ports = new Map<number, number>();
  let announced = false;
  // The worker that fans out on writes (shareFanOut): the first to listen, then, when it exits,
  // another that listens; each worker is told which it is once it listens.
  let leader: Worker | undefined;
  /**
   * Tells `listened` (a worker that just listened) whether it fans out, while the named worker
   * runs; otherwise names the first listening worker and tells every listening worker.
   */
  const appoint = (listened?: Worker) => {
    if (leader && !leader.isDead() && leader.isConnected()) {
      listened?.send({ fanOutLeader: listened === leader } satisfies LeaderMessage);
      return;
    }
    const listening = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && ports.has(w.id) && w.isConnected());
    leader = listening[0];
    for (const w of listening) w.send({ fanOutLeader: w === leader } satisfies LeaderMessage);
  };
  const fork = () => {
    const w = cluster.fork(env);
    w.on('message', (m: { listening?: number }) => {
      if (isTexts(m)) {
        // A worker's contact texts, to each of the others (shareContactTexts).
        for (const other of Object.values(cluster.workers ?? {})) if (other && other !== w && other.isConnected()) other.send(m);
        return;
      }
      if (isNudge(m)) {
        if (leader && leader !== w && leader.isConnected()) leader.send(m);
        return;
      }
      if (typeof m?.listening !== 'number') return;
      ports.set(w.id, m.listening);
      appoint(w);
      process.stdout.write(`worker ${w.process.pid} listening\n`);
      if (!announced && ports.size === n) {
        announced = true;
        const port = [...ports.values()][0];
        const baseUrl = `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`;
        process.stdout.write(`workspace-server listening on ${baseUrl} (store: PostgreSQL (DATABASE_URL), ${n} workers)\n`);
        if (seeded)
          process.stdout.write(
            `Demo workspace ${seeded.workspace.name} (${seeded.workspace.id})\nBase URL: ${baseUrl}\nAPI key (full_access): ${seeded.key.secret}\n`,
          );
      }
    });
    w.on('exit', (code, signal) => {
      ports.delete(w.id);
      if (w === leader && !stopping) appoint();
      if (stopping) return;
      process.stderr.write(`worker ${w.process.pid} exited (${signal ?? code}); starting another\n`);
      fork();
    });
  };
  for (let i = 0; i < n; i++) fork();
  await stopRequested;
  const all = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);
  await Promise.all(
    all.map(
      (w) =>
        new Promise<void>((done) => {
          if (w.isDead()) return done();
          w.once('exit', () => done());
          w.process.kill('SIGTERM');
        }),
    ),
  );
  return 0;
}

async function adminCommand(command: string, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      'admin-token': { type: 'string' },
      name: { type: 'string' },
      slug: { type: 'string' },
      plan: { type: 'string' },
      'rate-limit': { type: 'string' },
      workspace: { type: 'string' },
      scopes: { type: 'string' },
      'expires-at': { type: 'string' },
      member: { type: 'string' },
      email: { type: 'string' },
    },
  });
  const base = (values.url ?? process.env.WORKSPACE_SERVER_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`).replace(/\/$/, '');
  const token = values['admin-token'] ?? process.env.ADMIN_TOKEN;
  if (!token) throw new Error('Set ADMIN_TOKEN or pass --admin-token');
  const need = (v: string | undefined, flag: string) => {
    if (!v) throw new Error(`${command} needs --${flag}`);
    return v;
  };
  let method = 'POST';
  let path: string;
  let body: Record<string, unknown> | undefined;
  if (command === 'create-workspace') {
    path = '/admin/workspaces';
    body = { name: need(values.name, 'name'), slug: need(values.slug, 'slug') };
    if (values.plan) body.plan = values.plan;
    if (values['rate-limit']) body.rate_limit_per_minute = Number(values['rate-limit']);
  } else if (command === 'create-key') {
    path = `/admin/workspaces/${encodeURIComponent(need(values.workspace, 'workspace'))}/api-keys`;
    body = {
      scopes: need(values.scopes, 'scopes')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    };
    if (values.name) body.name = values.name;
    if (values['expires-at']) body.expires_at = values['expires-at'];
    if (values.member) body.member_id = values.member;
  } else if (command === 'revoke-key') {
    method = 'DELETE';
    const keyId = positionals[0];
    if (!keyId) throw new Error('revoke-key needs KEY_ID');
    path = `/admin/api-keys/${encodeURIComponent(keyId)}`;
  } else {
    path = `/admin/workspaces/${encodeURIComponent(need(values.workspace, 'workspace'))}/members`;
    body = { name: need(values.name, 'name'), email: need(values.email, 'email') };
  }
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } }).cause;
    throw new Error(
      `cannot reach ${base} (${cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (e as Error).message}): is the server running there? Pass --url or set WORKSPACE_SERVER_URL`,
      { cause: e },
    );
  }
  const text = await res.text();
  if (res.ok) {
    process.stdout.write(`${text}\n`);
    return 0;
  }
  process.stderr.write(`${adminRefusal(base, command, res.status, text)}\n`);
  return 1;
}

/** A refused admin request in words: which address answered, what it said, and what to do. */
function adminRefusal(base: string, command: string, status: number, text: string): string {
  let error: { type?: string; message?: string; param?: string } | undefined;
  try {
    error = (JSON.parse(text) as { error?: typeof error }).error;
  } catch {
    error = undefined;
  }
  if (!error?.type)
    return `${command}: ${base} answered HTTP ${status}, not as a workspace server does: is --url (or WORKSPACE_SERVER_URL) its address?`;
  if (error.type === 'authentication_error')
    return `${command}: ${base} refused the admin token (${error.message}): pass the ADMIN_TOKEN that server was started with (--admin-token or ADMIN_TOKEN), or --url the server it belongs to`;
  return `${command}: ${base} refused it (HTTP ${status}, ${error.type}${error.param ? `, ${error.param}` : ''}): ${error.message}`;
}
