// Findings in document order without their positions. A report that prints a few findings of
// tens of thousands needs their order (which come first) but the positions of the few only, so
// the order is read from the parsed value: array elements by index, properties by their place in
// the object, which for JSON.parse is their place in the text.
import { compareAtOnePlace, comparePointers, type Diagnostic } from '../diagnostics.js';
import { sharedDepth, tokenIndex, unescapeToken } from './pointer.js';
import { grown } from './positions.js';

/** Whether JSON.parse lists a property name before the others, in numeric order: an array index. */
function isIndexName(name: string): boolean {
  const n = name.length;
  if (n === 0 || n > 10 || (n > 1 && name.charCodeAt(0) === 48)) return false;
  for (let i = 0; i < n; i++) {
    const c = name.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return Number(name) < 4294967295;
}

/** Objects with this many properties or more get a map from name to place, built once. */
const MANY = 16;
/** Thrown when the value cannot tell text order (see sortInDocumentOrder). */
const UNKNOWN_ORDER = new Error('order unknown');

/**
 * Sorts `list` as placing every finding and then sortDiagnostics would: by position in the text,
 * then severity, then code, then the order they were reported in. A finding's position is its
 * value's (a container's opening bracket), or its property name's when `placesKey` says so, or,
 * for a pointer that does not resolve, the deepest value on its way (as the Locator places them).
 *
 * Each finding gets a row of numbers in one typed array: per pointer token, 2 + its index in the
 * array or its place among the object's properties; then 0 for a property name (just before its
 * value) or 1 for a value (just before what it holds). Comparing rows number by number is
 * comparing positions. Each pointer resumes from the prefix it shares with the one before, as the
 * Locator does, so a finding costs a token or two; nothing is allocated per finding.
 *
 * `value` must be what JSON.parse made of the text, the text must repeat no property name (the
 * last one would win in place and value, the first in order), and no finding may be placed yet.
 * Returns false, leaving the list as it was, when a finding is already placed or an object on a
 * finding's path has property names that are array indices (JSON.parse lists those first).
 */
export function sortInDocumentOrder(value: unknown, list: Diagnostic[], placesKey: (d: Diagnostic) => boolean): boolean {
  let width = 16; // numbers per row: tokens and the end mark; doubled for a deeper pointer
  let rows = new Int32Array(list.length * width); // an unplaced finding's row stays all 0
  let ends = new Int32Array(32); // where the d-th token of the last pointer ends
  let places = new Int32Array(32); // the d-th token's index or place
  const values: unknown[] = [value]; // the value at each depth of the last pointer
  let last = '';
  let depth = 0;
  const maps = new Map<object, Map<string, number>>();
  const placeOf = (object: object, name: string): number => {
    const map = maps.get(object);
    if (map) return map.get(name) ?? -1;
    let i = 0;
    let found = -1;
    for (const key in object) {
      if (i === 0 && isIndexName(key)) throw UNKNOWN_ORDER;
      if (key === name) found = i;
      if (++i === MANY) break;
    }
    if (i < MANY) return found;
    const names = Object.keys(object);
    maps.set(object, new Map(names.map((n, at) => [n, at])));
    return names.indexOf(name);
  };
  // The value a pointer's last token names is looked up only when a later pointer goes below it:
  // runs of findings mostly turn aside at their last token (…/config/a, then …/config/b). Either
  // no depth is pending (-1) or the last pointer's deepest, named `pendingName`.
  let pending = -1;
  let pendingName = '';
  try {
    for (let f = 0; f < list.length; f++) {
      const d = list[f];
      if (d.line !== undefined || d.related?.some((r) => r.line !== undefined)) return false;
      const pointer = d.pointer;
      if (pointer !== '' && pointer.charCodeAt(0) !== 47) continue; // never placed: before every placed finding, as line 0
      let k = sharedDepth(last, ends, depth, pointer);
      if (pending > k) pending = -1; // this pointer turns aside above it: never read
      let resolved = true;
      for (let i = ends[k] + 1; i <= pointer.length;) {
        let j = pointer.indexOf('/', i);
        if (j < 0) j = pointer.length;
        const raw = pointer.slice(i, j);
        const token = raw.indexOf('~') < 0 ? raw : unescapeToken(raw);
        if (k === pending) {
          const above = values[k - 1];
          values[k] = Array.isArray(above) ? above[places[k]] : (above as Record<string, unknown>)[pendingName];
          pending = -1;
        }
        const parent = values[k];
        let at = -1;
        if (Array.isArray(parent)) {
          at = tokenIndex(token);
          if (at >= parent.length) at = -1;
        } else if (parent !== null && typeof parent === 'object') {
          at = placeOf(parent, token);
        }
        if (at < 0) {
          resolved = false;
          break;
        }
        if (++k === ends.length) {
          ends = grown(ends, k * 2);
          places = grown(places, k * 2);
        }
        ends[k] = j;
        places[k] = at;
        if (j === pointer.length) {
          pending = k;
          pendingName = token;
        } else values[k] = Array.isArray(parent) ? parent[at] : (parent as Record<string, unknown>)[token];
        i = j + 1;
      }
      depth = k;
      // Only the prefix that resolved is kept for the next pointer.
      last = resolved ? pointer : pointer.slice(0, ends[k]);
      while (k >= width) {
        const wider = new Int32Array(list.length * width * 2);
        for (let r = 0; r < f; r++) wider.set(rows.subarray(r * width, (r + 1) * width), r * width * 2);
        rows = wider;
        width *= 2;
      }
      const row = f * width;
      for (let t = 1; t <= k; t++) rows[row + t - 1] = places[t] + 2;
      rows[row + k] = resolved && k > 0 && placesKey(d) && !Array.isArray(values[k - 1]) ? 0 : 1;
    }
  } catch (e) {
    if (e === UNKNOWN_ORDER) return false;
    throw e;
  }
  values.length = 0;
  const order = Array.from(list.keys());
  order.sort((a, b) => {
    const x = a * width;
    const y = b * width;
    for (let t = 0; t < width; t++) {
      const p = rows[x + t];
      const q = rows[y + t];
      if (p !== q) return p - q;
      if (p < 2) break;
    }
    const p = list[a];
    const q = list[b];
    return (rows[x] === 0 ? comparePointers(p.pointer, q.pointer) : 0) || compareAtOnePlace(p, q) || a - b;
  });
  const copy = list.slice();
  for (let i = 0; i < order.length; i++) list[i] = copy[order[i]];
  return true;
}
