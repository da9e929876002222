// Debian's PgBouncer in transaction pooling mode in front of a private PostgreSQL cluster
// (private-postgres.ts), as managed offerings put one in front of theirs: a few server connections
// shared by every client, each transaction on whichever is free. Started by the test, as the user
// PostgreSQL runs as (PgBouncer refuses to run as root), stopped by it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { freePort, privatePostgresUnavailable, startPrivatePostgres, type PrivatePostgres } from './private-postgres.js';

const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((p) => existsSync(p)) ?? spawnSync('sh', ['-c', 'command -v pgbouncer'], { encoding: 'utf8' }).stdout.trim();

/** Why PgBouncer cannot be started here, or undefined when it can. */
export function pgBouncerUnavailable(): string | undefined {
  return PGBOUNCER ? undefined : 'no pgbouncer: apt-get install pgbouncer (scripts/setup-test.sh does)';
}

export interface PgBouncer {
  /** postgres://postgres@127.0.0.1:<port>/postgres, through PgBouncer. */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts PgBouncer in transaction mode with `serverConnections` server connections per database.
 * The startup parameter `options` (a schema's search_path) is ignored, as PgBouncer cannot keep a
 * session setting in transaction mode: every client works in the cluster's public schema.
 */
export async function startPgBouncer(db: PrivatePostgres, serverConnections = 4): Promise<PgBouncer> {
  const port = await freePort();
  const ini = join(db.dir, 'pgbouncer.ini');
  writeFileSync(join(db.dir, 'users.txt'), '"postgres" ""\n');
  writeFileSync(ini, `[databases]
* = host=127.0.0.1 port=${db.port}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${join(db.dir, 'users.txt')}
pool_mode = transaction
default_pool_size = ${serverConnections}
max_client_conn = 500
ignore_startup_parameters = extra_float_digits, options
logfile = ${join(db.dir, 'pgbouncer.log')}
pidfile = ${join(db.dir, 'pgbouncer.pid')}
`);
  if (process.getuid?.() === 0) spawnSync('chown', ['postgres', ini, join(db.dir, 'users.txt')]);
  const child: ChildProcess = spawn(...db.command(PGBOUNCER, [ini]), { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; ; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (up) break;
    if (child.exitCode !== null || i > 200) throw new Error(`PgBouncer did not start; see ${join(db.dir, 'pgbouncer.log')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        // PgBouncer's own pid (as root, the child is runuser): SIGINT is its safe shutdown.
        process.kill(Number(readFileSync(join(db.dir, 'pgbouncer.pid'), 'utf8').trim()), 'SIGINT');
        await exited;
      }
    },
  };
}

/**
 * Points this test file's suites (their stores read TEST_DATABASE_URL: test/harness.ts) at a
 * PgBouncer in transaction mode in front of a private cluster, with named statements off as an
 * operator would set them, and gives the shared database back after the file; its address (with
 * named statements on). `skip`: why it cannot, when PostgreSQL's or PgBouncer's programs are
 * missing (the file's suites then skip).
 */
export async function suitesThroughPgBouncer(): Promise<{ skip?: string; bouncerUrl?: string }> {
  const skip = privatePostgresUnavailable() ?? pgBouncerUnavailable();
  if (skip) return { skip };
  const db = await startPrivatePostgres();
  const bouncer = await startPgBouncer(db);
  const sharedUrl = process.env.TEST_DATABASE_URL;
  process.env.TEST_DATABASE_URL = `${bouncer.url}?prepared_statements=false`;
  afterAll(async () => {
    // A file that runs after this one in the same process finds the shared database again.
    if (sharedUrl === undefined) delete process.env.TEST_DATABASE_URL;
    else process.env.TEST_DATABASE_URL = sharedUrl;
    await bouncer.close();
    await db.close();
  });
  return { bouncerUrl: bouncer.url };
}
