import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { guardedLookup, refusedAddress, type GuardPolicy } from './ssrf.js';

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
const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/**
 * One POST. Acknowledged only by a 2xx status within timeoutMs; redirects are not followed
 * (a 3xx is a failed attempt), so a receiver cannot bounce a delivery to an internal address.
 */
export function postWebhook(target: string, body: string, headers: Record<string, string>, timeoutMs: number, policy: GuardPolicy): Promise<SendResult> {
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
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return done({ statusCode: null, ok: false, error: 'invalid url', body: '' });
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // An IP literal never goes through lookup, so it is checked here.
    if (isIP(host)) {
      const why = refusedAddress(host, policy);
      if (why) return done({ statusCode: null, ok: false, error: `Refused: ${why}`, body: '' });
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowInsecure)) {
      return done({ statusCode: null, ok: false, error: 'Refused: http:// needs --allow-insecure-webhooks', body: '' });
    }
    const mod = url.protocol === 'https:' ? https : http;
    let status: number | null = null;
    let chunks = '';
    timer = setTimeout(() => {
      req.destroy();
      // A 2xx status that arrived in time acknowledges even if the body is still streaming.
      if (status !== null && status >= 200 && status < 300) done({ statusCode: status, ok: true, error: null, body: chunks });
      else done({ statusCode: status, ok: false, error: `No acknowledgement within ${timeoutMs} ms`, body: chunks });
    }, timeoutMs);
    const req = mod.request(
      url,
      {
        method: 'POST',
        agent: url.protocol === 'https:' ? agents.https : agents.http,
        lookup: guardedLookup(policy) as never,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'workspace-server-webhooks/1', ...headers },
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
    req.on('error', (e: NodeJS.ErrnoException) => done({ statusCode: null, ok: false, error: e.code && !e.message.includes(e.code) ? `${e.code}: ${e.message}` : e.message, body: '' }));
    req.end(body);
  });
}
