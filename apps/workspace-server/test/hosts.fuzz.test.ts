// Hosts lost and started again, many times over, behind a real HAProxy (hosts-cluster.ts): each
// round SIGKILLs the host holding most of the webhook deliveries in flight while clients write
// through the balancer, checks what hosts.postgres.test.ts checks once (no acknowledged write
// lost, each idempotency key one transaction, the lost host's deliveries sent by the other, once),
// then starts it again under load, and restarts the other as planned (taken out of HAProxy first),
// neither of which may cost a request. `npm run fuzz` runs FUZZ_RUNS /
// 1,000 rounds (10 by default). It runs only there (a round takes about 25 s): `npm test` loses
// one host in hosts.postgres.test.ts.
import { describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from './harness.js';
import { loseAHost, rejoin, restartPlanned, useCluster } from './hosts-cluster.js';
import { haproxyUnavailable } from './hosts.js';

const runs = process.env.FUZZ_RUNS === undefined ? undefined : Number(process.env.FUZZ_RUNS);
if (runs !== undefined && (!Number.isInteger(runs) || runs < 1))
  throw new Error(`FUZZ_RUNS must be a positive integer, got "${process.env.FUZZ_RUNS}"`);
const rounds = Math.max(1, Math.round((runs ?? 0) / 1000));
const skip =
  runs === undefined
    ? 'runs under npm run fuzz (FUZZ_RUNS set); hosts.postgres.test.ts loses one host'
    : !TEST_DATABASE_URL
      ? 'needs TEST_DATABASE_URL'
      : haproxyUnavailable();

describe.skipIf(skip)(`hosts lost and started again behind HAProxy${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const suite = useCluster();

  it(
    `${rounds} round(s): a host lost under load and started again, the other restarted as planned; nothing acknowledged lost, every delivery sent once`,
    async () => {
      const { c, hook } = suite;
      const load = await c.workspace();
      const lost: string[] = [];
      for (let round = 0; round < rounds; round++) {
        const l = await loseAHost(c, hook, load);
        expect(l.resent, 'the lost host had deliveries in flight').toBeGreaterThan(0);
        const back = await rejoin(c, l.victim, load);
        const planned = await restartPlanned(
          c,
          c.hosts.find((h) => h.name === l.survivor.name)!,
          load,
        );
        lost.push(
          `${l.victim.name} (DOWN after ${l.downAfterMs} ms, ${l.unknown} of ${l.requests} unanswered, ${l.resent} deliveries taken over; ${back.requests} requests while it rejoined; ${planned.requests} while ${l.survivor.name} restarted as planned)`,
        );
      }
      console.log(`hosts lost: ${lost.join('; ')}`);
    },
    120_000 + rounds * 60_000,
  );
});
