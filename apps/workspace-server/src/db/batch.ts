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

/** What a batcher has sent so far, and what waits in it now (tests and benchmarks read them). */
export interface BatchCounts {
  /** Statements that carried several items, and those items. */
  batches: number;
  batched: number;
  readonly waiting: number;
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
export class StatementBatcher<I, R> implements BatchCounts {
  private queue: Waiting<I, R>[] = [];
  private claiming = false;
  batches = 0;
  batched = 0;

  constructor(
    private readonly db: Db,
    private readonly plan: BatchPlan<I, R>,
  ) {}

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
    this.db
      .pool!.withConnection(async (c) => {
        got = true;
        this.claiming = false;
        const taken = this.take();
        // What is left (more than max, or a key already taken) claims the next connection now.
        this.claim();
        await sendBatch(this.plan, this, c, taken);
      })
      .catch((e) => {
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
}

/**
 * Sends each key's items at most `inFlight` statements at a time (docs/store.md, "A busy
 * workspace's creations in one statement"): an item whose key has fewer statements under way
 * claims a connection, and the claim carries every item of that key gathered by the time it gets
 * one (up to `max`), so one that arrives while the pool is free goes at once and alone, and those
 * that arrive while its key's statements run go together as the next, whether or not the pool is
 * saturated. For items of one key that would queue behind each other anyway (a workspace's writes,
 * which hold its rate-limit window's row until they commit); such a plan's `min` is best 2, as two
 * items in one statement wait for one commit where two statements one after the other wait for two.
 */
export class LaneBatcher<I, R> implements BatchCounts {
  private lanes = new Map<string, { queue: Waiting<I, R>[]; claims: number }>();
  batches = 0;
  batched = 0;

  constructor(
    private readonly db: Db,
    private readonly plan: BatchPlan<I, R> & { inFlight: number },
  ) {}

  run(key: string, item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let lane = this.lanes.get(key);
      if (!lane) this.lanes.set(key, (lane = { queue: [], claims: 0 }));
      lane.queue.push({ item, resolve, reject });
      if (lane.claims < this.plan.inFlight) this.claim(key, lane);
    });
  }

  get waiting(): number {
    let n = 0;
    for (const lane of this.lanes.values()) n += lane.queue.length;
    return n;
  }

  private claim(key: string, lane: { queue: Waiting<I, R>[]; claims: number }): void {
    lane.claims++;
    let taken: Waiting<I, R>[] = [];
    this.db
      .pool!.withConnection(async (c) => {
        taken = lane.queue.splice(0, this.plan.max);
        if (taken.length > 0) await sendBatch(this.plan, this, c, taken);
      })
      .catch((e) => {
        // No connection (the database is down): what waits fails as its statement would have.
        for (const w of [...taken, ...lane.queue.splice(0)]) w.reject(e);
      })
      .finally(() => {
        lane.claims--;
        // What gathered while this statement ran claims a connection again, behind the pool's other
        // waiters: a busy workspace does not keep connections to itself.
        if (lane.queue.length > 0) this.claim(key, lane);
        else if (lane.claims === 0) this.lanes.delete(key);
      });
  }
}

/**
 * Sends `taken` on `c`: as one statement when there are at least `plan.min`, each item its own
 * answer; one by one when fewer, or when that statement fails (none of it was committed, so each
 * item is sent again alone and gets its own answer or error).
 */
async function sendBatch<I, R>(plan: BatchPlan<I, R>, counts: BatchCounts, c: Queryable, taken: Waiting<I, R>[]): Promise<void> {
  if (taken.length >= plan.min) {
    let answers: R[] | undefined;
    try {
      answers = await plan.many(
        c,
        taken.map((w) => w.item),
      );
    } catch {
      // The statement failed, so none of it was committed: sent again one by one below, each
      // item its own answer or error.
    }
    if (answers) {
      counts.batches++;
      counts.batched += taken.length;
      const wrong = answers.length !== taken.length ? new Error(`a batch of ${taken.length} answered ${answers.length}`) : undefined;
      taken.forEach((w, i) => (wrong ? w.reject(wrong) : w.resolve(answers[i])));
      return;
    }
  }
  for (const w of taken) {
    try {
      w.resolve(await plan.one(c, w.item));
    } catch (e) {
      w.reject(e);
    }
  }
}

// Each store's batchers, made on first use by the statements that batch (modules/contacts/list.ts's
// first pages, modules/contacts/create.ts's creations), and whether the store batches at all.

/** Per store: whether requests are batched (on unless turned off), and its batchers by the shape of what they send. */
const batching = new WeakMap<object, boolean>();
const batchers = new WeakMap<object, Map<string, BatchCounts>>();
/**
 * A batch of two costs PostgreSQL more than two statements, one of four less than four (docs/store.md,
 * "Batching requests"); sixteen is the largest measured (0.38× the PostgreSQL CPU per page; a
 * creation 0.39×, "Batching creations").
 */
export const BATCH = { min: 4, max: 16 };

/**
 * The store's batcher for statements of `shape`, made by `make` on first use, or undefined when
 * the store cannot batch (PGlite, a transaction: no pool) or batching is turned off.
 */
export function batcherOf<B extends BatchCounts>(db: Queryable, shape: string, make: (store: Db) => B): B | undefined {
  if (!batches(db)) return undefined;
  let byShape = batchers.get(db);
  if (!byShape) batchers.set(db, (byShape = new Map<string, BatchCounts>()));
  let b = byShape.get(shape) as B | undefined;
  if (!b) byShape.set(shape, (b = make(db as Db)));
  return b;
}

/** Whether a store batches lists and creations: it has a pool (not a transaction) and batching is not turned off. */
export function batches(db: Queryable): boolean {
  return (db as Partial<Db>).pool !== undefined && batching.get(db) !== false;
}

/** Turns batching of lists and creations on or off for a store (`serve --no-batching`; a benchmark compares the two). */
export function setBatching(db: Queryable, on: boolean): void {
  batching.set(db, on);
}

/** Batched statements of a store so far (lists and creations), the requests they carried, and those waiting now. */
export function batchStats(db: Queryable): { batches: number; batched: number; waiting: number } {
  const out = { batches: 0, batched: 0, waiting: 0 };
  for (const b of batchers.get(db)?.values() ?? []) {
    out.batches += b.batches;
    out.batched += b.batched;
    out.waiting += b.waiting;
  }
  return out;
}
