// A fault-injecting loopback proxy in front of the real server: 500s before or after forwarding
// (the latter loses a response the server already acted on), dropped connections before or
// after forwarding, and delays. Seeded, so a failing run can be replayed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Faults {
  failBefore: number;
  failAfter: number;
  dropBefore: number;
  dropAfter: number;
  delay: number;
}

export interface FaultProxy {
  base: string;
  injected: { failBefore: number; failAfter: number; dropBefore: number; dropAfter: number; delay: number; passed: number };
  close(): Promise<void>;
}

/** mulberry32: a small seeded generator. */
export function seeded(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FORWARDED = ['content-type', 'idempotent-replayed', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'];

export async function startFaultProxy(target: string, faults: Faults, seed: number): Promise<FaultProxy> {
  const random = seeded(seed);
  const injected = { failBefore: 0, failAfter: 0, dropBefore: 0, dropAfter: 0, delay: 0, passed: 0 };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const roll = random();
    let edge = 0;
    const pick = (p: number) => roll >= edge && roll < (edge += p);
    const fail = () => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'api_error', message: 'Injected failure' } }));
    };
    if (pick(faults.failBefore)) {
      injected.failBefore++;
      return fail();
    }
    if (pick(faults.dropBefore)) {
      injected.dropBefore++;
      return req.socket.destroy();
    }
    const failAfter = pick(faults.failAfter);
    const dropAfter = pick(faults.dropAfter);
    if (pick(faults.delay)) {
      injected.delay++;
      await new Promise((r) => setTimeout(r, 20 + Math.floor(random() * 80)));
    }
    const headers: Record<string, string> = {};
    for (const h of ['authorization', 'content-type', 'accept'])
      if (typeof req.headers[h] === 'string') headers[h] = req.headers[h] as string;
    let upstream: Response;
    try {
      upstream = await fetch(`${target}${req.url}`, { method: req.method, headers, body: body.length ? body : undefined });
    } catch {
      return req.socket.destroy();
    }
    const text = await upstream.text();
    if (failAfter) {
      injected.failAfter++;
      return fail();
    }
    if (dropAfter) {
      injected.dropAfter++;
      return req.socket.destroy();
    }
    injected.passed++;
    const out: Record<string, string> = {};
    for (const h of FORWARDED) {
      const v = upstream.headers.get(h);
      if (v !== null) out[h] = v;
    }
    res.writeHead(upstream.status, out);
    res.end(text);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    injected,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
