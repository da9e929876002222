// The server process while its PostgreSQL is restarted, crashed and killed under load: a private
// cluster (private-postgres.ts), stopped cleanly (what `pg_ctlcluster restart` does), with
// SIGQUIT (an immediate stop: recovery at start) and with SIGKILL, each for a moment while clients
// create, change, delete and list contacts. After every fault: no 500 and no dropped connection,
// each refused request a 503 with Retry-After that wrote nothing, every acknowledged write there
// whole, the process alive and ready again, and its log saying once that the database was gone and
// once that it was back. One round of the three in `npm test`; `npm run fuzz` runs FUZZ_RUNS / 1,000
// rounds (10 by default), the exit once seen in seven restarts being what it looks for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAnswers, drive, faultWorkspace, untilReady, type Answer } from './fault-load.js';
import { ADMIN_TOKEN, startServerProcess, TEST_DATABASE_URL, type ServerProcess } from './harness.js';
import { privatePostgresUnavailable, startPrivatePostgres, type PrivatePostgres } from './private-postgres.js';

const skip = !TEST_DATABASE_URL ? 'needs TEST_DATABASE_URL' : privatePostgresUnavailable();
// FUZZ_RUNS as every fuzz suite reads it; there is no seed: what varies between runs is timing.
const runs = process.env.FUZZ_RUNS === undefined ? 1000 : Number(process.env.FUZZ_RUNS);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`FUZZ_RUNS must be a positive integer, got "${process.env.FUZZ_RUNS}"`);
const rounds = Math.max(1, Math.round(runs / 1000));
const FAULTS = ['fast', 'immediate', 'kill'] as const;
/** How long the database stays down, and how long the load runs before and after. */
const DOWN_MS = 600;
const AROUND_MS = 300;

describe.skipIf(skip)(`the server while PostgreSQL restarts, crashes and is killed under load${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let db: PrivatePostgres;
  let p: ServerProcess;
  let stderr = '';
  beforeAll(async () => {
    db = await startPrivatePostgres();
    p = await startServerProcess(['--no-editor', '--pool-size', '4'], { ADMIN_TOKEN, DATABASE_URL: db.url });
    p.child.stderr!.on('data', (d) => (stderr += d));
  });
  afterAll(async () => {
    p?.child.kill('SIGTERM');
    await p?.exited;
    await db?.close();
  });

  const said = (what: RegExp) => stderr.split('\n').filter((l) => what.test(l)).length;

  it(
    `${rounds} round(s) of ${FAULTS.join(', ')}: only 2xx and 503, nothing acknowledged lost, nothing refused written, the process alive`,
    async () => {
      const c = await faultWorkspace(p.base);
      const all: Answer[] = [];
      for (let round = 0; round < rounds; round++) {
        for (const fault of FAULTS) {
          const [gone, back] = [said(/database unavailable/), said(/database available again/)];
          let done = false;
          const load = drive(c, 4, () => done);
          await new Promise((r) => setTimeout(r, AROUND_MS));
          await db.stop(fault);
          await new Promise((r) => setTimeout(r, DOWN_MS));
          await db.start();
          await untilReady(p.base);
          await new Promise((r) => setTimeout(r, AROUND_MS));
          done = true;
          const answers = await load;
          all.push(...answers);
          expect(p.child.exitCode, `the server process lives on after ${fault}`).toBe(null);
          expect(
            answers.some((a) => a.status === 503),
            `requests during ${fault} were answered 503`,
          ).toBe(true);
          // Said once each way: the line when it went, and the line when the probe found it back.
          for (let i = 0; i < 50 && said(/database available again/) === back; i++) await new Promise((r) => setTimeout(r, 100));
          expect([said(/database unavailable/) - gone, said(/database available again/) - back], `log lines of ${fault}`).toEqual([1, 1]);
          await checkAnswers(all, db.url);
        }
      }
      expect(stderr).not.toMatch(/\n\s+at /); // no stack traces
      console.log(
        `database faults: ${rounds * FAULTS.length} under ${all.length} requests, ${all.filter((a) => a.status === 503).length} answered 503`,
      );
    },
    60_000 + rounds * FAULTS.length * 20_000,
  );
});
