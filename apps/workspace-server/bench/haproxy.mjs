// Debian's haproxy in front of workspace servers on this machine, with the configuration
// docs/operations.md gives ("Several hosts behind a balancer"), read from it: the hosts suite
// (test/hosts.ts) and the deployment shapes bench (bench/shapes.mjs) run the documented file.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.mjs';

export { freePort };

const HAPROXY =
  ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((p) => existsSync(p)) ??
  spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).stdout.trim();
const OPERATIONS_MD = fileURLToPath(new URL('../../../docs/operations.md', import.meta.url));

/** Why HAProxy cannot be started here, or undefined when it can. */
export function haproxyUnavailable() {
  return HAPROXY ? undefined : 'no haproxy: apt-get install haproxy (scripts/setup-test.sh does)';
}

/**
 * The configuration of docs/operations.md, its addresses replaced by this machine's ports (`ports`:
 * one for each `bind` line, in order; `hosts`: `{ name, port }` in the order the page names its
 * servers), with what only a test or a bench
 * needs: an admin socket in `dir` to read the servers' states, and an `X-Served-By` header naming
 * the server that answered. With fewer hosts than the page names, the others are left out.
 */
export function balancerConfig(ports, hosts, dir) {
  let config = documentedConfig();
  let n = 0;
  config = config.replace(/^(\s*)bind \S+$/gm, (_, indent) => `${indent}bind 127.0.0.1:${ports[n++]}`);
  const servers = [...config.matchAll(/^\s*server (\S+) \S+/gm)].map((m) => m[1]);
  const unknown = hosts.filter((h) => !servers.includes(h.name));
  if (unknown.length || !hosts.length)
    throw new Error(
      `docs/operations.md's balancer names servers ${servers.join(', ')}; this run has ${hosts.map((h) => h.name).join(', ')}`,
    );
  // Fewer hosts than the page names: the others' lines left out.
  for (const name of servers)
    if (!hosts.some((h) => h.name === name)) config = config.replace(new RegExp(`^\\s*server ${name} .*\\n`, 'm'), '');
  for (const h of hosts) config = config.replace(new RegExp(`^(\\s*server ${h.name}) \\S+`, 'm'), `$1 127.0.0.1:${h.port}`);
  config = config.replace(/^(backend .*)$/m, '$1\n    http-response set-header X-Served-By %s');
  return `global\n    stats socket ${join(dir, 'admin.sock')} level admin\n\n${config}`;
}

/** The ```haproxy block of docs/operations.md. */
function documentedConfig() {
  const block = /```haproxy\n([\s\S]*?)```/.exec(readFileSync(OPERATIONS_MD, 'utf8'))?.[1];
  if (!block) throw new Error('docs/operations.md has no ```haproxy block: the balancer configuration to run');
  return block;
}

/** One command on HAProxy's admin socket, its answer. */
function adminCommand(socket, command) {
  return new Promise((resolve, reject) => {
    let out = '';
    const s = connect(socket, () => s.end(`${command}\n`));
    s.setEncoding('utf8');
    s.on('data', (d) => (out += d));
    s.on('end', () => resolve(out));
    s.on('error', reject);
  });
}

/**
 * haproxy in the foreground with balancerConfig, its first frontend on `port` and any other on a
 * free port, once its admin socket answers: its `url`, every frontend's in `urls`, `pid`, `states()` (each server's state as HAProxy sees it: UP, DOWN, or a transition such
 * as "UP 1/2"), `until(server, state, ms)` (waits for a state; resolves with the milliseconds it
 * took), `command(text)` (one command on the admin socket, its answer) and `close()`.
 */
export async function startBalancer(port, hosts) {
  const dir = mkdtempSync(join(tmpdir(), 'haproxy-'));
  const file = join(dir, 'haproxy.cfg');
  const ports = [port];
  for (let i = 1; i < documentedConfig().match(/^\s*bind \S+$/gm).length; i++) ports.push(await freePort());
  writeFileSync(file, balancerConfig(ports, hosts, dir));
  const check = spawnSync(HAPROXY, ['-c', '-q', '-f', file], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy refused its configuration: ${check.stderr}${check.stdout}`);
  let log = '';
  const child = spawn(HAPROXY, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const exited = new Promise((resolve) => child.once('exit', () => resolve()));
  const socket = join(dir, 'admin.sock');
  const states = async () => {
    // `show stat` is CSV, its first line the field names.
    const rows = (await adminCommand(socket, 'show stat')).split('\n').map((l) => l.split(','));
    const status = rows[0].indexOf('status');
    return Object.fromEntries(rows.filter((r) => hosts.some((h) => h.name === r[1])).map((r) => [r[1], r[status]]));
  };
  for (let i = 0; ; i++) {
    if (
      await states().then(
        () => true,
        () => false,
      )
    )
      break;
    if (child.exitCode !== null || i > 200) throw new Error(`haproxy did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    urls: ports.map((p) => `http://127.0.0.1:${p}`),
    pid: child.pid,
    states,
    command: (text) => adminCommand(socket, text),
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
