// The smart-list filter tree: groups {type: and|or|not, children} and conditions
// {type: condition, field, operator, value}. Nodes are addressed by a path of child indexes.
// The shape itself (which nodes are groups and conditions, the operators offered) is core's.
import { FILTER_GROUP_TYPES, FILTER_OPERATORS, isFilterCondition, isFilterGroup, readNumber } from '@setup-pack/core';
import { jsonTextNotKept, numberTextRead, type TextRead } from './fileText.js';
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

/**
 * Reads what a user typed as a condition value: a number (core's readNumber: JSON's spelling, so
 * `01234` stays text), true/false, a JSON array or object; otherwise the text. A number or JSON
 * that says what the editor would not keep as written (`1e-400` reads as 0, a property written
 * twice) is not applied, with why (numberTextRead, jsonTextNotKept), as the JSON fields refuse it,
 * naming the value by `pointer`, its place in the pack.
 */
export function parseValue(text: string, pointer = '/value'): TextRead {
  const t = text.trim();
  if (t !== '' && readNumber(t)) return numberTextRead(t, pointer);
  if (t === 'true' || t === 'false') return { value: t === 'true' };
  if (t.startsWith('[') || t.startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(t);
    } catch {
      return { value: text }; // not JSON: kept as the text
    }
    const refused = jsonTextNotKept(t, pointer);
    return refused ? { error: refused } : { value };
  }
  return { value: text };
}

export const formatValue = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));
