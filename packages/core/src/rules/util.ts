import { packKeyTypes } from '../references.js';
import type { RuleContext } from './rule.js';

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The object elements of an array with their indexes (anything else is the schema's business). */
export function objects(list: unknown): [Record<string, unknown>, number][] {
  if (!Array.isArray(list)) return [];
  const out: [Record<string, unknown>, number][] = [];
  list.forEach((v, i) => {
    if (isObj(v)) out.push([v, i]);
  });
  return out;
}

export { isObj };

/** How a message names a value that may be missing or of the wrong type. */
export function named(v: unknown, fallback: string): string {
  if (typeof v === 'string' && v !== '') return v.length > 60 ? v.slice(0, 57) + '…' : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return fallback;
}

/**
 * Calls `onRepeat(item, first)` for every item whose signature an earlier item already had.
 * Items whose signature is undefined are skipped. The shared shape of the uniqueness rules.
 */
export function forEachRepeat<T>(items: Iterable<T>, signature: (item: T) => unknown, onRepeat: (item: T, first: T) => void): void {
  const first = new Map<unknown, T>();
  for (const item of items) {
    const sig = signature(item);
    if (sig === undefined) continue;
    const prev = first.get(sig);
    if (prev === undefined) first.set(sig, item);
    else onRepeat(item, prev);
  }
}

/**
 * Calls `onRepeat(index, firstIndex)` for every object element of `list` whose string `field` an
 * earlier element already had.
 */
export function forEachRepeatedField(list: unknown, field: string, onRepeat: (index: number, first: number) => void): void {
  if (!Array.isArray(list)) return;
  const values = new Array<string | undefined>(list.length);
  for (let i = 0; i < list.length; i++) {
    const v: unknown = list[i];
    const f = isObj(v) ? v[field] : undefined;
    values[i] = typeof f === 'string' ? f : undefined;
  }
  forEachRepeatedValue(values, onRepeat);
}

/**
 * Calls `onRepeat(index, firstIndex)` for every element of `values` (undefined ones skipped) that
 * an earlier element equals (SameValueZero, as forEachRepeat's map compares). Short lists (pipeline stages, the days of a
 * week) are compared pairwise, which needs no map; longer ones go through one.
 */
export function forEachRepeatedValue(values: readonly unknown[], onRepeat: (index: number, first: number) => void): void {
  if (values.length > 64) {
    forEachRepeat(values.keys(), (i) => values[i], onRepeat);
    return;
  }
  for (let i = 1; i < values.length; i++) {
    const v = values[i];
    if (v === undefined) continue;
    for (let j = 0; j < i; j++) {
      const w = values[j];
      if (w === v || (v !== v && w !== w)) {
        onRepeat(i, j);
        break;
      }
    }
  }
}

const keyTypes = new WeakMap<RuleContext, Map<string, number>>();

/**
 * packKeyTypes of the pack being validated, made once for the rules that ask it (reference/unresolved-id
 * and reference/missing-name each did, for every pack). Kept by the validation's context, not by the
 * pack: a pack object changed and validated again gets its keys anew.
 */
export function packKeyTypesOfRules(ctx: RuleContext): Map<string, number> {
  let keys = keyTypes.get(ctx);
  if (!keys) keyTypes.set(ctx, (keys = packKeyTypes(ctx.pack)));
  return keys;
}
