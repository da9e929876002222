// What changed between two pack states, by reference: immutable edits share every untouched
// part, so an edit deep inside one automation changes one item of one array. Sending only that
// to the validation worker avoids structured-cloning a 10+ MiB pack on every pause in typing.
import { ITEM_KINDS } from './pack.js';
import type { PackValue } from './pack.js';

export type PackPatch =
  | { reset: PackValue }
  | { set: Record<string, unknown>; remove: string[]; items: Record<string, { length: number; changed: Record<number, unknown> }> };

const ARRAYS = new Set<string>(ITEM_KINDS);

export function diffForWorker(prev: PackValue | undefined, next: PackValue): PackPatch {
  if (!prev) return { reset: next };
  const set: Record<string, unknown> = {};
  const remove = Object.keys(prev).filter((k) => !(k in next));
  const items: Record<string, { length: number; changed: Record<number, unknown> }> = {};
  for (const [k, v] of Object.entries(next)) {
    const old = prev[k];
    if (old === v) continue;
    if (ARRAYS.has(k) && Array.isArray(old) && Array.isArray(v)) {
      const changed: Record<number, unknown> = {};
      v.forEach((item, i) => {
        if (old[i] !== item) changed[i] = item;
      });
      items[k] = { length: v.length, changed };
    } else set[k] = v;
  }
  // Key order matters to nobody in validation, but keep it simple: a reordered or renamed key set is a reset.
  if (
    Object.keys(prev)
      .filter((k) => k in next)
      .join() !==
    Object.keys(next)
      .filter((k) => k in prev)
      .join()
  )
    return { reset: next };
  return { set, remove, items };
}

export function applyPatch(base: PackValue | undefined, patch: PackPatch): PackValue {
  if ('reset' in patch) return patch.reset;
  const out: PackValue = { ...(base ?? {}) };
  for (const k of patch.remove) delete out[k];
  for (const [k, v] of Object.entries(patch.set)) out[k] = v;
  for (const [k, { length, changed }] of Object.entries(patch.items)) {
    const arr = Array.isArray(out[k]) ? (out[k] as unknown[]).slice(0, length) : [];
    arr.length = length;
    for (const [i, v] of Object.entries(changed)) arr[Number(i)] = v;
    out[k] = arr;
  }
  return out;
}
