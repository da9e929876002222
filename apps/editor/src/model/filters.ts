// The smart-list filter tree: groups {type: and|or|not, children} and conditions
// {type: condition, field, operator, value}. Nodes are addressed by a path of child indexes.
import { asArr, asObj, isObj, setKey, type Obj } from './json.js';

export type FilterPath = number[];
export const GROUP_TYPES = ['and', 'or', 'not'] as const;
export const OPERATORS = ['equals', 'not_equals', 'contains', 'includes', 'excludes', 'greater_than', 'less_than', 'is_set', 'is_not_set', 'is_true', 'is_false', 'within_last_days', 'older_than_days'] as const;

/** A condition: type "condition", or no type but a field (docs/filters.md). */
export const isCondition = (n: unknown): boolean => isObj(n) && (n.type === 'condition' || (n.type === undefined && typeof n.field === 'string'));

export const isGroup = (n: unknown): boolean => isObj(n) && (n.type === 'and' || n.type === 'or' || n.type === 'not');

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
