// Debian's PgBouncer in transaction pooling mode in front of the benchmark's PostgreSQL, for the
// deployment shapes bench (bench/shapes.mjs): the server's side by side with and without it.
// PgBouncer cannot keep a session's search path in transaction mode, so every server connection
// it opens sets the benchmark's schema first (connect_query). It refuses to run as root: as root,
// it runs as the `postgres` user the PostgreSQL package creates.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from './haproxy.mjs';

const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((p) => existsSync(p)) ?? spawnSync('sh', ['-c', 'command -v pgbouncer'], { encoding: 'utf8' }).stdout.trim();

/** Why PgBouncer cannot be started here, or undefined when it can. */
export function pgBouncerUnavailable() {
  if (!PGBOUNCER) return 'no pgbouncer: apt-get install pgbouncer (scripts/setup-test.sh does)';
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) return 'running as root with no postgres user to run PgBouncer as';
  return undefined;
}

/**
 * PgBouncer on a free port in front of `pgUrl`'s server, `serverConnections` server connections
 * for the database, each with `schema` as its search path: `url` (for the server, with named
 * statements off), `pid` and `close()`.
 */
export async function startPgBouncer(pgUrl, schema, serverConnections) {
  const u = new URL(pgUrl);
  const user = decodeURIComponent(u.username || 'postgres');
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync('/tmp/pgbouncer-bench-');
  const port = await freePort();
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(ini, `[databases]
bench = host=${u.hostname} port=${u.port || 5432} dbname=${u.pathname.slice(1)} user=${user} password=${decodeURIComponent(u.password)} connect_query='SET search_path = ${schema}, public'

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${join(dir, 'users.txt')}
pool_mode = transaction
default_pool_size = ${serverConnections}
max_client_conn = 500
ignore_startup_parameters = extra_float_digits, options
logfile = ${join(dir, 'pgbouncer.log')}
pidfile = ${join(dir, 'pgbouncer.pid')}
`);
  if (asRoot) {
    spawnSync('chown', ['-R', 'postgres', dir]);
    chmodSync(dir, 0o700);
  }
  const child = spawn(...(asRoot ? ['runuser', ['-u', 'postgres', '--', PGBOUNCER, ini]] : [PGBOUNCER, [ini]]), { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (let i = 0; ; i++) {
    const up = await new Promise((resolve) => {
      const s = connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (up && existsSync(join(dir, 'pgbouncer.pid'))) break;
    if (child.exitCode !== null || i > 200) throw new Error(`PgBouncer did not start; see ${join(dir, 'pgbouncer.log')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const pid = Number(readFileSync(join(dir, 'pgbouncer.pid'), 'utf8').trim());
  return {
    url: `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/bench?prepared_statements=false`,
    pid,
    async close() {
      // PgBouncer's own pid (as root, the child is runuser): SIGINT is its safe shutdown.
      if (child.exitCode === null && child.signalCode === null) {
        process.kill(pid, 'SIGINT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
