// Several `serve` hosts behind a real HAProxy, on one machine: each host a `serve --workers 2`
// process on a port of its own, all on one PostgreSQL, and Debian's haproxy in front of them with
// the configuration docs/operations.md gives (read from it, so the documented file is the tested
// one). A host is lost the way a machine is: every process of it SIGKILLed at once, so the kernel
// closes its connections mid-request. Which host sent a webhook is read from /proc (the process
// holding the sending end of the receiver's connection), as separate machines would be told apart
// by their addresses.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_TOKEN, startServerProcess, type ServerProcess } from './harness.js';

const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((p) => existsSync(p)) ?? spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).stdout.trim();
const OPERATIONS_MD = fileURLToPath(new URL('../../../docs/operations.md', import.meta.url));

/** Why HAProxy cannot be started here, or undefined when it can. */
export function haproxyUnavailable(): string | undefined {
  return HAPROXY ? undefined : 'no haproxy: apt-get install haproxy (scripts/setup-test.sh does)';
}

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
    name, port, process: p, pids,
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
  return hosts.find((h) => h.pids().some((pid) => {
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
  }));
}

/**
 * The HAProxy configuration of docs/operations.md ("Several hosts behind a balancer"), its
 * addresses replaced by this machine's ports, with what only the test needs: an admin socket to
 * read the servers' states and an `X-Served-By` header naming the host that answered.
 */
export function balancerConfig(port: number, hosts: { name: string; port: number }[], dir: string): string {
  const doc = readFileSync(OPERATIONS_MD, 'utf8');
  const block = /```haproxy\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!block) throw new Error('docs/operations.md has no ```haproxy block: the balancer configuration the test runs');
  let config = block.replace(/^(\s*)bind \S+$/m, `$1bind 127.0.0.1:${port}`);
  const servers = [...config.matchAll(/^\s*server (\S+) \S+/gm)].map((m) => m[1]);
  if (servers.join() !== hosts.map((h) => h.name).join()) throw new Error(`docs/operations.md's balancer names servers ${servers.join(', ')}; the test runs ${hosts.map((h) => h.name).join(', ')}`);
  for (const h of hosts) config = config.replace(new RegExp(`^(\\s*server ${h.name}) \\S+`, 'm'), `$1 127.0.0.1:${h.port}`);
  config = config.replace(/^(backend .*)$/m, '$1\n    http-response set-header X-Served-By %s');
  return `global\n    stats socket ${join(dir, 'admin.sock')} level admin\n\n${config}`;
}

export interface Balancer {
  url: string;
  /** Each server's state as HAProxy sees it (UP, DOWN, or a transition such as "UP 1/2"). */
  states(): Promise<Record<string, string>>;
  /** Waits until HAProxy says `server` is `state` (UP or DOWN), or fails after `ms`. */
  until(server: string, state: 'UP' | 'DOWN', ms?: number): Promise<number>;
  close(): Promise<void>;
}

/** One command on HAProxy's admin socket, its answer. */
function adminCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const s = connect(socket, () => s.end(`${command}\n`));
    s.setEncoding('utf8');
    s.on('data', (d) => (out += d));
    s.on('end', () => resolve(out));
    s.on('error', reject);
  });
}

/** Debian's haproxy in the foreground with balancerConfig on `port`, once its admin socket answers. */
export async function startBalancer(port: number, hosts: { name: string; port: number }[]): Promise<Balancer> {
  const dir = mkdtempSync(join(tmpdir(), 'haproxy-'));
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, balancerConfig(port, hosts, dir));
  const check = spawnSync(HAPROXY, ['-c', '-q', '-f', file], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy refused its configuration: ${check.stderr}${check.stdout}`);
  let log = '';
  const child: ChildProcess = spawn(HAPROXY, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const socket = join(dir, 'admin.sock');
  const states = async () => {
    // `show stat` is CSV: # pxname,svname,...,status (the 18th field).
    const rows = (await adminCommand(socket, 'show stat')).split('\n').map((l) => l.split(','));
    const head = rows[0];
    const status = head.indexOf('status');
    return Object.fromEntries(rows.filter((r) => hosts.some((h) => h.name === r[1])).map((r) => [r[1], r[status]]));
  };
  for (let i = 0; ; i++) {
    if (await states().then(() => true, () => false)) break;
    if (child.exitCode !== null || i > 200) throw new Error(`haproxy did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    states,
    async until(server, state, ms = 20_000) {
      const start = Date.now();
      for (;;) {
        const now = (await states())[server];
        if (now === state) return Date.now() - start;
        if (Date.now() - start > ms) throw new Error(`haproxy did not see ${server} ${state} within ${ms / 1000} s (it says ${now})`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
