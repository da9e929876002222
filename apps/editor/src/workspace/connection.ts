// The editor's connection to a live workspace: a base URL and an API key, kept in this browser
// tab's sessionStorage only (never in the pack, the autosaved draft or localStorage), checked
// against GET /v1/me. Every failure becomes a sentence a user can act on.

export interface Connection {
  baseUrl: string;
  apiKey: string;
}

export interface Connected extends Connection {
  workspace: { id: string; name: string };
  scopes: string[];
}

export type ConnectResult = { ok: true; connected: Connected } | { ok: false; message: string };

const KEY = 'setup-pack.workspace-connection';

export function savedConnection(storage: Storage = sessionStorage): Connection | undefined {
  try {
    const v = JSON.parse(storage.getItem(KEY) ?? 'null') as Connection | null;
    return v && typeof v.baseUrl === 'string' && typeof v.apiKey === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

export function saveConnection(c: Connection, storage: Storage = sessionStorage): void {
  storage.setItem(KEY, JSON.stringify({ baseUrl: c.baseUrl, apiKey: c.apiKey }));
}

export function forgetConnection(storage: Storage = sessionStorage): void {
  storage.removeItem(KEY);
}

/**
 * A connection handed over in the address's fragment (`#workspace=<url>&key=<key>`, what
 * `npm start` opens): taken once, then removed from the address so it is not kept in history.
 */
export function connectionFromHash(loc: Location = location, hist: History = history): Connection | undefined {
  if (!loc.hash.includes('workspace=')) return undefined;
  const p = new URLSearchParams(loc.hash.slice(1));
  const baseUrl = p.get('workspace');
  const apiKey = p.get('key');
  p.delete('workspace');
  p.delete('key');
  const rest = p.toString();
  hist.replaceState(hist.state, '', `${loc.pathname}${loc.search}${rest ? `#${rest}` : ''}`);
  return baseUrl && apiKey ? { baseUrl, apiKey } : undefined;
}

/** Checks the key against the workspace (GET /v1/me): its name and the key's scopes, or why not. */
export async function connect(c: Connection, fetchImpl: typeof fetch = fetch): Promise<ConnectResult> {
  let base: string;
  try {
    const u = new URL(c.baseUrl.trim());
    if (!/^https?:$/.test(u.protocol)) throw new Error();
    base = u.href.replace(/\/+$/, '');
  } catch {
    return { ok: false, message: `"${c.baseUrl}" is not a web address: give the workspace's base URL, e.g. http://127.0.0.1:8787` };
  }
  const apiKey = c.apiKey.trim();
  if (!apiKey) return { ok: false, message: 'Give an API key of the workspace (sk_…).' };
  let res: Response;
  try {
    res = await fetchImpl(`${base}/v1/me`, { headers: { authorization: `Bearer ${apiKey}` } });
  } catch {
    const origin = typeof location !== 'undefined' ? location.origin : 'this page';
    return {
      ok: false,
      message: `Cannot reach ${base}: the server is not running there, or it does not allow this editor's origin (${origin}). Start it with --cors-origin ${origin}, or open the editor from the server itself: ${base}/editor/, where a server that has the editor's build serves it (the installed package, --editor DIR, or a checkout after npm run build -w apps/editor).`,
    };
  }
  const body = (await res.json().catch(() => undefined)) as
    { workspace?: { id: string; name: string }; api_key?: { scopes?: string[] }; error?: { message?: string } } | undefined;
  if (res.status === 401)
    return {
      ok: false,
      message: `The workspace at ${base} refused this API key (${body?.error?.message ?? 'unauthorized'}). Check the key, or create a new one.`,
    };
  if (res.status === 429)
    return {
      ok: false,
      message: `The workspace at ${base} is rate limiting this key; try again in ${res.headers.get('retry-after') ?? 'a few'} seconds.`,
    };
  if (!res.ok || !body?.workspace)
    return {
      ok: false,
      message: `The workspace at ${base} answered ${res.status}${body?.error?.message ? `: ${body.error.message}` : ''}.`,
    };
  return {
    ok: true,
    connected: {
      baseUrl: base,
      apiKey,
      workspace: { id: body.workspace.id, name: body.workspace.name },
      scopes: body.api_key?.scopes ?? [],
    },
  };
}
