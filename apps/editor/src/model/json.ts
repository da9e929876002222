// Small helpers for editing loosely-typed JSON immutably. The editor holds a pack that may be
// invalid, so it reads fields defensively and never drops what it does not understand.
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
export const asObj = (v: unknown): Obj => (isObj(v) ? v : {});
export const asArr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const objs = (v: unknown): Obj[] => asArr(v).filter(isObj);
export const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);

/**
 * Whether two lists hold, index by index, the same element or one `same` accepts: the edit-aware
 * comparison of a pack state with the one before (an edit replaces the elements it touches and
 * keeps the others, so most are one object and `same` runs only on the replaced ones).
 */
export function sameEach(x: readonly unknown[], y: readonly unknown[], same: (a: unknown, b: unknown) => boolean): boolean {
  if (x === y) return true;
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i] && !same(x[i], y[i])) return false;
  return true;
}

/** Sets `key` on a copy of `o`, keeping the key's place when it exists; `undefined` removes it. */
export function setKey<T extends Obj>(o: T, key: string, value: unknown): T {
  if (value === undefined) {
    if (!(key in o)) return o;
    const copy = { ...o };
    delete copy[key];
    return copy;
  }
  if (o[key] === value) return o;
  return { ...o, [key]: value };
}

/** A copy of `arr` with item `i` replaced by `fn(item)`. */
export function updateAt<T>(arr: readonly T[], i: number, fn: (item: T) => T): T[] {
  const copy = arr.slice();
  copy[i] = fn(arr[i]);
  return copy;
}

export function move<T>(arr: readonly T[], from: number, to: number): T[] {
  const copy = arr.slice();
  if (from < 0 || from >= copy.length || to < 0 || to >= copy.length) return copy;
  const [x] = copy.splice(from, 1);
  copy.splice(to, 0, x);
  return copy;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}
