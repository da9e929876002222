// The smart-list filter tree: groups {type: and|or|not, children} and conditions
// {type: condition, field, operator, value}. Nodes are addressed by a path of child indexes.
// The shape itself (which nodes are groups and conditions, the operators offered) is core's.
import { FILTER_GROUP_TYPES, FILTER_OPERATORS, isFilterCondition, isFilterGroup } from '@setup-pack/core';
import { asArr, asObj, setKey, type Obj } from './json.js';

export type FilterPath = number[];
export const GROUP_TYPES = FILTER_GROUP_TYPES;
export const OPERATORS: readonly string[] = Object.keys(FILTER_OPERATORS);
export const isCondition = isFilterCondition;
export const isGroup = isFilterGroup;

export function nodeAt(root: unknown, path: FilterPath): unknown {
  let n = root;
  for (const i of path) n = asArr(asObj(n).children)[i];
  return n;
}

export function updateAtPath(root: unknown, path: FilterPath, fn: (n: Obj) => Obj | undefined): unknown {
  if (path.length === 0) return fn(asObj(root));
  const [i, ...rest] = path as [number, ...number[]];
  const group = asObj(root);
  const children = asArr(group.children);
  const child = updateAtPath(children[i], rest, fn);
  const next = child === undefined ? children.filter((_, j) => j !== i) : children.map((c, j) => (j === i ? child : c));
  return setKey(group, 'children', next);
}

export const newCondition = (): Obj => ({ type: 'condition', field: 'tags', operator: 'includes', value: '' });
export const newGroup = (type: 'and' | 'or' | 'not' = 'and'): Obj => ({ type, children: [] });

export function addChild(root: unknown, path: FilterPath, child: Obj): unknown {
  return updateAtPath(root, path, (g) => setKey(g, 'children', [...asArr(g.children), child]));
}

export function removeAt(root: unknown, path: FilterPath): unknown {
  if (path.length === 0) return root;
  return updateAtPath(root, path, () => undefined);
}

/** Parses what a user typed as a condition value: numbers, true/false, JSON arrays; otherwise text. */
export function parseValue(text: string): unknown {
  const t = text.trim();
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  if (t === 'true' || t === 'false') return t === 'true';
  if (t.startsWith('[') || t.startsWith('{')) {
    try {
      return JSON.parse(t);
    } catch {
      /* keep the text */
    }
  }
  return text;
}

export const formatValue = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));
