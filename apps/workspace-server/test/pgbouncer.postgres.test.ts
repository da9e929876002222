// The server behind Debian's PgBouncer in transaction pooling mode (test/private-pgbouncer.ts, in
// front of a private cluster): why named statements must be off there, and the conformance suite
// through it with them off (prepared_statements=false in the URL, as an operator would set it).
// The webhook suite through it: pgbouncer-webhooks.postgres.test.ts.
import { describe, expect, it } from 'vitest';
import { openStore } from '../src/open-store.js';
import { suitesThroughPgBouncer } from './private-pgbouncer.js';

const { skip, bouncerUrl } = await suitesThroughPgBouncer();
const { defineConformance } = await import('./conformance.js');

describe.skipIf(skip)(`PostgreSQL through PgBouncer in transaction mode${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('needs named statements off: with them on, a statement prepared on one server connection is missing on the next', async () => {
    const store = await openStore({ databaseUrl: bouncerUrl!, poolSize: 6 });
    const failures = new Set<string>();
    try {
      for (let round = 0; round < 20 && failures.size === 0; round++) {
        const sent = Array.from({ length: 12 }, (_, i) => store.db.query('SELECT count(*) FROM workspaces WHERE id <> $1', [`ws_${i}`]));
        for (const r of await Promise.allSettled(sent))
          if (r.status === 'rejected') failures.add(String((r.reason as { code?: string }).code));
      }
    } finally {
      await store.close();
    }
    // 26000: prepared statement does not exist; 42P05: already exists (another client's, on that server connection).
    expect([...failures].every((code) => code === '26000' || code === '42P05') && failures.size > 0, [...failures].join(', ')).toBe(true);
  });

  describe('conformance through PgBouncer (prepared_statements=false)', () => defineConformance('postgres'));
});
