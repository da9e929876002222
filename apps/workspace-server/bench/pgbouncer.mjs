// Debian's PgBouncer in transaction pooling mode, as managed offerings put one in front of their
// PostgreSQL: a few server connections shared by every client, each transaction on whichever is
// free. One starter for the deployment shapes bench (bench/shapes.mjs: in front of the benchmark's
// PostgreSQL, each server connection setting the benchmark's schema first with connect_query, as
// PgBouncer cannot keep a session's search path in transaction mode) and the PgBouncer suites
// (test/private-pgbouncer.ts: in front of a private cluster). PgBouncer refuses to run as root: as
// root, it runs as the `postgres` user the PostgreSQL package creates.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from './free-port.mjs';

const PGBOUNCER =
  ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((p) => existsSync(p)) ??
  spawnSync('sh', ['-c', 'command -v pgbouncer'], { encoding: 'utf8' }).stdout.trim();

/** Why PgBouncer cannot be started here, or undefined when it can. */
export function pgBouncerUnavailable() {
  if (!PGBOUNCER) return 'no pgbouncer: apt-get install pgbouncer (scripts/setup-test.sh does)';
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0)
    return 'running as root with no postgres user to run PgBouncer as';
  return undefined;
}

/** Waits until PgBouncer listens on `port` and has written its pid file, or fails naming its log. */
async function listening(child, port, dir) {
  for (let i = 0; ; i++) {
    const up = await new Promise((resolve) => {
      const s = connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (up && existsSync(join(dir, 'pgbouncer.pid'))) return;
    if (child.exitCode !== null || i > 200) throw new Error(`PgBouncer did not start; see ${join(dir, 'pgbouncer.log')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * PgBouncer on a free port: `databases`, the lines of its [databases] section (`bench = host=…`,
 * `* = host=… port=…`); `user`, the one client user it trusts; `serverConnections` per database;
 * `dir`, where its files go (a new folder, removed on close, when not given). Returns its `port`,
 * `pid` and `close()` (SIGINT, its safe shutdown).
 * @param {{ databases: string[]; user?: string; serverConnections: number; dir?: string }} options
 */
export async function startPgBouncer({ databases, user = 'postgres', serverConnections, dir }) {
  const own = dir === undefined;
  const at = dir ?? mkdtempSync('/tmp/pgbouncer-');
  const port = await freePort();
  const ini = join(at, 'pgbouncer.ini');
  writeFileSync(join(at, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    ini,
    `[databases]
${databases.join('\n')}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${join(at, 'users.txt')}
pool_mode = transaction
default_pool_size = ${serverConnections}
max_client_conn = 500
ignore_startup_parameters = extra_float_digits, options
logfile = ${join(at, 'pgbouncer.log')}
pidfile = ${join(at, 'pgbouncer.pid')}
`,
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    spawnSync('chown', own ? ['-R', 'postgres', at] : ['postgres', ini, join(at, 'users.txt')]);
    if (own) chmodSync(at, 0o700);
  }
  const child = spawn(...(asRoot ? ['runuser', ['-u', 'postgres', '--', PGBOUNCER, ini]] : [PGBOUNCER, [ini]]), { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await listening(child, port, at);
  const pid = Number(readFileSync(join(at, 'pgbouncer.pid'), 'utf8').trim());
  return {
    port,
    pid,
    async close() {
      // PgBouncer's own pid (as root, the child is runuser): SIGINT is its safe shutdown.
      if (child.exitCode === null && child.signalCode === null) {
        process.kill(pid, 'SIGINT');
        await exited;
      }
      if (own) rmSync(at, { recursive: true, force: true });
    },
  };
}
