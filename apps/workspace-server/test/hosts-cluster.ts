// Two hosts behind HAProxy on one PostgreSQL schema (hosts.ts), and what the suites do with them:
// keys the balancer sends to each host, a workspace whose webhooks go to a local receiver, and the
// loss of a host under load with webhook deliveries in flight (hosts.postgres.test.ts once,
// hosts.fuzz.test.ts many times over).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { checkAnswers, drive, type Answer } from './fault-load.js';
import { ADMIN_TOKEN, Client, createSchema } from './harness.js';
import { senderOf, startBalancer, startHost, type Balancer, type Host } from './hosts.js';
import { freePort } from './private-postgres.js';
import { echoChallenge, Receiver, type Received } from './webhooks-harness.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

export interface Cluster {
  hosts: Host[];
  balancer: Balancer;
  /** The database the hosts share, with their schema as its search path. */
  databaseUrl: string;
  schema: string;
  /** The admin API through the balancer. */
  admin: Client;
  /** Which host the balancer sends a request with this key to (a /healthz, which counts against nothing). */
  hostOf(key: string): Promise<string>;
  /** A workspace, and one full_access key the balancer sends to each host, by host name. */
  workspace(rateLimitPerMinute?: number): Promise<{ id: string; clients: Record<string, Client> }>;
  /** Starts a lost host again on its port, and waits until the balancer sends it traffic. */
  restart(host: Host): Promise<Host>;
  close(): Promise<void>;
}

/** A schema on TEST_DATABASE_URL, two `serve --workers 2` hosts on it, HAProxy in front, both UP. */
export async function startCluster(): Promise<Cluster> {
  const { schema, url: databaseUrl } = await createSchema('hosts');
  const ports = [await freePort(), await freePort()];
  // Started together, as a deployment's hosts are: the migration lock lets one migrate.
  const hosts = await Promise.all(ports.map((port, i) => startHost(`host${i + 1}`, port, databaseUrl)));
  const balancer = await startBalancer(await freePort(), hosts);
  for (const h of hosts) await balancer.until(h.name, 'UP');
  const admin = new Client(balancer.url, ADMIN_TOKEN);
  const cluster: Cluster = {
    hosts,
    balancer,
    databaseUrl,
    schema,
    admin,
    async hostOf(key) {
      const r = await fetch(`${balancer.url}/healthz`, { headers: { authorization: `Bearer ${key}` } });
      return r.headers.get('x-served-by') ?? '';
    },
    async workspace(rateLimitPerMinute = 1_000_000) {
      const slug = `hosts-${randomBytes(4).toString('hex')}`;
      const ws = await admin.post('/admin/workspaces', { name: slug, slug, rate_limit_per_minute: rateLimitPerMinute });
      expect(ws.status, JSON.stringify(ws.body)).toBe(201);
      const clients: Record<string, Client> = {};
      // The balancer hashes the Authorization header: new keys until each host has one.
      for (let i = 0; Object.keys(clients).length < hosts.length; i++) {
        if (i > 40) throw new Error(`no key the balancer sends to each host in 40 (got ${Object.keys(clients).join(', ')})`);
        const key = await admin.post(`/admin/workspaces/${ws.body.id}/api-keys`, { scopes: ['full_access'] });
        expect(key.status, JSON.stringify(key.body)).toBe(201);
        const host = await cluster.hostOf(key.body.secret);
        clients[host] ??= new Client(balancer.url, key.body.secret);
      }
      return { id: ws.body.id, clients };
    },
    async restart(host) {
      const again = await startHost(host.name, host.port, databaseUrl);
      hosts[hosts.indexOf(host)] = again;
      await balancer.until(host.name, 'UP');
      return again;
    },
    async close() {
      await balancer.close();
      await Promise.all(hosts.map((h) => h.stop()));
    },
  };
  return cluster;
}

export interface HookWorkspace {
  id: string;
  clients: Record<string, Client>;
  receiver: Receiver;
  /** Which host sent each request the receiver got (read while its connection was open). */
  senders: Map<Received, string | undefined>;
  endpointId: string;
  /** Holds (or stops holding) the receiver's answers to contact.created deliveries: they stay in flight. */
  hold(on: boolean): void;
  /** The contact.created deliveries the receiver acknowledged, by delivery id: how many times each. */
  acknowledged(): Map<string, number>;
}

export const deliveryId = (r: Received) => String(r.headers['x-service-delivery-id']);

/** A workspace whose contact.created events go to a local receiver, its endpoint verified. */
export async function hookWorkspace(c: Cluster): Promise<HookWorkspace> {
  const receiver = await new Receiver().start();
  const receiverPort = Number(new URL(receiver.url).port);
  const senders = new Map<Received, string | undefined>();
  let holding = false;
  receiver.behaviour = (r) => {
    senders.set(r, senderOf(c.hosts, r.remotePort, receiverPort)?.name);
    return holding && r.json?.type === 'contact.created' ? 'hang' : echoChallenge(r);
  };
  const ws = await c.workspace();
  const api = Object.values(ws.clients)[0];
  const ep = await api.post('/v1/webhooks', { url: receiver.url, event_types: ['contact.created'] });
  expect(ep.status, JSON.stringify(ep.body)).toBe(201);
  expect((await api.post(`/v1/webhooks/${ep.body.id}/verify`)).body.verified).toBe(true);
  return {
    ...ws,
    receiver,
    senders,
    endpointId: ep.body.id,
    hold(on) {
      holding = on;
    },
    acknowledged() {
      const n = new Map<string, number>();
      for (const r of receiver.deliveries('contact.created')) if (r.answer === 200) n.set(deliveryId(r), (n.get(deliveryId(r)) ?? 0) + 1);
      return n;
    },
  };
}

/** A suite's cluster and its webhook workspace: started before its tests, closed after them. */
export function useCluster(): { readonly c: Cluster; readonly hook: HookWorkspace } {
  const suite = {} as { c: Cluster; hook: HookWorkspace };
  beforeAll(async () => {
    suite.c = await startCluster();
    suite.hook = await hookWorkspace(suite.c);
  }, 120_000);
  afterAll(async () => {
    await suite.hook?.receiver.close();
    await suite.c?.close();
  });
  return suite;
}

/** Creates `n` contacts in the hook workspace, through each host's key in turn, four at a time. */
export async function createContacts(hook: HookWorkspace, n: number, tag: string): Promise<void> {
  const clients = Object.values(hook.clients);
  for (let i = 0; i < n; i += 4) {
    const batch = Array.from({ length: Math.min(4, n - i) }, (_, j) =>
      clients[(i + j) % clients.length].post('/v1/contacts', { first_name: `${tag}${i + j}`, last_name: 'Hook' }),
    );
    for (const r of await Promise.all(batch)) expect(r.status, JSON.stringify(r.body)).toBe(201);
  }
}

/** Waits until every delivery in `ids` was acknowledged, then a moment more, and expects each acknowledged once. */
export async function expectEachAcknowledgedOnce(hook: HookWorkspace, ids: string[]): Promise<void> {
  await until(`${ids.length} deliveries acknowledged`, () => ids.every((id) => hook.acknowledged().has(id)), 30_000);
  // A second send of any of them (two hosts claiming one delivery) would come within a poll or two.
  await sleep(500);
  const acks = hook.acknowledged();
  expect(
    ids.filter((id) => acks.get(id) !== 1),
    'deliveries acknowledged more than once',
  ).toEqual([]);
}

interface Keyed {
  key: string;
  /** Every answer's status, the last the one that acknowledged it (0: no answer at all). */
  statuses: number[];
  id?: string;
}

/**
 * Transactions created with idempotency keys by one loop per client, each sent again after a
 * failed answer (a 502 when its host died with it) until acknowledged, as a careful client does.
 */
async function idempotentCreations(clients: Client[], stop: () => boolean): Promise<Keyed[]> {
  const out: Keyed[] = [];
  const run = randomBytes(3).toString('hex');
  await Promise.all(
    clients.map(async (c, n) => {
      for (let i = 0; !stop(); i++) {
        const k: Keyed = { key: `idem-${run}-${n}-${i}`, statuses: [] };
        out.push(k);
        while (k.id === undefined && k.statuses.length < 10) {
          const r = await c.post('/v1/transactions', { name: `Idem ${k.key}`, idempotency_key: k.key }).catch(() => undefined);
          k.statuses.push(r?.status ?? 0);
          if (r?.status === 200 || r?.status === 201) k.id = r.body.id;
          else await sleep(100);
        }
      }
    }),
  );
  return out;
}

/** Each idempotency key acknowledged, and exactly one transaction for it: the one acknowledged. */
async function checkIdempotent(c: Cluster, workspaceId: string, keyed: Keyed[]): Promise<void> {
  expect(
    keyed.filter((k) => k.id === undefined),
    'every idempotent creation acknowledged in the end',
  ).toEqual([]);
  const db = new pg.Client({ connectionString: c.databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ idempotency_key: string; ids: string[] }>(
      'SELECT idempotency_key, array_agg(id) AS ids FROM transactions WHERE workspace_id = $1 GROUP BY idempotency_key',
      [workspaceId],
    );
    const held = new Map(rows.map((r) => [r.idempotency_key, r.ids]));
    expect(
      keyed.filter((k) => JSON.stringify(held.get(k.key)) !== JSON.stringify([k.id])),
      'one transaction per key, the acknowledged one',
    ).toEqual([]);
  } finally {
    await db.end();
  }
}

export interface Lost {
  victim: Host;
  survivor: Host;
  /** How long HAProxy took to mark the victim DOWN after it was killed. */
  downAfterMs: number;
  requests: number;
  /** Answers whose outcome nobody knows (a 502 or no answer: in flight on the victim when it died). */
  unknown: number;
  /** Of the held deliveries, those the victim had in flight, sent again by the survivor. */
  resent: number;
}

/**
 * One host lost under load with webhook deliveries in flight on both: the receiver holds twelve
 * contact.created deliveries, the host holding most of them is SIGKILLed while clients write
 * through the balancer (contacts as the fault suites do, and idempotent transactions), and then:
 * HAProxy marks it DOWN; every answer a success, or a 502 for a request in flight on the victim
 * (at most one per client); no acknowledged write lost; each idempotency key one transaction; the
 * survivor's held deliveries acknowledged once, and the victim's sent again by the survivor once
 * their lease ran out, each acknowledged once and logged `interrupted` then `succeeded`.
 */
export async function loseAHost(c: Cluster, hook: HookWorkspace, load: { id: string; clients: Record<string, Client> }): Promise<Lost> {
  const { victim, survivor, held, on } = await holdDeliveries(c, hook);
  let done = false;
  const stop = () => done;
  const clients = Object.values(load.clients);
  const writes = Promise.all(clients.map((client) => drive(client, 2, stop)));
  const keyed = idempotentCreations(clients, stop);
  await sleep(500);
  await victim.kill();
  // The kernel closed the dead host's connections: the receiver sees its held deliveries dropped.
  await until("the victim's held deliveries dropped", () => on(victim).every((r) => r.dropped), 5_000);
  const answered = hook.receiver.answerHeld(200);
  hook.hold(false);
  expect(new Set(answered), 'the survivor still had its own held deliveries in flight').toEqual(new Set(on(survivor)));
  const downAfterMs = await c.balancer.until(victim.name, 'DOWN', 10_000);
  await expectBalancerMetrics(c, victim);
  await sleep(1_000);
  done = true;
  const answers = (await writes).flat();
  // A request in flight on the victim gets a 502, or its connection closed with no answer (HAProxy
  // does that when it sent the request on a kept-alive server connection, so the client retries as
  // after any keep-alive race): either way nobody knows whether it was written.
  const unknown = (a: Answer) => a.status === 502 || a.status === 0;
  const loops = clients.length * 3;
  expect(
    answers.filter(unknown).length,
    'no answer only for requests in flight on the victim: one per client loop at most',
  ).toBeLessThanOrEqual(loops);
  await checkAnswers(answers, c.databaseUrl, undefined, unknown);
  const creations = await keyed;
  await checkIdempotent(c, load.id, creations);
  await expectResent(hook, held, on(victim), survivor);
  return {
    victim,
    survivor,
    downAfterMs,
    requests: answers.length + creations.reduce((n, k) => n + k.statuses.length, 0),
    unknown: answers.filter(unknown).length + creations.reduce((n, k) => n + k.statuses.filter((s) => s === 502 || s === 0).length, 0),
    resent: on(victim).length,
  };
}

/** HAProxy's Prometheus exporter (the documented alert reads it) says the victim is DOWN and one server is left. */
async function expectBalancerMetrics(c: Cluster, victim: Host): Promise<void> {
  const text = await (await fetch(`${c.balancer.urls[1]}/metrics`)).text();
  const value = (series: string) =>
    Number(
      text
        .split('\n')
        .find((l) => l.startsWith(`${series} `))
        ?.split(' ')[1],
    );
  expect(value(`haproxy_server_status{proxy="workspace_servers",server="${victim.name}",state="DOWN"}`)).toBe(1);
  expect(value('haproxy_backend_active_servers{proxy="workspace_servers"}')).toBe(c.hosts.length - 1);
}

/** Twelve contact.created deliveries held in flight; the host that holds most of them is the victim. */
async function holdDeliveries(c: Cluster, hook: HookWorkspace) {
  hook.hold(true);
  const seen = hook.receiver.deliveries('contact.created').length;
  await createContacts(hook, 12, 'Held');
  await until('twelve deliveries held', () => hook.receiver.deliveries('contact.created').length - seen >= 12, 20_000);
  const held = hook.receiver.deliveries('contact.created').slice(seen);
  expect(
    held.map((r) => r.answer),
    'every delivery held once (none sent twice)',
  ).toEqual(held.map(() => 'hang'));
  expect(
    held.filter((r) => !hook.senders.get(r)),
    'the sender of every held delivery found',
  ).toEqual([]);
  const on = (h: Host) => held.filter((r) => hook.senders.get(r) === h.name);
  const [victim, survivor] = [...c.hosts].sort((a, b) => on(b).length - on(a).length);
  return { victim, survivor, held, on };
}

/** Every held delivery acknowledged once; the victim's sent again by the survivor, logged interrupted then succeeded. */
async function expectResent(hook: HookWorkspace, held: Received[], victims: Received[], survivor: Host): Promise<void> {
  await expectEachAcknowledgedOnce(hook, held.map(deliveryId));
  const again = (r: Received) => hook.receiver.deliveries('contact.created').filter((x) => x !== r && deliveryId(x) === deliveryId(r));
  expect(
    victims.map((r) => again(r).map((x) => hook.senders.get(x))),
    "the victim's deliveries sent again by the survivor",
  ).toEqual(victims.map(() => [survivor.name]));
  const api = Object.values(hook.clients)[0];
  const log = await api.get(`/v1/webhooks/${hook.endpointId}/deliveries?limit=100`);
  expect(log.status).toBe(200);
  const outcomes = new Map<string, string[]>(log.body.data.map((d: any) => [d.id, d.attempts.map((a: any) => a.outcome)]));
  const victimIds = new Set(victims.map(deliveryId));
  for (const r of held) {
    expect(outcomes.get(deliveryId(r)), `attempts of ${deliveryId(r)}`).toEqual(
      victimIds.has(deliveryId(r)) ? ['interrupted', 'succeeded'] : ['succeeded'],
    );
  }
}

/**
 * A lost host started again while clients write through the balancer: HAProxy sends it traffic
 * once its /readyz passes twice, and no request meanwhile goes unanswered or fails.
 */
export function rejoin(c: Cluster, host: Host, load: { clients: Record<string, Client> }): Promise<{ host: Host; requests: number }> {
  return underLoad(c, load, () => c.restart(host), 'no 503 while a host joins');
}

/**
 * A planned restart of `host` under load, as docs/operations.md says to do one: taken out of the
 * balancer (`state maint` on HAProxy's admin socket), stopped with SIGTERM once its requests are
 * done, started again, and put back (`state ready`) to get traffic once /readyz passes. No request
 * fails or goes unanswered meanwhile.
 */
export function restartPlanned(
  c: Cluster,
  host: Host,
  load: { clients: Record<string, Client> },
): Promise<{ host: Host; requests: number }> {
  return underLoad(
    c,
    load,
    async () => {
      expect(await c.balancer.command(`set server workspace_servers/${host.name} state maint`)).toBe('\n');
      await sleep(500);
      await host.stop();
      const again = await startHost(host.name, host.port, c.databaseUrl);
      c.hosts[c.hosts.indexOf(host)] = again;
      expect(await c.balancer.command(`set server workspace_servers/${host.name} state ready`)).toBe('\n');
      await c.balancer.until(host.name, 'UP');
      return again;
    },
    'no 503 through a planned restart',
  );
}

/**
 * `change` run while every client writes through the balancer, from 300 ms into the writes until a
 * second after it: every answer checked against the database, and none a 503 (`said` if one is).
 */
async function underLoad(
  c: Cluster,
  load: { clients: Record<string, Client> },
  change: () => Promise<Host>,
  said: string,
): Promise<{ host: Host; requests: number }> {
  let done = false;
  const writes = Promise.all(Object.values(load.clients).map((client) => drive(client, 2, () => done)));
  await sleep(300);
  const host = await change();
  await sleep(1_000);
  done = true;
  const answers = (await writes).flat();
  await checkAnswers(answers, c.databaseUrl);
  expect(
    answers.filter((a) => a.status === 503),
    said,
  ).toEqual([]);
  return { host, requests: answers.length };
}
