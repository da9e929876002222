// A throwaway PostgreSQL cluster of a test's own (initdb and postgres from the PostgreSQL server
// package, on a free port, in a temporary directory), to stop, crash and kill under a server
// without touching the cluster other test runs share. PostgreSQL refuses to run as root: as root,
// it runs as the `postgres` user the Debian package creates. The postmaster is this process's
// child (not daemonized by pg_ctl), so it is reaped however it ends: a container whose init does
// not reap would otherwise keep a killed postmaster as a zombie, whose pid in postmaster.pid
// still answers and makes the next start refuse.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../bench/free-port.mjs';

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication on loopback). */
  url: string;
  port: number;
  /** Its temporary directory (the postgres user's, as root); a PgBouncer in front keeps its files there too. */
  dir: string;
  /** How to run one of its programs, or another, as the user PostgreSQL runs as: [command, arguments]. */
  command(program: string, args: string[]): [string, string[]];
  /**
   * Stops the postmaster and waits for it to exit: `fast` is a clean shutdown (what a restart
   * does; SIGINT), `immediate` a crash (SIGQUIT: recovery at the next start), `kill` SIGKILL (the
   * OOM killer; its backends are killed too, as they would be, and it recovers at the next start).
   */
  stop(how: 'fast' | 'immediate' | 'kill'): Promise<void>;
  /** Starts the postmaster and waits until it accepts connections. */
  start(): Promise<void>;
  /** Stops it if running and removes its directory. */
  close(): Promise<void>;
}

/** The PostgreSQL server binaries: the newest under /usr/lib/postgresql, or pg_config's. */
function binDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length) return join(root, versions[0], 'bin');
  }
  const r = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const dir = r.status === 0 ? r.stdout.trim() : '';
  return dir && existsSync(join(dir, 'postgres')) ? dir : undefined;
}

/** Why a private cluster cannot be started here, or undefined when it can. */
export function privatePostgresUnavailable(): string | undefined {
  if (!binDir()) return 'no PostgreSQL server binaries (initdb, postgres): apt-get install postgresql';
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0)
    return 'running as root with no postgres user to run PostgreSQL as';
  return undefined;
}

export { freePort };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir()!;
  const asRoot = process.getuid?.() === 0;
  // As root, under /tmp: every parent of the directory must be open to the postgres user.
  const dir = mkdtempSync(join(asRoot ? '/tmp' : (process.env.TMPDIR ?? '/tmp'), 'private-pg-'));
  const data = join(dir, 'data');
  const command = (program: string, args: string[]): [string, string[]] => {
    const path = program.startsWith('/') ? program : join(bin, program);
    return asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
  };
  if (asRoot) {
    execFileSync('chown', ['postgres', dir]);
    chmodSync(dir, 0o700);
  }
  execFileSync(...command('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']), { stdio: 'ignore' });
  const port = await freePort();
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  /** The postmaster's own pid (under runuser, the child is runuser). */
  const postmasterPid = () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const ready = () => spawnSync(join(bin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port)]).status === 0;
  const db: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    command,
    async start() {
      // No fsync: a throwaway cluster; an immediate stop and a SIGKILL still make it recover at start.
      child = spawn(
        ...command('postgres', [
          '-D',
          data,
          '-p',
          String(port),
          '-k',
          dir,
          '-c',
          'listen_addresses=127.0.0.1',
          '-c',
          'fsync=off',
          '-c',
          'max_connections=60',
        ]),
        { stdio: 'ignore' },
      );
      const c = child;
      exited = new Promise((resolve) => c.once('exit', () => resolve()));
      for (let i = 0; i < 600 && !ready(); i++) {
        if (c.exitCode !== null || c.signalCode !== null)
          throw new Error(`PostgreSQL did not start (exit ${c.exitCode ?? c.signalCode}); see ${dir}`);
        await sleep(50);
      }
      if (!ready()) throw new Error('PostgreSQL did not accept connections within 30 s');
    },
    async stop(how) {
      const pid = postmasterPid();
      const backends =
        how === 'kill'
          ? spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
              .stdout.split('\n')
              .filter(Boolean)
              .map(Number)
          : [];
      process.kill(pid, how === 'fast' ? 'SIGINT' : how === 'immediate' ? 'SIGQUIT' : 'SIGKILL');
      for (const b of backends) {
        try {
          process.kill(b, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      await exited;
      child = undefined;
    },
    async close() {
      if (child && child.exitCode === null && child.signalCode === null) await db.stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await db.start();
  return db;
}
