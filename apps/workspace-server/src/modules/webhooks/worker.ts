import { randomBytes } from 'node:crypto';
import type { Clock } from '../../shared/clock.js';
import type { Db } from '../../db/db.js';
import { badRequest } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { ACK_TIMEOUT_MS } from './backoff.js';
import { postWebhook, type SendResult } from './sender.js';
import { signatureHeader } from './signing.js';
import type { GuardPolicy } from './ssrf.js';
import {
  claimDue,
  DEFAULT_CONCURRENCY,
  DEFAULT_PER_ENDPOINT,
  endpointKey,
  enqueueDirect,
  fanOut,
  heldBack,
  markVerified,
  pruneBefore,
  reclaimExpired,
  recordAttempt,
  recordOneShot,
  recordSuccesses,
  type ClaimedDelivery,
  type EventRecord,
  type SuccessRecord,
  type WebhookEndpoint,
} from './store.js';

export interface WebhookOptions {
  /** --allow-insecure-webhooks: http:// and loopback receivers (local development). */
  allowInsecure?: boolean;
  /** Acknowledgement timeout; the spec's 10 s unless a test shortens it. */
  timeoutMs?: number;
  /** How long a claimed attempt stays with this server before another may take it over. Default timeout + 5 s, at least timeout + 1 s. */
  leaseMs?: number;
  /** Idle poll interval of the background loop, real milliseconds; 0 runs no loop (tests call drain()). */
  pollMs?: number;
  /** Attempts in flight at once per server (default DEFAULT_CONCURRENCY). */
  concurrency?: number;
  /** Attempts one endpoint may have in flight at once, across every server (default DEFAULT_PER_ENDPOINT): a slow receiver cannot starve the others. */
  perEndpoint?: number;
  /** Called after every attempt (tests, benchmarks). */
  onAttempt?: (d: ClaimedDelivery, r: SendResult) => void;
  /**
   * Days to keep events and finished deliveries (docs/events.md, Retention); 0 keeps them for
   * ever. Default 30. The background loop prunes a minute after start, then hourly.
   */
  retentionDays?: number;
  /**
   * How long events may wait behind an older open transaction before `onWarning` is told (and
   * told again when they flow); default 30 s. The loop looks every HELD_CHECK_MS.
   */
  heldWarnMs?: number;
  /** Where the worker's warnings go (buildServer: the server's log at warn; `serve`: stderr). */
  onWarning?: (message: string) => void;
}

const DAY_MS = 86_400_000;
/** How often the loop asks whether events wait behind an older transaction (heldBack). */
const HELD_CHECK_MS = 5_000;
const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_FIRST_AFTER_MS = 60_000;
/**
 * The shortest time between two fan-outs a write's nudge asks for. Under a stream of writes every
 * response nudges; one fan-out every few milliseconds takes all the events written meanwhile, where
 * fanning out at each nudge cost a statement or two per write (docs/events.md, Limits).
 */
export const FANOUT_GAP_MS = 10;

/**
 * Recording an attempt's outcome is one transaction that is safe to run again (it settles only an
 * attempt still held, and logs it once): a transient failure — a deadlock, a dropped connection —
 * is retried twice before the delivery is left to run out its lease and be sent again.
 */
const seconds = (s: number) => (s < 120 ? `${Math.round(s)} s` : `${Math.round(s / 60)} min`);

async function retried<T>(write: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await write();
    } catch (e) {
      if (process.env.WEBHOOK_DEBUG) console.error('recording an attempt failed', e);
      if (tries >= 3) throw e;
      await new Promise((r) => setTimeout(r, 10 * tries));
    }
  }
}

/**
 * The delivery worker: fans the outbox out to endpoints, claims due attempts from the queue in the
 * database, sends them, records the outcome. Every schedule reads the injectable clock; real time
 * only bounds one HTTP exchange and the idle poll.
 */
export class WebhookWorker {
  readonly policy: GuardPolicy;
  readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly inflight = new Set<Promise<void>>();
  /** Outcomes being written; a slot frees when the HTTP exchange ends, the write follows behind. */
  private readonly recording = new Set<Promise<void>>();
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private nudged = false;
  /** Deliveries were queued or made due outside the fan-out (deliveriesDue): claim at once. */
  private due = false;
  /** An outcome was recorded since the last claim: its endpoint has a slot free in the database. */
  private freed = false;
  private lastFanOut = 0;
  /** When the loop last claimed (wall ms): it claims at least once a poll, whatever it skips between. */
  private lastClaim = 0;
  /** This process's attempts claimed and not yet recorded, by endpoint: the database counts them against its share. */
  private readonly unrecorded = new Map<string, number>();
  private lastReclaim = 0;
  private lastPrune = 0;
  private held = false;
  private lastHeldCheck = 0;
  /** The first held event and since when (wall ms) this worker has seen it held. */
  private heldHead: { eventId: string; since: number } | undefined;
  private reportedHeld = false;
  private readonly retentionMs: number;
  private successes: { item: SuccessRecord; done: () => void }[] = [];
  /** Slots a claim under way has asked for: the loop's and a recording's claim may overlap. */
  private claiming = 0;
  private flushing: Promise<void> | null = null;
  /** Recording statements sent so far; `skippedAt`: how many had been sent when the loop last left a fan-out's deliveries to them. */
  private recordingsSent = 0;
  private skippedAt = -1;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly opts: WebhookOptions = {},
  ) {
    this.policy = { allowInsecure: !!opts.allowInsecure };
    this.timeoutMs = opts.timeoutMs ?? ACK_TIMEOUT_MS;
    // A lease shorter than the timeout would let another round resend an attempt still in flight.
    this.leaseMs = Math.max(opts.leaseMs ?? this.timeoutMs + 5_000, this.timeoutMs + 1_000);
    this.pollMs = opts.pollMs ?? 200;
    this.concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
    const days = opts.retentionDays ?? 30;
    if (!(Number.isFinite(days) && days >= 0)) throw new Error(`retentionDays must be a number of days, 0 or more (got ${days})`);
    this.retentionMs = days * DAY_MS;
  }

  /**
   * Deletes events and finished deliveries older than the retention period (measured on the
   * injectable clock); nothing when retention is 0. The loop calls it hourly; tests call it.
   */
  async prune(): Promise<{ deliveries: number; events: number }> {
    if (this.retentionMs === 0) return { deliveries: 0, events: 0 };
    return pruneBefore(this.db, new Date(this.clock.now().getTime() - this.retentionMs));
  }

  start(): void {
    if (this.running || this.pollMs <= 0) return;
    this.running = true;
    // The first pruning waits a minute, so start-up (and short-lived servers) do no maintenance.
    this.lastPrune = Date.now() - PRUNE_EVERY_MS + PRUNE_FIRST_AFTER_MS;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await Promise.allSettled([...this.inflight]);
    await Promise.allSettled([...this.recording]);
  }

  /** Fan-outs this worker has run (each a read of the outbox, and a write when it found events). */
  fanOuts = 0;
  /** Attempts this worker has sent, by outcome: acknowledged (2xx) or failed (anything else, or no answer). */
  readonly attempts = { succeeded: 0, failed: 0 };

  /**
   * Where a write's nudge goes instead of this worker's own fan-out, when another process fans out
   * for it (`serve --workers`: docs/store.md, "One fan-out per cluster"); this worker then fans out
   * only at its poll, and still claims and sends. Unset, it fans out on its own writes' nudges.
   */
  relayNudges: (() => void) | undefined;

  /**
   * A write just committed: look at the outbox soon (within FANOUT_GAP_MS of the last look) rather
   * than at the next poll; or, relaying, have the process that fans out look.
   */
  nudge(): void {
    if (this.relayNudges) return this.relayNudges();
    this.nudgeHere();
  }

  /** A nudge for this worker's own fan-out, whether its own write's or relayed from another process. */
  nudgeHere(): void {
    if (this.nudged) return;
    this.nudged = true;
    this.wake?.();
  }

  /**
   * Deliveries were queued or made due without the outbox (send test, replay, re-enable): claim at
   * once rather than at the next poll.
   */
  deliveriesDue(): void {
    this.due = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      let n = 0;
      try {
        n = await this.pump(false);
      } catch {
        // A failed poll (database restarting) is retried at the next one.
      }
      if (!this.running) break;
      // Claim in batches: wait for half the slots to free up rather than one query per completion.
      if (this.inflight.size > this.concurrency / 2) {
        while (this.inflight.size > this.concurrency / 2 && this.running) await Promise.race(this.inflight);
      } else if (!this.freed && !this.due && (n === 0 || this.inflight.size > 0)) {
        // Nothing to do, or a partial batch in flight: wait for the poll (a nudge's fan-out: the
        // rest of its gap), a nudge, a recorded outcome, deliveries made due or (then) a
        // completion, instead of spinning queries that compete with the API's writes.
        const ms = this.nudged ? FANOUT_GAP_MS - (Date.now() - this.lastFanOut) : this.pollMs;
        if (ms <= 0) continue;
        const completion = n > 0 ? Promise.race(this.inflight).then(() => undefined) : null;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, ms);
          this.wake = () => {
            clearTimeout(t);
            resolve();
          };
          void completion?.then(this.wake);
        });
        this.wake = null;
      }
    }
  }

  /**
   * One round: fan-out, take over expired leases, claim what is due into free slots. The loop
   * fans out when nudged or once per poll, and looks for expired leases once a second; drain()
   * (tests) forces both.
   */
  async pump(force = true): Promise<number> {
    const now = this.clock.now();
    const wall = Date.now();
    let work = 0;
    /** Endpoints this round queued deliveries for. */
    const queuedFor = new Set<string>();
    if (force || (this.nudged && wall - this.lastFanOut >= FANOUT_GAP_MS) || wall - this.lastFanOut >= this.pollMs) {
      this.nudged = false;
      this.lastFanOut = wall;
      for (let i = 0; i < 20; i++) {
        // Only drain() asks for events held back by an older transaction; the loop finds them at
        // the next write's nudge or the next poll.
        this.fanOuts++;
        const { done, held, endpoints } = await fanOut(this.db, now, 500, force);
        work += done;
        for (const e of endpoints) queuedFor.add(e);
        if (held) this.held = true;
        if (done < 500) break;
      }
    }
    if (force || wall - this.lastReclaim >= 1_000) {
      this.lastReclaim = wall;
      work += await reclaimExpired(this.db, now);
    }
    if (!force && wall - this.lastHeldCheck >= HELD_CHECK_MS) {
      this.lastHeldCheck = wall;
      // A warning's look-up must not cost the round its claims (a role refused pg_stat_activity, say).
      await this.checkHeld().catch(() => undefined);
    }
    if (!force && wall - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = wall;
      await this.prune();
    }
    const free = this.concurrency - this.inflight.size - this.claiming;
    // What a fan-out just queued waits, without a claim, when this process alone already fills the
    // share of every endpoint it went to: a claim could take none of it, and each recording of
    // those attempts claims into the slot it frees. Anything else due (a retry, another
    // endpoint's delivery) is claimed by those recordings or by the claim the loop still makes
    // once a poll. And a round that queued nothing claims only if something else may have become
    // due: deliveries queued without the outbox (deliveriesDue), a recorded outcome's freed slot,
    // or, once a poll, a retry's time or another process's queue — a stream of writes whose
    // workspaces have no endpoint nudges the loop every few milliseconds.
    const full = (e: string) => (this.unrecorded.get(e) ?? 0) >= (this.opts.perEndpoint ?? DEFAULT_PER_ENDPOINT);
    const recent = !force && !this.freed && !this.due && wall - this.lastClaim < this.pollMs;
    const futile = recent && queuedFor.size > 0 && [...queuedFor].every(full);
    if (futile) this.skippedAt = this.recordingsSent;
    this.freed = false;
    this.due = false;
    if (free > 0 && !futile && !(recent && queuedFor.size === 0)) {
      this.claiming += free;
      this.lastClaim = wall;
      try {
        const claimed = await claimDue(this.db, this.clock.now(), free, this.leaseMs, this.opts.perEndpoint);
        this.launch(claimed);
        work += claimed.length;
      } finally {
        this.claiming -= free;
      }
    }
    return work;
  }

  private launch(claimed: ClaimedDelivery[]): void {
    for (const d of claimed) {
      this.unrecorded.set(d.endpoint_id, (this.unrecorded.get(d.endpoint_id) ?? 0) + 1);
      const p: Promise<void> = this.attempt(d).finally(() => this.inflight.delete(p));
      this.inflight.add(p);
    }
  }

  /**
   * Tells `onWarning` when events have waited longer than `heldWarnMs` behind an older open
   * transaction, naming it (docs/store.md, "A production PostgreSQL": a forgotten BEGIN or a long
   * import anywhere on the server holds every workspace's webhooks), and again once they flow.
   * Each is said once; returns what was said. The loop calls it every HELD_CHECK_MS.
   */
  async checkHeld(): Promise<string | undefined> {
    const held = await heldBack(this.db);
    const wall = Date.now();
    // How long: the blocking transaction's age when this role can see it, else how long this
    // worker has seen the same first event wait (under load the first event changes every check).
    if (held && this.heldHead?.eventId !== held.eventId) this.heldHead = { eventId: held.eventId, since: wall };
    if (!held) this.heldHead = undefined;
    const waited = held ? Math.max(held.oldest?.openSeconds ?? 0, (wall - this.heldHead!.since) / 1000) : 0;
    let message: string | undefined;
    if (held && !this.reportedHeld && waited >= (this.opts.heldWarnMs ?? 30_000) / 1000) {
      const o = held.oldest;
      const who = o
        ? `process ${o.pid}${o.database ? ` on database ${o.database}` : ''}${o.user ? `, user ${o.user}` : ''}${o.state ? `, ${o.state}` : ''}${o.openSeconds !== null ? `, open ${seconds(o.openSeconds)}` : ''}`
        : 'one this role cannot see in pg_stat_activity';
      // A session idle in its transaction is a forgotten BEGIN, which the server's timeout ends.
      const fix = o?.state?.startsWith('idle in transaction')
        ? 'End that transaction, and set idle_in_transaction_session_timeout on the PostgreSQL server so a forgotten one ends by itself.'
        : 'They are sent once it ends.';
      message = `webhook events are held back by an older write transaction (${who}): the fan-out passes an event only once every transaction begun before it has ended. ${fix}`;
      this.reportedHeld = true;
    } else if (!held && this.reportedHeld) {
      message = 'webhook events flow again: the transaction that held them has ended.';
      this.reportedHeld = false;
    }
    if (message) this.opts.onWarning?.(message);
    return message;
  }

  /** Runs rounds until nothing is due at the clock's current time (tests advance the clock first). */
  async drain(): Promise<void> {
    for (let guard = 0; guard < 10_000; guard++) {
      this.held = false;
      const n = await this.pump();
      if (this.inflight.size || this.recording.size) {
        await Promise.allSettled([...this.inflight]);
        await Promise.allSettled([...this.recording]);
      } else if (this.held) {
        await new Promise((resolve) => setTimeout(resolve, 2));
      } else if (n === 0) return;
    }
  }

  private headers(type: string, eventId: string, deliveryId: string, key: string, body: string): Record<string, string> {
    const t = Math.floor(this.clock.now().getTime() / 1000);
    return {
      'X-Service-Event': type,
      'X-Service-Event-Id': eventId,
      'X-Service-Delivery-Id': deliveryId,
      'X-Service-Signature': signatureHeader(key, t, body),
    };
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const startedAt = this.clock.now();
    // Signed when sent, so a retry carries a fresh t.
    let result: SendResult;
    try {
      result = await postWebhook(
        d.url,
        d.payload,
        this.headers(d.event_type, d.event_id, d.id, d.key, d.payload),
        this.timeoutMs,
        this.policy,
      );
    } catch (e) {
      result = { statusCode: null, ok: false, error: `Could not send: ${(e as Error).message}`, body: '', latencyMs: 0 };
    }
    this.attempts[result.ok ? 'succeeded' : 'failed']++;
    const rec: Promise<void> = (async () => {
      try {
        if (result.ok) await this.recordSuccess({ d, startedAt, result });
        else {
          await retried(() => recordAttempt(this.db, d, startedAt, result, this.clock.now()));
          this.slotFreed();
        }
      } catch {
        // The lease expires and another round records the attempt as interrupted and sends again.
      }
      const left = (this.unrecorded.get(d.endpoint_id) ?? 1) - 1;
      if (left > 0) this.unrecorded.set(d.endpoint_id, left);
      else this.unrecorded.delete(d.endpoint_id);
      this.opts.onAttempt?.(d, result);
    })().finally(() => this.recording.delete(rec));
    this.recording.add(rec);
  }

  /**
   * An endpoint's share of attempts in flight is counted in the database, so its slot frees when
   * the outcome is recorded, not when the HTTP exchange ends: the loop claims again then, rather
   * than at the next poll (which, with the queue full and no writes to nudge it, paced the worker
   * at one claim per poll). A recording of acknowledged attempts claims into their slots itself;
   * a failed attempt's recording, or one that could not claim, wakes the loop.
   */
  private slotFreed(): void {
    this.freed = true;
    this.wake?.();
  }

  /** Acknowledged attempts are recorded in batches: whatever completed while the last batch was being written. */
  private recordSuccess(item: SuccessRecord): Promise<void> {
    return new Promise<void>((resolve) => {
      this.successes.push({ item, done: resolve });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    while (this.successes.length) {
      await new Promise((r) => setImmediate(r));
      const batch = this.successes.splice(0, 200);
      // The recording frees these attempts' slots, so it claims into them in the same statement
      // (and into any other slot free in this process) rather than leave that to another.
      const free = this.running ? Math.max(0, this.concurrency - this.inflight.size - this.claiming) : 0;
      this.claiming += free;
      const sent = ++this.recordingsSent;
      let claimed = false;
      try {
        const claim = free > 0 ? { limit: free, leaseMs: this.leaseMs, perEndpoint: this.opts.perEndpoint } : undefined;
        this.launch(
          await retried(() =>
            recordSuccesses(
              this.db,
              batch.map((b) => b.item),
              this.clock.now(),
              claim,
            ),
          ),
        );
        claimed = free > 0;
      } catch {
        // The leases run out; these attempts are logged as interrupted and sent again.
      } finally {
        this.claiming -= free;
      }
      // The loop looks when this recording did not claim into the slots (the loop is off, this
      // process is full, or the statement failed), or when the loop left a fan-out's deliveries
      // to the recordings while this one was under way: its claim may have run before they were
      // written. Else what is due waits for a poll.
      if (!claimed || this.skippedAt >= sent) this.slotFreed();
      for (const b of batch) b.done();
    }
    this.flushing = null;
  }

  /**
   * Verification: a signed webhook.verification event with a random challenge, sent at once; the
   * endpoint is verified when it answers 2xx with the challenge in the body. Logged as a delivery.
   */
  async verify(
    ws: string,
    endpointId: string,
  ): Promise<{
    verified: boolean;
    endpoint: WebhookEndpoint;
    delivery_id: string;
    status_code: number | null;
    error: string | null;
    latency_ms: number;
  }> {
    const { url, key } = await endpointKey(this.db, ws, endpointId);
    const now = this.clock.now();
    const challenge = randomBytes(24).toString('hex');
    const event: EventRecord = {
      id: newId('evt', 16),
      type: 'webhook.verification',
      created_at: now.toISOString(),
      data: { challenge, endpoint_id: endpointId },
    };
    const body = JSON.stringify(event);
    const deliveryId = newId('dlv');
    const result = await postWebhook(url, body, this.headers(event.type, event.id, deliveryId, key, body), this.timeoutMs, this.policy);
    const answered = result.ok && result.body.includes(challenge);
    const outcome = answered
      ? result
      : { ...result, ok: false, error: result.ok ? 'The response body did not contain the challenge' : result.error };
    await recordOneShot(this.db, ws, endpointId, event, now, outcome, deliveryId);
    if (answered) await markVerified(this.db, endpointId, url, this.clock.now());
    const { endpoint } = await endpointKey(this.db, ws, endpointId);
    return {
      verified: answered && endpoint.status !== 'unverified',
      endpoint,
      delivery_id: deliveryId,
      status_code: result.statusCode,
      error: outcome.error,
      latency_ms: result.latencyMs,
    };
  }

  /** Send test: a webhook.ping event through the queue, to a verified, enabled endpoint only. */
  async ping(ws: string, endpointId: string): Promise<{ delivery_id: string; event_id: string }> {
    const { endpoint } = await endpointKey(this.db, ws, endpointId);
    if (endpoint.status !== 'verified') {
      throw badRequest(`Send test needs a verified, enabled endpoint; this one is ${endpoint.status}`, 'webhook_id');
    }
    const now = this.clock.now();
    const event: EventRecord = {
      id: newId('evt', 16),
      type: 'webhook.ping',
      created_at: now.toISOString(),
      data: { endpoint_id: endpointId, message: 'Test delivery' },
    };
    const delivery_id = await enqueueDirect(this.db, ws, endpointId, event, now);
    this.deliveriesDue();
    return { delivery_id, event_id: event.id };
  }
}
