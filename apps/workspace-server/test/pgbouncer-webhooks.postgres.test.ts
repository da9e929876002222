// The webhook suite behind Debian's PgBouncer in transaction pooling mode, named statements off
// (pgbouncer.postgres.test.ts says why): the delivery queue's claims, leases and recordings hold
// when each transaction may run on another server connection.
import { afterAll, describe } from 'vitest';
import { pgBouncerUnavailable, startPgBouncer, type PgBouncer } from './private-pgbouncer.js';
import { privatePostgresUnavailable, startPrivatePostgres, type PrivatePostgres } from './private-postgres.js';

const skip = privatePostgresUnavailable() ?? pgBouncerUnavailable();
let db: PrivatePostgres | undefined;
let bouncer: PgBouncer | undefined;
const sharedUrl = process.env.TEST_DATABASE_URL;
if (!skip) {
  db = await startPrivatePostgres();
  bouncer = await startPgBouncer(db);
  process.env.TEST_DATABASE_URL = `${bouncer.url}?prepared_statements=false`;
}
afterAll(async () => {
  // A file that runs after this one in the same process finds the shared database again.
  if (sharedUrl === undefined) delete process.env.TEST_DATABASE_URL;
  else process.env.TEST_DATABASE_URL = sharedUrl;
  await bouncer?.close();
  await db?.close();
});
const { defineWebhookSuite } = await import('./webhooks.js');

describe.skipIf(skip)(`webhooks through PgBouncer in transaction mode${skip ? ` (skipped: ${skip})` : ''}`, () => defineWebhookSuite('postgres', { throughPooler: true }));
