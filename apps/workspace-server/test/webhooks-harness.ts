import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../src/shared/clock.js';
import type { Store } from '../src/open-store.js';
import { buildServer } from '../src/server.js';
import type { WebhookOptions } from '../src/modules/webhooks/index.js';
import { ADMIN_TOKEN, Client, openTestStore, type StoreKind } from './harness.js';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  /** The response this request got: a status, or how the receiver misbehaved. */
  answer: number | 'hang' | 'close';
  /** The sender's port on its side of the connection (which process sent it: test/hosts.ts). */
  remotePort: number;
  /** A held request whose connection the sender closed before it was answered (its process died, or it timed out). */
  dropped?: boolean;
}

export type Behaviour = (r: Received) => { status: number; body?: string } | 'hang' | 'close';

/** A real HTTP receiver on loopback; its behaviour can change between steps. */
export class Receiver {
  readonly received: Received[] = [];
  behaviour: Behaviour = (r) => echoChallenge(r);
  private readonly hanging = new Map<ServerResponse, Received>();
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
      const r: Received = { headers: req.headers, body, json, answer: 0, remotePort: req.socket.remotePort ?? 0 };
      this.received.push(r);
      const a = this.behaviour(r);
      if (a === 'hang') {
        r.answer = 'hang';
        this.hanging.set(res, r);
        res.once('close', () => {
          if (this.hanging.delete(res)) r.dropped = true;
        });
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

  /** Answers every held request whose connection is still open with `status`; returns them. */
  answerHeld(status = 200): Received[] {
    const answered = [...this.hanging].filter(([res]) => !res.destroyed);
    for (const [res, r] of answered) {
      this.hanging.delete(res);
      r.answer = status;
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    }
    return answered.map(([, r]) => r);
  }

  /** Received deliveries other than verification challenges. */
  deliveries(type?: string): Received[] {
    return this.received.filter((r) => r.json?.type !== 'webhook.verification' && (!type || r.json?.type === type));
  }

  async close(): Promise<void> {
    for (const res of this.hanging.keys()) res.destroy();
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
export async function startHookServer(
  kind: StoreKind,
  opts: { store?: Store; clock?: ManualClock; webhooks?: WebhookOptions } = {},
): Promise<HookServer> {
  const store = opts.store ?? (await openTestStore(kind));
  const clock = opts.clock ?? new ManualClock('2026-03-02T10:00:00.000Z');
  const app = await buildServer({
    store,
    clock,
    adminToken: ADMIN_TOKEN,
    webhooks: { allowInsecure: true, pollMs: 0, timeoutMs: 1500, ...opts.webhooks },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const admin = new Client(base, ADMIN_TOKEN);
  let n = 0;
  return {
    base,
    clock,
    store,
    admin,
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
