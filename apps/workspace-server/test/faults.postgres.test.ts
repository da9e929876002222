// The server process when PostgreSQL ends its connections under load (pg_terminate_backend of every
// backend the server holds, as a restart or a failover does): no 500 and no dropped connection,
// every refused request a 503 with Retry-After that wrote nothing, every acknowledged write kept
// whole, and the process serving on. On the shared test database: only this server's backends are
// ended (its own application_name). Restarts, crashes and kills of a private cluster:
// faults.fuzz.test.ts.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAnswers, drive, faultWorkspace, untilReady } from './fault-load.js';
import { ADMIN_TOKEN, startServerProcess, TEST_DATABASE_URL, uniqueSchema, type ServerProcess } from './harness.js';

describe.skipIf(!TEST_DATABASE_URL)(
  `the server when PostgreSQL ends its connections under load${TEST_DATABASE_URL ? '' : ' (skipped: needs TEST_DATABASE_URL)'}`,
  () => {
    const schema = uniqueSchema('faults');
    const app = uniqueSchema('faults_app');
    let admin: pg.Client;
    let p: ServerProcess;
    beforeAll(async () => {
      admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`CREATE SCHEMA "${schema}"`);
      const url = new URL(TEST_DATABASE_URL!);
      url.searchParams.set('options', `-c search_path=${schema},public`);
      url.searchParams.set('application_name', app);
      p = await startServerProcess(['--no-editor', '--pool-size', '4'], { ADMIN_TOKEN, DATABASE_URL: url.toString() });
    });
    afterAll(async () => {
      p?.child.kill('SIGTERM');
      await p?.exited;
      await admin?.end();
    });

    it('answers 503 or succeeds, loses no acknowledged write, writes nothing it refused, and lives on', async () => {
      const c = await faultWorkspace(p.base);
      let done = false;
      const load = drive(c, 4, () => done);
      let ended = 0;
      for (let round = 0; round < 8; round++) {
        await new Promise((r) => setTimeout(r, 250));
        const { rows } = await admin.query('SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = $1', [
          app,
        ]);
        ended += rows.filter((r) => r.ended).length;
      }
      await new Promise((r) => setTimeout(r, 250));
      done = true;
      const answers = await load;
      // The faults were real: the server's backends were ended while it served.
      expect(ended).toBeGreaterThanOrEqual(8);
      expect(answers.filter((a) => a.status === 201).length).toBeGreaterThan(0);
      expect(p.child.exitCode).toBe(null);
      await untilReady(p.base);
      await checkAnswers(answers, TEST_DATABASE_URL!, schema);
      console.log(
        `faults: ${ended} backends ended under ${answers.length} requests, ${answers.filter((a) => a.status === 503).length} answered 503`,
      );
    });
  },
);
