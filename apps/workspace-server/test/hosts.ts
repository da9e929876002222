// Several `serve` hosts behind a real HAProxy, on one machine: each host a `serve --workers 2`
// process on a port of its own, all on one PostgreSQL, and Debian's haproxy in front of them with
// the configuration docs/operations.md gives (read from it by bench/haproxy.mjs, so the documented
// file is the tested one). A host is lost the way a machine is: every process of it SIGKILLed at
// once, so the kernel closes its connections mid-request. Which host sent a webhook is read from /proc (the process
// holding the sending end of the receiver's connection), as separate machines would be told apart
// by their addresses.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { haproxyUnavailable, startBalancer as startHaproxy } from '../bench/haproxy.mjs';
import { ADMIN_TOKEN, startServerProcess, type ServerProcess } from './harness.js';

export { haproxyUnavailable };

/**
 * Webhook timings short enough for a test: a lost host's attempts are taken over 9 s after they
 * were claimed, and an attempt held by a receiver times out after 8 s (longer than a test holds one).
 */
export const HOST_WEBHOOK_ENV = { WEBHOOK_TIMEOUT_MS: '8000', WEBHOOK_LEASE_MS: '9000', WEBHOOK_POLL_MS: '50' };

export interface Host {
  /** Its name in the balancer's configuration (host1, host2). */
  name: string;
  port: number;
  process: ServerProcess;
  /** The primary's pid and its workers'. */
  pids(): number[];
  /** Every process of the host SIGKILLed at once, as a machine is lost; resolves when the primary is gone. */
  kill(): Promise<void>;
  /** SIGTERM: the primary stops its workers and exits. */
  stop(): Promise<void>;
}

/** The pids whose parent is `pid` (a cluster primary's workers). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent is the field after the state, and the command (in parentheses) may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return out;
}

/** `serve --workers 2` on 127.0.0.1:`port`, on `databaseUrl`, accepting loopback webhook receivers. */
export async function startHost(name: string, port: number, databaseUrl: string): Promise<Host> {
  const p = await startServerProcess(
    ['--workers', '2', '--port', String(port), '--pool-size', '3', '--no-editor', '--allow-insecure-webhooks'],
    { ADMIN_TOKEN, DATABASE_URL: databaseUrl, ...HOST_WEBHOOK_ENV },
  );
  const pids = () => (p.child.exitCode === null && p.child.signalCode === null ? [p.child.pid!, ...childrenOf(p.child.pid!)] : []);
  return {
    name,
    port,
    process: p,
    pids,
    async kill() {
      for (const pid of pids()) process.kill(pid, 'SIGKILL');
      await p.exited;
    },
    async stop() {
      if (p.child.exitCode !== null || p.child.signalCode !== null) return;
      p.child.kill('SIGTERM');
      await p.exited;
    },
  };
}

/** The inode of the IPv4 socket whose local port is `localPort` and remote port `remotePort`, from /proc/net/tcp. */
function tcpInode(localPort: number, remotePort: number): string | undefined {
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    if (parseInt(f[1].split(':')[1], 16) === localPort && parseInt(f[2].split(':')[1], 16) === remotePort) return f[9];
  }
  return undefined;
}

/**
 * The host whose process holds the connection from its port `senderPort` to the receiver's
 * `receiverPort` (both on loopback), while that connection is open; undefined when none does.
 */
export function senderOf(hosts: Host[], senderPort: number, receiverPort: number): Host | undefined {
  const inode = tcpInode(senderPort, receiverPort);
  if (!inode) return undefined;
  const link = `socket:[${inode}]`;
  return hosts.find((h) =>
    h.pids().some((pid) => {
      try {
        return readdirSync(`/proc/${pid}/fd`).some((fd) => {
          try {
            return readlinkSync(`/proc/${pid}/fd/${fd}`) === link;
          } catch {
            return false;
          }
        });
      } catch {
        return false;
      }
    }),
  );
}

export interface Balancer {
  /** The API's frontend. */
  url: string;
  /** Every frontend's, in the configuration's order: the API's, then HAProxy's own Prometheus exporter. */
  urls: string[];
  pid: number;
  /** Each server's state as HAProxy sees it (UP, DOWN, or a transition such as "UP 1/2"). */
  states(): Promise<Record<string, string>>;
  /** Waits until HAProxy says `server` is `state` (UP or DOWN), or fails after `ms`; how long it took. */
  until(server: string, state: 'UP' | 'DOWN', ms?: number): Promise<number>;
  /** One command on HAProxy's admin socket (`set server workspace_servers/host1 state maint`), its answer. */
  command(text: string): Promise<string>;
  close(): Promise<void>;
}

/** Debian's haproxy with the configuration of docs/operations.md on `port` (bench/haproxy.mjs). */
export const startBalancer: (port: number, hosts: { name: string; port: number }[]) => Promise<Balancer> = startHaproxy;
