// Where the workspace API is stricter than the pack format, stated once. The server enforces
// these (its routes read them from here) and the planner reports a pack that exceeds one at plan
// time, so `setup-pack plan` says what `install` would otherwise fail on halfway.
import { strictBase64Size } from '../hash.js';
import { escapeToken, pointerParam } from '../json/pointer.js';
import { MAX_DEPTH } from '../json/parse.js';
import type { Pack } from '../types.js';
import type { PlanError } from './types.js';

export const WORKSPACE_LIMITS = {
  /** Largest file the media library takes (an asset's decoded bytes). The format sets no limit. */
  mediaFileBytes: 10 * 1024 * 1024,
} as const;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether `s` holds a lone UTF-16 surrogate: not Unicode text, so no UTF-8 file or text column holds it. */
export const hasLoneSurrogate = (s: string): boolean => LONE_SURROGATE.test(s);

/**
 * The first string (or property name) under `value` that the workspace's store (PostgreSQL text
 * and jsonb) cannot hold: a NUL character, or a lone UTF-16 surrogate (not Unicode text). JSON and
 * the pack format allow both; the server refuses such input with a 400 naming the field, and the
 * planner refuses such a pack before its first write. `pointer` is where `value` sits (a JSON
 * pointer, '' for the top); `param` names the place as the API's error params do (`pointerParam`:
 * 'custom_fields["k\\u0000"]', '' for `value` itself).
 */
export function unstorableText(value: unknown, pointer = ''): { param: string; what: string } | null {
  const bad = firstUnstorable(value, pointer, 0);
  return bad && { param: pointerParam(bad.pointer), what: bad.what };
}

/**
 * unstorableText for a request body, whose fields may each nest as deep as a pack (MAX_DEPTH):
 * a body carries a pack's content in a field no deeper than the pack holds it, but one level below
 * the body. The install ledger's `{ledger: {source: {resourceData: {key: data}}}}` holds a resource's
 * `data` as deep below `ledger` as the pack holds it below its top (`resources[i].data`); measured
 * from the body, the deepest data a valid pack may have was refused and the install failed.
 */
export function unstorableBody(body: unknown): { param: string; what: string } | null {
  const bad = firstUnstorable(body, '', -1);
  return bad && { param: pointerParam(bad.pointer), what: bad.what };
}

/**
 * Values nested deeper than a pack may be (MAX_DEPTH) are refused too: every item a valid pack
 * holds still fits, and nothing that handles a body (JSON.stringify, the store's jsonb) recurses
 * past its stack — a request 5,000 levels deep was a 500 before. Named at its top field.
 */
function firstUnstorable(value: unknown, pointer: string, depth: number): { pointer: string; what: string } | null {
  const path: string[] = [];
  const bad = unstorableAt(value, depth, path);
  if (!bad) return null;
  // The path is built only for what is found (most values are fine, and a pack has many).
  let at = pointer;
  for (let i = path.length - 1; i >= 0; i--) at += `/${escapeToken(path[i])}`;
  if (bad.deep) {
    const second = at.indexOf('/', 1);
    return { pointer: second < 0 ? at : at.slice(0, second), what: bad.what };
  }
  return { pointer: at, what: bad.what };
}

/** What is wrong at or below `value`, its path pushed onto `path` innermost first. */
function unstorableAt(value: unknown, depth: number, path: string[]): { what: string; deep?: true } | null {
  if (typeof value === 'string') return unstorableString(value);
  if (value === null || typeof value !== 'object') return null;
  if (depth >= MAX_DEPTH) return { what: `is nested deeper than ${MAX_DEPTH} levels`, deep: true };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = unstorableAt(value[i], depth + 1, path);
      if (bad) {
        path.push(String(i));
        return bad;
      }
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    const badKey = unstorableString(key);
    if (badKey) {
      path.push(key);
      return { what: `is a field name that ${badKey.what}` };
    }
    const bad = unstorableAt((value as Record<string, unknown>)[key], depth + 1, path);
    if (bad) {
      path.push(key);
      return bad;
    }
  }
  return null;
}

function unstorableString(value: string): { what: string } | null {
  if (value.indexOf('\u0000') >= 0) return { what: 'contains a NUL character (U+0000)' };
  if (hasLoneSurrogate(value)) return { what: 'is not valid Unicode text (a lone surrogate)' };
  return null;
}

/** Length of the base64 text of `bytes` bytes (with padding). */
export const base64Length = (bytes: number) => 4 * Math.ceil(bytes / 3);

const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB`;

/** The pack's items the workspace API would refuse, as plan errors. */
export function apiLimitErrors(pack: Pack): PlanError[] {
  const out: PlanError[] = [];
  for (const a of pack.assets ?? []) {
    if (a.data == null) continue;
    const size = strictBase64Size(a.data) ?? a.byteSize;
    if (size > WORKSPACE_LIMITS.mediaFileBytes) {
      out.push({
        code: 'plan/api-limit',
        message: `Asset ${a.key} (${a.fileName}) is ${mb(size)}; the workspace's media library takes files up to ${mb(WORKSPACE_LIMITS.mediaFileBytes)}. Host it elsewhere and give its url instead of data.`,
      });
    }
  }
  // Text the store cannot hold, anywhere in an item the installer writes.
  const items: [string, string, unknown][] = [];
  for (const r of pack.resources ?? []) items.push(['Resource', r.key, r]);
  for (const p of pack.pipelines ?? []) items.push(['Pipeline', p.key, p]);
  for (const t of pack.messageTemplates ?? []) items.push(['Message template', t.key, t]);
  for (const l of pack.smartLists ?? []) items.push(['Smart list', l.key, l]);
  for (const a of pack.automations ?? []) items.push(['Automation', a.key, a]);
  for (const a of pack.assets ?? []) items.push(['Asset', a.key, { ...a, data: undefined }]);
  if (pack.brand) items.push(['The brand', '', pack.brand]);
  items.push([
    'The pack',
    '',
    { name: pack.name, version: pack.version, description: pack.description, author: pack.author, $schema: pack.$schema },
  ]);
  for (const [what, key, value] of items) {
    const bad = unstorableText(value, '');
    if (bad)
      out.push({
        code: 'plan/api-limit',
        message: `${what}${key ? ` ${key}` : ''}: ${bad.param ? `${bad.param} ` : ''}${bad.what}, which the workspace cannot store (its database holds valid Unicode text, without U+0000). Remove the character.`,
      });
  }
  return out;
}
