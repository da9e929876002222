import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP forwarder on a loopback port in front of a real server (a PostgreSQL), to cut the line
 * between a client and it as a network fault or a database host going away does: `pull()` resets
 * every open connection and refuses new ones (ECONNREFUSED), `insert()` takes connections again on
 * the same port. Nothing is faked: what the client meets is the kernel's own refusal and resets.
 */
export interface TcpPlug {
  readonly port: number;
  /** `url` with its host and port replaced by the plug's. */
  via(url: string): string;
  pull(): Promise<void>;
  insert(): Promise<void>;
  close(): Promise<void>;
}

export async function tcpPlug(target: { host: string; port: number }): Promise<TcpPlug> {
  const open = new Set<Socket>();
  const forward = (client: Socket) => {
    const upstream = connect(target.port, target.host);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        open.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  };
  let server: Server = createServer(forward);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const stop = async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of open) s.resetAndDestroy();
    });
  };
  return {
    port,
    via(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    pull: stop,
    async insert() {
      if (server.listening) return;
      server = createServer(forward);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', resolve);
      });
    },
    close: () => (server.listening ? stop() : Promise.resolve()),
  };
}
