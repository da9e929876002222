import type { Db, Queryable } from './db.js';

/** How a batcher sends its items: one by one, or several in one statement. */
export interface BatchPlan<I, R> {
  /** The fewest waiting items worth one statement; fewer are sent one by one. */
  min: number;
  /** The most items one statement carries. */
  max: number;
  /**
   * Items of one key never share a statement (an upsert cannot touch one row twice in a
   * statement): a second waits for the next one. Without it, any items may share one.
   */
  key?(item: I): string;
  one(c: Queryable, item: I): Promise<R>;
  /** The answers of `items`, in their order; a failure sends each item again on its own. */
  many(c: Queryable, items: I[]): Promise<R[]>;
}

interface Waiting<I, R> {
  item: I;
  resolve(r: R): void;
  reject(e: unknown): void;
}

/**
 * Sends the statements of requests that wait for a connection as one statement (docs/store.md,
 * "Batching lists"). While the pool has a free connection an item is sent on its own, at once:
 * below saturation nothing changes. Once statements queue for the pool, items wait here instead,
 * behind a single claim on the pool's queue; the connection that claim gets carries every item
 * that gathered meanwhile (up to `max`, distinct keys) in one statement, or one by one when fewer
 * than `min` gathered (a statement of two costs more than two statements). Each item gets its own
 * answer or error: when the batch's statement fails, nothing of it was committed, and each item is
 * sent again alone.
 */
export class StatementBatcher<I, R> {
  private queue: Waiting<I, R>[] = [];
  private claiming = false;
  /** Statements that carried several items, and those items (tests and benchmarks read them). */
  batches = 0;
  batched = 0;

  constructor(private readonly db: Db, private readonly plan: BatchPlan<I, R>) {}

  run(item: I): Promise<R> {
    const pool = this.db.pool;
    if (!pool || (this.queue.length === 0 && !pool.saturated())) return this.plan.one(this.db, item);
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.claim();
    });
  }

  /** Items waiting here for a connection. */
  get waiting(): number {
    return this.queue.length;
  }

  private claim(): void {
    if (this.claiming || this.queue.length === 0) return;
    this.claiming = true;
    let got = false;
    this.db.pool!.withConnection(async (c) => {
      got = true;
      this.claiming = false;
      const taken = this.take();
      // What is left (more than max, or a key already taken) claims the next connection now.
      this.claim();
      await this.send(c, taken);
    }).catch((e) => {
      if (got) return; // send() settles every item it took
      // No connection (the database is down): every waiting item fails as its statement would have.
      this.claiming = false;
      for (const w of this.queue.splice(0)) w.reject(e);
    });
  }

  private take(): Waiting<I, R>[] {
    const keys = new Set<string>();
    const taken: Waiting<I, R>[] = [];
    const left: Waiting<I, R>[] = [];
    for (const w of this.queue) {
      const k = this.plan.key?.(w.item);
      if (taken.length < this.plan.max && (k === undefined || !keys.has(k))) {
        if (k !== undefined) keys.add(k);
        taken.push(w);
      } else left.push(w);
    }
    this.queue = left;
    return taken;
  }

  private async send(c: Queryable, taken: Waiting<I, R>[]): Promise<void> {
    if (taken.length >= this.plan.min) {
      let answers: R[] | undefined;
      try {
        answers = await this.plan.many(c, taken.map((w) => w.item));
      } catch {
        // The statement failed, so none of it was committed: sent again one by one below, each
        // item its own answer or error.
      }
      if (answers) {
        this.batches++;
        this.batched += taken.length;
        const wrong = answers.length !== taken.length ? new Error(`a batch of ${taken.length} answered ${answers.length}`) : undefined;
        taken.forEach((w, i) => (wrong ? w.reject(wrong) : w.resolve(answers![i])));
        return;
      }
    }
    for (const w of taken) {
      try {
        w.resolve(await this.plan.one(c, w.item));
      } catch (e) {
        w.reject(e);
      }
    }
  }
}
