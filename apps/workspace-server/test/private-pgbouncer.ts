// Debian's PgBouncer in transaction pooling mode in front of a private PostgreSQL cluster
// (private-postgres.ts), as managed offerings put one in front of theirs: a few server connections
// shared by every client, each transaction on whichever is free. Started by the test, as the user
// PostgreSQL runs as (PgBouncer refuses to run as root), stopped by it: bench/pgbouncer.mjs's
// starter, which the deployment shapes bench runs too.
import { afterAll } from 'vitest';
import { pgBouncerUnavailable, startPgBouncer as startBouncer } from '../bench/pgbouncer.mjs';
import { privatePostgresUnavailable, startPrivatePostgres, type PrivatePostgres } from './private-postgres.js';

export { pgBouncerUnavailable };

export interface PgBouncer {
  /** postgres://postgres@127.0.0.1:<port>/postgres, through PgBouncer. */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts PgBouncer (bench/pgbouncer.mjs) in transaction mode in front of the private cluster, with
 * `serverConnections` server connections per database, its files beside the cluster's. The
 * startup parameter `options` (a schema's search_path) is ignored, as PgBouncer cannot keep a
 * session setting in transaction mode: every client works in the cluster's public schema.
 */
export async function startPgBouncer(db: PrivatePostgres, serverConnections = 4): Promise<PgBouncer> {
  const bouncer = await startBouncer({ databases: [`* = host=127.0.0.1 port=${db.port}`], serverConnections, dir: db.dir });
  return { url: `postgres://postgres@127.0.0.1:${bouncer.port}/postgres`, close: bouncer.close };
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
