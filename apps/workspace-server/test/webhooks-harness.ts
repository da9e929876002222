import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../src/clock.js';
import type { Store } from '../src/db/open.js';
import { buildServer } from '../src/server.js';
import type { WebhookOptions } from '../src/webhooks/index.js';
import { ADMIN_TOKEN, Client, openTestStore, type StoreKind } from './harness.js';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  /** The response this request got: a status, or how the receiver misbehaved. */
  answer: number | 'hang' | 'close';
}

export type Behaviour = (r: Received) => { status: number; body?: string } | 'hang' | 'close';

/** A real HTTP receiver on loopback; its behaviour can change between steps. */
export class Receiver {
  readonly received: Received[] = [];
  behaviour: Behaviour = (r) => echoChallenge(r);
  private readonly hanging = new Set<ServerResponse>();
  private server = createServer((req, res) => this.handle(req, res));
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  private handle(req: IncomingMessage, res: ServerResponse) {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      let json: any = null;
      try {
        json = JSON.parse(body);
      } catch {
        // recorded as text
      }
      const r: Received = { headers: req.headers, body, json, answer: 0 };
      this.received.push(r);
      const a = this.behaviour(r);
      if (a === 'hang') {
        r.answer = 'hang';
        this.hanging.add(res);
        return;
      }
      if (a === 'close') {
        r.answer = 'close';
        req.socket.destroy();
        return;
      }
      r.answer = a.status;
      res.writeHead(a.status, { 'content-type': 'text/plain' }).end(a.body ?? 'ok');
    });
  }

  /** Received deliveries other than verification challenges. */
  deliveries(type?: string): Received[] {
    return this.received.filter((r) => r.json?.type !== 'webhook.verification' && (!type || r.json?.type === type));
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** What a well-behaved receiver does: answers the challenge, acknowledges everything else. */
export function echoChallenge(r: Received): { status: number; body: string } {
  if (r.json?.type === 'webhook.verification') return { status: 200, body: JSON.stringify({ challenge: r.json.data.challenge }) };
  return { status: 200, body: 'received' };
}

export interface HookServer {
  base: string;
  clock: ManualClock;
  store: Store;
  admin: Client;
  drain(): Promise<void>;
  prune(): Promise<{ deliveries: number; events: number }>;
  checkHeld(): Promise<string | undefined>;
  workspace(scopes?: string[]): Promise<{ id: string; client: Client }>;
  close(): Promise<void>;
}

/**
 * The real server on loopback with the worker's loop off: tests advance the clock and drain. The
 * acknowledgement timeout is short for the hanging receiver, but not so short that PGlite (which
 * runs on the test's own event loop) makes a prompt answer look late.
 */
export async function startHookServer(kind: StoreKind, opts: { store?: Store; clock?: ManualClock; webhooks?: WebhookOptions } = {}): Promise<HookServer> {
  const store = opts.store ?? (await openTestStore(kind));
  const clock = opts.clock ?? new ManualClock('2026-03-02T10:00:00.000Z');
  const app = await buildServer({ store, clock, adminToken: ADMIN_TOKEN, webhooks: { allowInsecure: true, pollMs: 0, timeoutMs: 1500, ...opts.webhooks } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const admin = new Client(base, ADMIN_TOKEN);
  let n = 0;
  return {
    base, clock, store, admin,
    drain: () => app.webhooks.drain(),
    prune: () => app.webhooks.prune(),
    checkHeld: () => app.webhooks.checkHeld(),
    async workspace(scopes = ['full_access']) {
      const slug = `wh-${Date.now().toString(36)}-${++n}-${Math.random().toString(36).slice(2, 6)}`;
      const w = await admin.post('/admin/workspaces', { name: slug, slug, rate_limit_per_minute: 100000 });
      const k = await admin.post(`/admin/workspaces/${w.body.id}/api-keys`, { scopes });
      return { id: w.body.id, client: new Client(base, k.body.secret) };
    },
    async close() {
      await app.close();
      if (!opts.store) await store.close();
    },
  };
}
