// The diff of two smart-list filter documents (docs/filters.md): the tree has no keys, so nodes
// are matched by meaning, then by likeness, and named by their place (FilterChange in ./index.ts).
import { filterText, isFilterCondition, isFilterGroup } from '../filters.js';
import { differingKeys, isObj, jsonEqual } from './compare.js';
import type { FilterChange, FilterDiff } from './types.js';

type Node = Record<string, unknown>;

const shapeOf = (n: unknown): FilterChange['node'] => (isFilterGroup(n) ? 'group' : isFilterCondition(n) ? 'condition' : 'other');
const childrenOf = (n: unknown): unknown[] => (isObj(n) && Array.isArray(n.children) ? n.children : []);
/** And and or do not depend on the order of their children; not has one. */
const unordered = (n: unknown) => isFilterGroup(n) && n.type !== 'not';

/** A node's meaning as a string: keys sorted, and the children of an and/or group in a fixed order. */
function meaning(n: unknown, depth = 0): string {
  if (depth > 64) return JSON.stringify(n) ?? 'undefined';
  if (Array.isArray(n)) return `[${n.map((v) => meaning(v, depth + 1)).join(',')}]`;
  if (!isObj(n)) return JSON.stringify(n) ?? 'undefined';
  const entries = Object.keys(n)
    .sort()
    .map((k) => {
      if (k === 'children' && unordered(n) && Array.isArray(n.children))
        return `${JSON.stringify(k)}:[${n.children
          .map((c) => meaning(c, depth + 1))
          .sort()
          .join(',')}]`;
      return `${JSON.stringify(k)}:${meaning(n[k], depth + 1)}`;
    });
  return `{${entries.join(',')}}`;
}

function diffNode(a: unknown, b: unknown, path: number[], out: FilterChange[]): void {
  if (jsonEqual(a, b)) return;
  const shape = shapeOf(b);
  if (shape !== shapeOf(a) || shape === 'other') {
    out.push({ path, change: 'changed', node: shape, before: filterText(a), after: filterText(b) });
    return;
  }
  const na = a as Node;
  const nb = b as Node;
  if (shape === 'condition') {
    out.push({ path, change: 'changed', node: shape, fields: differingKeys(na, nb), before: filterText(a), after: filterText(b) });
    return;
  }
  const fields = differingKeys(na, nb, new Set(['children']));
  // A children that is not a list reads as none (filters/unrecognized says so): say it changed.
  if ((!Array.isArray(na.children) || !Array.isArray(nb.children)) && !jsonEqual(na.children, nb.children)) fields.push('children');
  if (fields.length) out.push({ path, change: 'changed', node: shape, fields, before: filterText(a), after: filterText(b) });
  diffChildren(a, b, path, out);
}

/** Pairs the children of two groups (new index → old index), the likeliest pairs first. */
function pairChildren(a: unknown[], b: unknown[]): Map<number, number> {
  const pairs = new Map<number, number>();
  const used = new Set<number>();
  const pass = (same: (x: unknown, y: unknown, i: number, j: number) => boolean) => {
    for (let j = 0; j < b.length; j++) {
      if (pairs.has(j)) continue;
      for (let i = 0; i < a.length; i++) {
        if (used.has(i) || !same(a[i], b[j], i, j)) continue;
        pairs.set(j, i);
        used.add(i);
        break;
      }
    }
  };
  const conditions = (x: unknown, y: unknown): x is Node => isFilterCondition(x) && isFilterCondition(y);
  const ma = a.map((n) => meaning(n));
  const mb = b.map((n) => meaning(n));
  // First the pairs in order: an alignment of the two lists (an edit distance) where an equal
  // child costs nothing, a like one (a condition on the same field, a group) a little more than
  // one added or removed child and less than both, and an unlike one cannot pair. So equal
  // siblings (two empty groups) pair in their order, a group whose type flipped pairs in place,
  // and no reorder is made up; children paired out of that order below are a reorder.
  const like = (x: unknown, y: unknown): number => {
    if (conditions(x, y)) return x.field !== (y as Node).field ? Infinity : x.operator === (y as Node).operator ? 1.1 : 1.2;
    if (isFilterGroup(x) && isFilterGroup(y)) return x.type === y.type ? 1.3 : 1.4;
    return Infinity;
  };
  // Only children that may lack an equal on the other side pair by likeness: a child of a meaning
  // that side has no more of than the other does pairs with an equal (in order, or below as a
  // reorder), never with a like one, which would read a reorder as changes.
  const tally = (ms: string[]) => ms.reduce((m, k) => m.set(k, (m.get(k) ?? 0) + 1), new Map<string, number>());
  const inA = tally(ma);
  const inB = tally(mb);
  const spareA = ma.map((k) => inA.get(k)! > (inB.get(k) ?? 0));
  const spareB = mb.map((k) => inB.get(k)! > (inA.get(k) ?? 0));
  const cost = (i: number, j: number) => (ma[i] === mb[j] ? 0 : spareA[i] && spareB[j] ? like(a[i], b[j]) : Infinity);
  const d = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length; i >= 0; i--) {
    for (let j = b.length; j >= 0; j--) {
      if (i === a.length || j === b.length) d[i][j] = a.length - i + (b.length - j);
      else d[i][j] = Math.min(d[i + 1][j] + 1, d[i][j + 1] + 1, cost(i, j) + d[i + 1][j + 1]);
    }
  }
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    if (cost(i, j) + d[i + 1][j + 1] === d[i][j]) {
      pairs.set(j++, i);
      used.add(i++);
    } else if (d[i + 1][j] + 1 === d[i][j]) i++;
    else j++;
  }
  pass((_x, _y, i, j) => ma[i] === mb[j]);
  pass((x, y) => conditions(x, y) && x.field === (y as Node).field && x.operator === (y as Node).operator);
  pass((x, y) => conditions(x, y) && x.field === (y as Node).field);
  pass((x, y) => isFilterGroup(x) && isFilterGroup(y) && x.type === y.type);
  pass((x, y) => isFilterGroup(x) && isFilterGroup(y));
  return pairs;
}

function diffChildren(a: unknown, b: unknown, path: number[], out: FilterChange[]): void {
  const ca = childrenOf(a);
  const cb = childrenOf(b);
  const pairs = pairChildren(ca, cb);
  // The children both filters have, in the new order: out of the old order, they were reordered.
  const kept = [...pairs.keys()].sort((x, y) => x - y).map((j) => pairs.get(j)!);
  if (unordered(b) && kept.some((i, k) => k > 0 && i < kept[k - 1])) out.push({ path, change: 'reordered', node: 'group' });
  cb.forEach((child, j) => {
    const i = pairs.get(j);
    if (i === undefined) out.push({ path: [...path, j], change: 'added', node: shapeOf(child), after: filterText(child) });
    else diffNode(ca[i], child, [...path, j], out);
  });
  const paired = new Set(pairs.values());
  ca.forEach((child, i) => {
    if (!paired.has(i)) out.push({ path: [...path, i], change: 'removed', node: shapeOf(child), before: filterText(child) });
  });
}

/** What changed between two filter nodes (a control.if block's conditions): changes with paths from `a` and `b` down. */
export function diffFilterNodes(a: unknown, b: unknown): FilterChange[] {
  const changes: FilterChange[] = [];
  diffNode(a, b, [], changes);
  return changes;
}

/** What changed between two smart-list filter documents (`{version, root}`). */
export function diffFilters(oldFilters: unknown, newFilters: unknown): FilterDiff {
  const a = isObj(oldFilters) ? oldFilters : {};
  const b = isObj(newFilters) ? newFilters : {};
  return { fields: differingKeys(a, b, new Set(['root'])), changes: diffFilterNodes(a.root, b.root) };
}
