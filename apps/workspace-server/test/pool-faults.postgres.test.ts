// The PostgreSQL store when the database ends its connections (db/postgres.ts): a backend
// terminated (pg_terminate_backend, as a restart or a failover does to every one) while a
// transaction or a batch holds its client, or while the pool keeps it idle. Each case runs in a
// process of its own, since the fault this guards against ended the process: an 'error' event of
// a checked-out client that nothing listened to.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL, uniqueSchema } from './harness.js';

const dist = fileURLToPath(new URL('../dist/db/', import.meta.url));

/**
 * Runs `body` in a fresh Node process with `db` (the store on a schema of its own, table t(v)), `admin`
 * (another connection, which terminates backends), `pidOf(q)` and `wait(ms)`; resolves with its exit
 * code and what it printed.
 */
function inProcess(body: string): Promise<{ code: number | null; out: string; err: string }> {
  const url = `${TEST_DATABASE_URL}${TEST_DATABASE_URL!.includes('?') ? '&' : '?'}application_name=${uniqueSchema('pool')}`;
  const script = `
    const { openPostgres } = await import(${JSON.stringify(`${dist}postgres.js`)});
    const { databaseFault } = await import(${JSON.stringify(`${dist}faults.js`)});
    const pg = (await import('pg')).default;
    const url = ${JSON.stringify(url)};
    const db = await openPostgres({ connectionString: url, schema: ${JSON.stringify(uniqueSchema('pool'))}, max: 3 });
    const admin = new pg.Client(${JSON.stringify(TEST_DATABASE_URL)});
    await admin.connect();
    await db.query('CREATE TABLE t (v text)');
    const wait = (ms) => new Promise((r) => setTimeout(r, ms));
    const pidOf = async (q) => (await q.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const terminate = (pid) => admin.query('SELECT pg_terminate_backend($1)', [pid]);
    const outcome = (p) => p.then(() => 'resolved', (e) => databaseFault(e) ? 'fault' : 'other: ' + e.message);
    const rows = async () => (await db.query('SELECT v FROM t ORDER BY v')).rows.map((r) => r.v);
    ${body}
    await wait(300); // the broken socket's 'end' comes after the statement's error
    console.log(JSON.stringify({ after: (await db.query('SELECT 1 AS one')).rows[0].one, rows: await rows() }));
    await admin.end();
    await db.close();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
}

/** The lines a case printed, parsed. */
const said = (out: string) =>
  out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe.skipIf(!TEST_DATABASE_URL)(
  `the PostgreSQL store when the database ends its connections${TEST_DATABASE_URL ? '' : ' (skipped: needs TEST_DATABASE_URL)'}`,
  () => {
    if (!existsSync(`${dist}postgres.js`))
      throw new Error('apps/workspace-server/dist is missing: run `npx tsc -b apps/workspace-server` first');

    it('a transaction whose backend is terminated during a statement fails as a fault, writes nothing, and the process lives on', async () => {
      const r = await inProcess(`
      const tx = db.transaction(async (q) => {
        await q.query("INSERT INTO t VALUES ('mid-statement')");
        const pid = await pidOf(q);
        setTimeout(() => terminate(pid), 100);
        await q.query('SELECT pg_sleep(2)');
      });
      console.log(JSON.stringify({ tx: await outcome(tx) }));`);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(said(r.out)).toEqual([{ tx: 'fault' }, { after: 1, rows: [] }]);
    });

    it('a transaction whose backend is terminated between two statements fails as a fault and writes nothing', async () => {
      const r = await inProcess(`
      const tx = db.transaction(async (q) => {
        await q.query("INSERT INTO t VALUES ('between')");
        await terminate(await pidOf(q));
        await wait(200);
        await q.query("INSERT INTO t VALUES ('after')");
      });
      console.log(JSON.stringify({ tx: await outcome(tx) }));`);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(said(r.out)).toEqual([{ tx: 'fault' }, { after: 1, rows: [] }]);
    });

    it('a batch holding a connection whose backend is terminated fails as a fault, and the pool serves again', async () => {
      const r = await inProcess(`
      const held = db.pool.withConnection(async (q) => {
        await terminate(await pidOf(q));
        await wait(200);
        await q.query('SELECT 1');
      });
      console.log(JSON.stringify({ batch: await outcome(held) }));`);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(said(r.out)).toEqual([{ batch: 'fault' }, { after: 1, rows: [] }]);
    });

    it('idle connections terminated all at once are replaced: the next statements answer', async () => {
      const r = await inProcess(`
      await db.pool.open();
      const before = db.pool.usage();
      const killed = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [new URL(url).searchParams.get('application_name')]);
      await wait(300);
      const answers = await Promise.all([1, 2, 3, 4].map(() => outcome(db.query('SELECT 1'))));
      console.log(JSON.stringify({ open: before.open, terminated: killed.rows.length, answers }));`);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(said(r.out)).toEqual([
        { open: 3, terminated: 3, answers: ['resolved', 'resolved', 'resolved', 'resolved'] },
        { after: 1, rows: [] },
      ]);
    });
  },
);
