// Stable React keys for the rows of a list the pack holds (a filter group's children, a
// pipeline's stages): a row keeps its key while its item is there, wherever it moves, so what a
// row holds of its own (a typed value not applied yet) stays with its item, never with the item
// that took its index.
import { placeInArray } from './fileText.js';

/**
 * The keys of `after`'s items, one edit after `before` (whose items had `keys`): each item that is
 * still there keeps its key (followPointer's rule for one array: found by identity, else by the
 * items around it the edit left), and every other one gets a new key from `fresh`.
 */
export function followKeys<K>(before: readonly unknown[], keys: readonly K[], after: readonly unknown[], fresh: () => K): K[] {
  const out: (K | undefined)[] = new Array<K | undefined>(after.length);
  const taken = new Set<number>();
  for (let i = 0; i < before.length && i < keys.length; i++) {
    const j = placeInArray(before, after, i);
    if (j === undefined || j < 0 || j >= after.length || taken.has(j)) continue;
    taken.add(j);
    out[j] = keys[i];
  }
  return Array.from(out, (k) => (k === undefined ? fresh() : k));
}
