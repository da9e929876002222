import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/db.js';
import { databaseFault } from '../db/faults.js';
import { ApiError } from '../shared/errors.js';

/** The Retry-After of a 503: a restart takes a few seconds, and a client's backoff grows from here. */
export const RETRY_AFTER_SECONDS = 1;
/** How often the store is asked a trivial statement while it is unavailable, to say when it is back. */
const PROBE_EVERY_MS = 1_000;
/** How long one such statement (and a readiness check's) may take before the store counts as not answering. */
export const CHECK_TIMEOUT_MS = 2_000;

export interface DatabaseFaultOptions {
  /**
   * Told once when the database becomes unavailable and once when it answers again: the operator's
   * log lines, instead of a stack per refused request. Default: the app's logger at warn.
   */
  onState?: (message: string) => void;
}

/**
 * Whether the store answers, as the requests and checks that reached it found: the first database
 * fault says so once, then a trivial statement is asked every second until it answers, which says
 * so once too. Nothing is refused on its word: every request still tries the store, so service
 * resumes the moment it answers.
 */
export class DatabaseAvailability {
  available = true;
  /** When it became unavailable (wall ms), what was said, and requests answered 503 since. */
  private since = 0;
  private refused = 0;
  private probe: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly say: (message: string) => void,
  ) {}

  /** The 503 answering `err` when it is a database fault (noting the store unavailable), else undefined. */
  answer(err: unknown): ApiError | undefined {
    const cause = databaseFault(err);
    if (cause === undefined) return undefined;
    this.unavailable(cause);
    this.refused++;
    // The cause is the operator's (said once in the log), not the client's, as a 500's is.
    return new ApiError(
      503,
      'service_unavailable',
      `The database is unavailable for the moment; retry after ${RETRY_AFTER_SECONDS} s`,
      undefined,
      {
        'Retry-After': String(RETRY_AFTER_SECONDS),
      },
    );
  }

  /**
   * Asks the store a trivial statement, within CHECK_TIMEOUT_MS: undefined when it answered, else
   * why not (a readiness check's reason).
   */
  async check(): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`no answer within ${CHECK_TIMEOUT_MS / 1000} s`), CHECK_TIMEOUT_MS);
    });
    const asked = this.db.query('SELECT 1').then(
      () => undefined,
      (e: unknown) => databaseFault(e) ?? 'the database failed a trivial statement',
    );
    const outcome = await Promise.race([asked, late]).finally(() => clearTimeout(timer));
    if (outcome === undefined) this.answered();
    else this.unavailable(outcome);
    return outcome;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.probe);
  }

  private unavailable(cause: string): void {
    if (!this.available || this.closed) return;
    this.available = false;
    this.since = Date.now();
    this.refused = 0;
    this.say(`database unavailable (${cause}): answering 503 service_unavailable until it answers again`);
    this.schedule();
  }

  private answered(): void {
    if (this.available) return;
    this.available = true;
    clearTimeout(this.probe);
    const seconds = ((Date.now() - this.since) / 1000).toFixed(1);
    this.say(`database available again after ${seconds} s (${this.refused} requests answered 503)`);
  }

  private schedule(): void {
    if (this.closed) return;
    this.probe = setTimeout(() => void this.check().then(() => this.available || this.schedule()), PROBE_EVERY_MS);
    this.probe.unref();
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Whether the store answers (app/db-faults.ts); the error handler answers its faults 503. */
    database: DatabaseAvailability;
  }
}

/**
 * Database faults answered as such (docs/api.md, "When the database is unavailable"): the app's `database` tells the error
 * handler which errors are the database's (503 with Retry-After) and says once when the store
 * becomes unavailable and once when it is back.
 */
export function registerDatabaseFaults(app: FastifyInstance, db: Db, opts: DatabaseFaultOptions = {}): DatabaseAvailability {
  const availability = new DatabaseAvailability(db, opts.onState ?? ((m) => app.log.warn(m)));
  app.decorate('database', availability);
  app.addHook('onClose', async () => availability.close());
  return availability;
}
