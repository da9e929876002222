import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { urlToHttpOptions } from 'node:url';
import { setBounded } from '../../shared/bounded.js';
import { checkWebhookUrl, guardedLookup, type GuardPolicy } from './ssrf.js';

export interface SendResult {
  /** HTTP status, or null when no response arrived (refused, connection error, timeout). */
  statusCode: number | null;
  ok: boolean;
  error: string | null;
  /** Up to 64 KiB of the response body (verification looks for the challenge in it). */
  body: string;
  latencyMs: number;
}

const MAX_BODY = 64 * 1024;
/**
 * Kept-alive connections to receivers. No cap per origin: the worker's caps (attempts per process
 * and per endpoint) bound what is in flight, and many endpoints may share an origin (a hooks
 * gateway); an agent's queue for a socket would spend an attempt's acknowledgement time unsent.
 */
const agents = {
  http: new http.Agent({ keepAlive: true }),
  https: new https.Agent({ keepAlive: true }),
};

/** A target address as a request needs it: refused before any connection (why), or how to reach it. */
type Target = { refused: string } | { request: typeof http.request; options: http.RequestOptions };

/** Targets by policy and address: an endpoint's URL is parsed and checked once, not per delivery. */
const targets = new Map<string, Target>();
const TARGETS_KEPT = 10_000;
/** Each policy's connection-time check of the addresses a name resolves to. */
const lookups = { secure: guardedLookup({ allowInsecure: false }), insecure: guardedLookup({ allowInsecure: true }) };

function targetOf(target: string, policy: GuardPolicy): Target {
  const key = `${policy.allowInsecure ? 'insecure' : 'secure'} ${target}`;
  let t = targets.get(key);
  if (t === undefined) {
    t = parseTarget(target, policy);
    setBounded(targets, key, t, TARGETS_KEPT);
  }
  return t;
}

/**
 * The address rule registration applies (checkWebhookUrl), applied again to each endpoint when it
 * is first sent to: it may have been registered under another policy or an older rule.
 */
function parseTarget(target: string, policy: GuardPolicy): Target {
  const c = checkWebhookUrl(target, policy);
  if ('error' in c) return { refused: `Refused: the url ${c.error}` };
  if ('refused' in c) return { refused: `Refused: ${c.refused}` };
  const secure = c.url.protocol === 'https:';
  return {
    request: secure ? https.request : http.request,
    options: {
      ...urlToHttpOptions(c.url),
      method: 'POST',
      agent: secure ? agents.https : agents.http,
      lookup: (policy.allowInsecure ? lookups.insecure : lookups.secure) as never,
    },
  };
}

/**
 * One POST. Acknowledged only by a 2xx status within timeoutMs; redirects are not followed
 * (a 3xx is a failed attempt), so a receiver cannot bounce a delivery to an internal address.
 */
export function postWebhook(
  target: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  policy: GuardPolicy,
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const done = (r: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, latencyMs: elapsed() });
    };
    const t = targetOf(target, policy);
    if ('refused' in t) return done({ statusCode: null, ok: false, error: t.refused, body: '' });
    let status: number | null = null;
    let chunks = '';
    timer = setTimeout(() => {
      req.destroy();
      // A 2xx status that arrived in time acknowledges even if the body is still streaming.
      if (status !== null && status >= 200 && status < 300) done({ statusCode: status, ok: true, error: null, body: chunks });
      else done({ statusCode: status, ok: false, error: `No acknowledgement within ${timeoutMs} ms`, body: chunks });
    }, timeoutMs);
    const req = t.request(
      {
        ...t.options,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'workspace-server-webhooks/1',
          ...headers,
        },
      },
      (res) => {
        status = res.statusCode ?? null;
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          if (chunks.length < MAX_BODY) chunks += d.slice(0, MAX_BODY - chunks.length);
        });
        res.on('end', () => {
          const ok = status !== null && status >= 200 && status < 300;
          done({ statusCode: status, ok, error: ok ? null : `Receiver answered ${status}`, body: chunks });
        });
        res.on('error', (e) => {
          const ok = status !== null && status >= 200 && status < 300;
          done({ statusCode: status, ok, error: ok ? null : e.message, body: chunks });
        });
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) =>
      done({ statusCode: null, ok: false, error: e.code && !e.message.includes(e.code) ? `${e.code}: ${e.message}` : e.message, body: '' }),
    );
    req.end(body);
  });
}
