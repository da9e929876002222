// The webhook suite behind Debian's PgBouncer in transaction pooling mode, named statements off
// (pgbouncer.postgres.test.ts says why): the delivery queue's claims, leases and recordings hold
// when each transaction may run on another server connection.
import { describe } from 'vitest';
import { suitesThroughPgBouncer } from './private-pgbouncer.js';

const { skip } = await suitesThroughPgBouncer();
const { defineWebhookSuite } = await import('./webhooks.js');

describe.skipIf(skip)(`webhooks through PgBouncer in transaction mode${skip ? ` (skipped: ${skip})` : ''}`, () =>
  defineWebhookSuite('postgres', { throughPooler: true }),
);
