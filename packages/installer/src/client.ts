// The workspace REST client: paces itself from the rate-limit headers, waits Retry-After on a
// 429, retries 5xx and network failures with exponential backoff and full jitter (a 503 waits at
// least its Retry-After), walks cursor pages, and turns error envelopes into typed errors. Time is
// injected (now/sleep) for tests.

import type { ApiErrorType } from '@setup-pack/core';

/** The envelope's types (the workspace-API contract's), and `network_error` for no answer at all. */
export type ErrorType = ApiErrorType | 'network_error';

/** Retries of a connection to a server that has never answered: a few seconds, not minutes. */
const NEVER_ANSWERED_RETRIES = 2;

const CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be looked up',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  ETIMEDOUT: 'connection timed out',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
};

/** Why a fetch failed, in words: fetch's own message is only "fetch failed". */
function networkCause(e: unknown, timeoutMs: number): string {
  const err = e as {
    name?: string;
    message?: string;
    code?: string;
    cause?: { code?: string; message?: string; errors?: { code?: string }[] };
  };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return `no answer within ${Math.round(timeoutMs / 1000)} s`;
  const code = err?.cause?.code ?? err?.cause?.errors?.[0]?.code ?? err?.code;
  if (code && CAUSES[code]) return CAUSES[code];
  return err?.cause?.message ?? err?.message ?? String(e);
}

/** An install lock as the API shows it: a ledger record's `lock`, and the `lock` of a 409 it refused with. */
export interface InstallLock {
  holder: string;
  expires_at: string;
}

/** The error envelope's fields besides type, message and param (docs/api.md, Conventions), when well formed. */
export interface ErrorFields {
  /** A 409 because another holder has the pack's install lock: who, and until when. */
  lock?: InstallLock;
}

/** A lock as data, or undefined when the value is not one (another server's answer is checked, not trusted). */
export function installLockOf(v: unknown): InstallLock | undefined {
  const l = v as Partial<InstallLock> | null;
  return l && typeof l === 'object' && typeof l.holder === 'string' && typeof l.expires_at === 'string'
    ? { holder: l.holder, expires_at: l.expires_at }
    : undefined;
}

/** An API failure as data: the envelope's type, message, param and fields, plus the HTTP status (0: no response). */
export class WorkspaceApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    message: string,
    readonly param?: string,
    readonly method?: string,
    readonly path?: string,
    readonly fields: ErrorFields = {},
  ) {
    super(message);
    this.name = 'WorkspaceApiError';
  }
  get isNotFound() {
    return this.status === 404;
  }
  get isConflict() {
    return this.status === 409;
  }
  get retryable() {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

export interface ClientStats {
  requests: number;
  reads: number;
  writes: number;
  retries: number;
  rateLimited: number;
  /** Time spent waiting for the rate limit window (ms). */
  pacedMs: number;
}

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  /** Milliseconds since the epoch; defaults to Date.now. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Retries of one request after 5xx or network failure. */
  maxRetries?: number;
  /** Backoff base and cap (ms). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Abort one attempt after this long (ms). */
  timeoutMs?: number;
  /** Requests kept in reserve in each rate-limit window (for other clients of the workspace). */
  reserve?: number;
  /** Pace from the rate-limit headers (default true); false only to measure a naive client. */
  pace?: boolean;
  userAgent?: string;
  /**
   * Told before each wait of a second or more (a command line says so, rather than looking hung
   * for the minute a spent rate-limit window can take): how long, and why — the window is spent
   * (`rate-limit`, from the headers), the workspace answered 429 (`retry-after`), it answered 503
   * with a Retry-After, its database unavailable for the moment (`unavailable`), or a 5xx or a
   * dropped connection is retried (`retry`).
   */
  onWait?: (wait: WaitEvent) => void;
}

/** A wait of a client (ClientOptions.onWait): how long, and why. */
export interface WaitEvent {
  ms: number;
  reason: 'rate-limit' | 'retry-after' | 'unavailable' | 'retry';
}

const WAIT_REASONS: Record<WaitEvent['reason'], string> = {
  'rate-limit': "for the workspace's next rate-limit window",
  'retry-after': 'as the workspace asked (429, Retry-After)',
  unavailable: 'as the workspace asked (503 service unavailable, Retry-After)',
  retry: 'before retrying (the workspace failed or the connection dropped)',
};

/** A wait in words, as the CLI and the editor say it: "waiting 2 s as the workspace asked (429, Retry-After)". */
export const describeWait = (w: WaitEvent): string => `waiting ${Math.ceil(w.ms / 1000)} s ${WAIT_REASONS[w.reason]}`;

/** The start of an answer that is not the API's, on one line: enough to recognise a web page. */
function snippet(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > 60 ? `${one.slice(0, 60)}…` : one;
}

/** A Retry-After header's wait in ms (seconds, or an HTTP date), or null when there is none or it is not one. */
function retryAfterMs(h: Headers, now: number): number | null {
  const value = h.get('retry-after')?.trim();
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

/** Waits shorter than this are not told to onWait. */
const TOLD_WAIT_MS = 1000;

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor?: string | null;
  total_count: number;
}

export class WorkspaceClient {
  readonly baseUrl: string;
  readonly stats: ClientStats = { requests: 0, reads: 0, writes: 0, retries: 0, rateLimited: 0, pacedMs: 0 };
  private readonly opts: Required<Omit<ClientOptions, 'fetch' | 'userAgent' | 'onWait'>> &
    Pick<ClientOptions, 'fetch' | 'userAgent' | 'onWait'>;
  /** What the last response said about the current window. */
  private remaining: number | null = null;
  private resetAtMs = 0;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.opts = {
      now: Date.now,
      sleep: realSleep,
      random: Math.random,
      maxRetries: 8,
      backoffBaseMs: 250,
      backoffMaxMs: 20_000,
      timeoutMs: 30_000,
      reserve: 0,
      pace: true,
      ...options,
    };
  }

  /** Waits for the next rate-limit window when the current one is spent. */
  private async pace(): Promise<void> {
    if (!this.opts.pace || this.remaining === null || this.remaining > this.opts.reserve) return;
    const wait = this.resetAtMs - this.opts.now();
    if (wait > 0) {
      this.stats.pacedMs += wait;
      await this.wait(wait, 'rate-limit', 5);
    }
    this.remaining = null;
  }

  /** Waits `ms` and `margin` more (a few ms past a window's edge), telling onWait of `ms`: the wait the server's headers asked for. */
  private async wait(ms: number, reason: WaitEvent['reason'], margin = 0): Promise<void> {
    if (ms >= TOLD_WAIT_MS) this.opts.onWait?.({ ms, reason });
    await this.opts.sleep(ms + margin);
  }

  /** Whether the server has answered any request of this client (see request's network errors). */
  private answered = false;
  /**
   * Whether it has ever answered in JSON. An address that answers only with something else (a web
   * page: the site's address instead of its API's, a captive portal) is a setup error like one that
   * does not answer: said within seconds, not after the full backoff.
   */
  private answeredJson = false;

  private backoff(attempt: number): number {
    const cap = Math.min(this.opts.backoffMaxMs, this.opts.backoffBaseMs * 2 ** attempt);
    return Math.floor(this.opts.random() * cap) + 1;
  }

  /**
   * One API call. Every call may be retried: reads and PUT/PATCH/DELETE are idempotent, and
   * creations carry an idempotency key in their body (the caller's job: see apply).
   */
  async request<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    return (await this.send<T>(method, path, body)).value;
  }

  /**
   * A creation with an idempotency key in its body. `replayed` is true when the workspace answered
   * with an object an earlier request made under that key (`Idempotent-Replayed: true`) and no
   * attempt of this call can have made it: the object existed before this call.
   */
  async create<T = unknown>(path: string, body: unknown): Promise<{ object: T; replayed: boolean }> {
    const r = await this.send<T>('POST', path, body);
    return { object: r.value, replayed: !r.uncertain && r.headers.get('idempotent-replayed') === 'true' };
  }

  /**
   * One API call with its retries: the answer, its headers, and whether an earlier attempt's
   * outcome is unknown (no answer, or a 5xx), so it may have taken effect.
   */
  private async send<T>(method: string, path: string, body?: unknown): Promise<{ value: T; headers: Headers; uncertain: boolean }> {
    const isWrite = method !== 'GET';
    let uncertain = false;
    let attempt = 0;
    let rateLimitedTimes = 0;
    for (;;) {
      await this.pace();
      this.stats.requests++;
      if (isWrite) this.stats.writes++;
      else this.stats.reads++;
      let res: Response;
      let text: string;
      try {
        const headers: Record<string, string> = { authorization: `Bearer ${this.opts.apiKey}`, accept: 'application/json' };
        if (body !== undefined) headers['content-type'] = 'application/json';
        if (this.opts.userAgent) headers['user-agent'] = this.opts.userAgent;
        const f = this.opts.fetch ?? fetch;
        res = await f(`${this.baseUrl}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.opts.timeoutMs),
        });
        text = await res.text();
      } catch (e) {
        const why = networkCause(e, this.opts.timeoutMs);
        // A server that never answered (wrong address, nothing listening) is a setup error: say so
        // within a few seconds. Faults after it has answered are retried with the full backoff.
        const retries = this.answered ? this.opts.maxRetries : Math.min(this.opts.maxRetries, NEVER_ANSWERED_RETRIES);
        if (attempt >= retries) {
          throw new WorkspaceApiError(
            0,
            'network_error',
            `cannot reach ${this.baseUrl} (${why})${this.answered ? ` during ${method} ${path}` : ''}`,
            undefined,
            method,
            path,
          );
        }
        this.stats.retries++;
        uncertain = true;
        await this.wait(this.answered ? this.backoff(attempt++) : Math.min(this.backoff(attempt++), 1000), 'retry');
        continue;
      }
      this.answered = true;
      this.readRateLimit(res.headers);
      let parsed: unknown;
      try {
        parsed = text ? (JSON.parse(text) as unknown) : null;
      } catch {
        parsed = null;
      }
      if (parsed !== null) this.answeredJson = true;
      if (res.ok && (parsed !== null || !text)) return { value: parsed as T, headers: res.headers, uncertain };
      if (res.status === 429) {
        this.stats.rateLimited++;
        if (++rateLimitedTimes > 20) throw this.toError(res.status, parsed, method, path);
        const asked = this.retryAfter(res.headers);
        const wait = asked?.ms ?? this.backoff(attempt++);
        this.stats.pacedMs += wait;
        await this.wait(wait, asked?.reason ?? 'retry-after', 5);
        this.remaining = null;
        continue;
      }
      // A 2xx that is not JSON (a proxy mangled it) and 5xx are worth another try; not many from
      // an address that has never answered in JSON.
      if (res.status >= 500 || res.ok) {
        const retries = this.answeredJson ? this.opts.maxRetries : Math.min(this.opts.maxRetries, NEVER_ANSWERED_RETRIES);
        if (attempt >= retries) throw this.toError(res.status, parsed, method, path, res.headers.get('content-type'), text);
        this.stats.retries++;
        uncertain = true;
        // A 503 with Retry-After (the workspace's database restarting): at least that long, and
        // longer as the backoff grows, so the retries span an outage of a minute or so.
        const asked = res.status === 503 ? retryAfterMs(res.headers, this.opts.now()) : null;
        const backoff = this.backoff(attempt++);
        if (asked !== null && asked >= backoff) await this.wait(asked, 'unavailable');
        else await this.wait(backoff, 'retry');
        continue;
      }
      throw this.toError(res.status, parsed, method, path, res.headers.get('content-type'), text);
    }
  }

  /**
   * How long a 429 asks to wait: its Retry-After (seconds, or an HTTP date), else the reset of the
   * window its X-RateLimit headers say is spent (a wait for the next window); null when it says
   * neither (then: backoff).
   * Without this, a server that sends only the X-RateLimit headers was retried within a quarter
   * second, twenty times, into the window it had said was spent, and the run gave up.
   */
  private retryAfter(h: Headers): WaitEvent | null {
    const asked = retryAfterMs(h, this.opts.now());
    if (asked !== null) return { ms: asked, reason: 'retry-after' };
    const reset = Number(h.get('x-ratelimit-reset'));
    if (h.has('x-ratelimit-reset') && Number.isFinite(reset) && reset * 1000 > this.opts.now())
      return { ms: reset * 1000 - this.opts.now(), reason: 'rate-limit' };
    return null;
  }

  private readRateLimit(h: Headers) {
    const remaining = Number(h.get('x-ratelimit-remaining'));
    const reset = Number(h.get('x-ratelimit-reset'));
    if (h.has('x-ratelimit-remaining') && Number.isFinite(remaining)) this.remaining = remaining;
    if (h.has('x-ratelimit-reset') && Number.isFinite(reset)) this.resetAtMs = reset * 1000;
  }

  private toError(
    status: number,
    body: unknown,
    method: string,
    path: string,
    contentType?: string | null,
    text?: string,
  ): WorkspaceApiError {
    const e = (body as { error?: { type?: unknown; message?: unknown; param?: unknown; lock?: unknown } } | null)?.error;
    if (e && typeof e.type === 'string') {
      const lock = installLockOf(e.lock);
      return new WorkspaceApiError(
        status,
        e.type as ErrorType,
        String(e.message ?? ''),
        typeof e.param === 'string' ? e.param : undefined,
        method,
        path,
        lock ? { lock } : {},
      );
    }
    // Not the API's error envelope: say what came instead (the start of it), and, when this address
    // has never answered in JSON, that it may not be the workspace API's.
    const type = status >= 500 || (status >= 200 && status < 300) ? 'api_error' : 'invalid_request_error';
    const what =
      body === null && text
        ? `${status < 300 ? 'an answer that is not JSON' : 'not an API error'} (${contentType?.split(';')[0].trim() || 'no content type'}: ${JSON.stringify(snippet(text))})`
        : '';
    const hint = !this.answeredJson ? `; is ${this.baseUrl} the address of the workspace API?` : '';
    return new WorkspaceApiError(
      status,
      type,
      `${method} ${path}: HTTP ${status}${what ? `, ${what}` : ''}${hint}`,
      undefined,
      method,
      path,
    );
  }

  /** An answer that is JSON but not of the shape the API documents (`what` it should be). */
  malformed(method: string, path: string, what: string): WorkspaceApiError {
    return new WorkspaceApiError(200, 'api_error', `${method} ${path}: the workspace's answer is not ${what}`, undefined, method, path);
  }

  get = <T = unknown>(path: string) => this.request<T>('GET', path);
  post = <T = unknown>(path: string, body?: unknown) => this.request<T>('POST', path, body ?? {});
  put = <T = unknown>(path: string, body: unknown) => this.request<T>('PUT', path, body);
  patch = <T = unknown>(path: string, body: unknown) => this.request<T>('PATCH', path, body);
  delete = <T = unknown>(path: string) => this.request<T>('DELETE', path);

  /** Every object of a list endpoint, walking the cursor pages (100 per page). */
  async listAll<T = unknown>(path: string): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | null | undefined;
    const sep = path.includes('?') ? '&' : '?';
    do {
      const url = `${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await this.get<Page<T>>(url);
      if (!page || typeof page !== 'object' || !Array.isArray(page.data) || page.data.some((o) => !o || typeof o !== 'object')) {
        throw this.malformed('GET', url, 'a page of objects ({"data": [...], "has_more": ...})');
      }
      if (page.has_more && (typeof page.next_cursor !== 'string' || page.next_cursor === cursor)) {
        throw this.malformed('GET', url, 'a page with a next_cursor to go on from (has_more is true)');
      }
      out.push(...page.data);
      cursor = page.has_more ? page.next_cursor : null;
    } while (cursor);
    return out;
  }
}
