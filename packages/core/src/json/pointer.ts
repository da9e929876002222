// RFC 6901 JSON pointers.

export function escapeToken(token: string | number): string {
  const s = String(token);
  // Most tokens need no escape: two character searches instead of two regular-expression passes.
  return s.indexOf('~') < 0 && s.indexOf('/') < 0 ? s : s.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function unescapeToken(token: string): string {
  return token.indexOf('~') < 0 ? token : token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * The array index a token names, or -1: read digit by digit, without Number()'s runtime call. The
 * one reading of an array index token (RFC 6901: 0, or digits without a leading zero) — for
 * resolving, describing and placing pointers, the order of unplaced findings and SARIF's stable
 * paths; tokens longer than nine digits are no index of any array a pack can hold.
 */
export function tokenIndex(token: string): number {
  const n = token.length;
  if (n === 0 || n > 9 || (n > 1 && token.charCodeAt(0) === 48)) return -1;
  let index = 0;
  for (let i = 0; i < n; i++) {
    const c = token.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
    index = index * 10 + c - 48;
  }
  return index;
}

export function toPointer(path: readonly (string | number)[]): string {
  return path.length === 0 ? '' : '/' + path.map(escapeToken).join('/');
}

export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`Invalid JSON pointer: ${pointer}`);
  const tokens = pointer.slice(1).split('/');
  if (pointer.indexOf('~') >= 0) for (let i = 0; i < tokens.length; i++) tokens[i] = unescapeToken(tokens[i]);
  return tokens;
}

/** Resolves a pointer inside a value; `found` is false when a step is missing. */
export function resolvePointer(doc: unknown, pointer: string): { found: boolean; value?: unknown } {
  if (pointer === '') return { found: true, value: doc };
  if (pointer.charCodeAt(0) !== 47) throw new Error(`Invalid JSON pointer: ${pointer}`);
  // Token by token where the slashes are, without an array of them (as describePointer): the
  // schema validator resolves the value of every error it words.
  let cur: unknown = doc;
  for (let start = 1; ;) {
    const end = pointer.indexOf('/', start);
    const token = unescapeToken(end < 0 ? pointer.slice(start) : pointer.slice(start, end));
    if (Array.isArray(cur)) {
      const index = tokenIndex(token);
      if (index < 0 || index >= cur.length) return { found: false };
      cur = cur[index];
    } else if (cur !== null && typeof cur === 'object' && Object.prototype.hasOwnProperty.call(cur, token)) {
      cur = (cur as Record<string, unknown>)[token];
    } else {
      return { found: false };
    }
    if (end < 0) return { found: true, value: cur };
    start = end + 1;
  }
}

/** Human-readable path for messages: automations[2].document.graph.nodes[5].kind */
export function describePointer(pointer: string): string {
  if (pointer === '') return 'the pack';
  if (pointer.charCodeAt(0) !== 47) throw new Error(`Invalid JSON pointer: ${pointer}`);
  // Token by token where the slashes are, without an array of them: every schema error of a
  // broken pack is described (19,900 for a pack whose blocks are all of an unknown kind).
  let out = '';
  for (let start = 1; ;) {
    const end = pointer.indexOf('/', start);
    const t = unescapeToken(end < 0 ? pointer.slice(start) : pointer.slice(start, end));
    if (tokenIndex(t) >= 0) out += `[${t}]`;
    else if (IDENTIFIER.test(t)) out += (out ? '.' : '') + t;
    else out += `[${JSON.stringify(t)}]`;
    if (end < 0) return out;
    start = end + 1;
  }
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * A place as the workspace API's error `param` names it: `describePointer`'s spelling
 * ("emails[0].label", 'asset_urls["logo/dark"]'), and '' for the input as a whole, which is no field.
 */
export function pointerParam(pointer: string): string {
  return pointer === '' ? '' : describePointer(pointer);
}

/**
 * For a walk over pointers that share long prefixes (findings come in runs like
 * /automations/3/document/graph/nodes/17/config/…): how many whole tokens `pointer` shares with
 * the pointer walked before it, `last`, whose d-th token ends at `ends[d]` (ends[0] = 0, up to
 * `depth`). The walker keeps what it computed for each prefix of `last` and resumes from there.
 */
export function sharedDepth(last: string, ends: ArrayLike<number>, depth: number, pointer: string): number {
  const n = Math.min(last.length, pointer.length);
  let same = 0;
  while (same < n && last.charCodeAt(same) === pointer.charCodeAt(same)) same++;
  let d = depth;
  while (d > 0 && !(ends[d] <= same && (ends[d] === pointer.length || pointer.charCodeAt(ends[d]) === 47))) d--;
  return d;
}

/**
 * Pointers that can be asked whether any of them is at or below a given one (the pointer itself
 * or a pointer under it). Sorted once, on the first question after an addition; each question is
 * then two binary searches. Pointers under `p` all start with `p/`, and strings that share a
 * prefix sort next to each other, so the first pointer from `p/` on tells.
 */
export class PointerSet {
  private readonly list: string[] = [];
  private sorted = true;

  add(pointer: string): void {
    const n = this.list.length;
    if (this.sorted && n > 0 && this.list[n - 1] > pointer) this.sorted = false;
    this.list.push(pointer);
  }

  get size(): number {
    return this.list.length;
  }

  /** Whether `pointer` or a pointer below it is in the set. */
  hasAtOrBelow(pointer: string): boolean {
    const list = this.list;
    if (list.length === 0) return false;
    if (!this.sorted) {
      list.sort();
      this.sorted = true;
    }
    let at = firstFrom(list, pointer, 0);
    if (at < list.length && list[at] === pointer) return true;
    const below = pointer + '/';
    at = firstFrom(list, below, at);
    return at < list.length && list[at].startsWith(below);
  }
}

/** The index of the first string of sorted `list` at or after `s` (from index `lo` on). */
function firstFrom(list: readonly string[], s: string, lo: number): number {
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < s) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
