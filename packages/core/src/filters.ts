// The filter document shape we read (docs/filters.md): groups {type: and|or|not, children} and
// conditions {type: condition, field, operator, value}. Smart lists and control.if conditions
// share it. One statement for the filters/unrecognized rule, the editor's filter tree and the
// summaries that say a filter in words.
import type { ReferenceType } from './types.js';

export const FILTER_GROUP_TYPES = ['and', 'or', 'not'] as const;
export type FilterGroupType = (typeof FILTER_GROUP_TYPES)[number];

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** An and/or/not group (its children may still be missing: the rule reports that). */
export function isFilterGroup(n: unknown): n is { type: FilterGroupType; children?: unknown } {
  return isObj(n) && typeof n.type === 'string' && (FILTER_GROUP_TYPES as readonly string[]).includes(n.type);
}

/** A condition: type "condition", or no type but a field. */
export function isFilterCondition(n: unknown): n is { type?: 'condition'; field?: unknown; operator?: unknown; value?: unknown } {
  return isObj(n) && (n.type === 'condition' || (n.type === undefined && 'field' in n));
}

/**
 * The operators the editor offers, each with its words. The spec does not fix operators, so
 * others are kept and said as they are written.
 */
export const FILTER_OPERATORS: Readonly<Record<string, string>> = {
  equals: 'is',
  not_equals: 'is not',
  contains: 'contains',
  includes: 'includes',
  excludes: 'excludes',
  greater_than: 'is more than',
  less_than: 'is less than',
  is_set: 'is set',
  is_not_set: 'is not set',
  is_true: 'is true',
  is_false: 'is false',
  within_last_days: 'is within the last',
  older_than_days: 'is more than',
};

/** Condition fields whose values are ids or pack keys of a reference type. */
export const FILTER_FIELD_REFERENCES: Readonly<Record<string, ReferenceType>> = {
  tags: 'tag',
  tag: 'tag',
  tag_id: 'tag',
  stage: 'stage',
  stage_id: 'stage',
  lead_source: 'lead_source',
  lead_source_id: 'lead_source',
  smart_list_id: 'smart_list',
};

/** Text, or a reference to an item, in a summary: the editor shows references by name, as links. */
export type SummaryPart = string | { ref: ReferenceType; id: string };

const NO_VALUE = new Set(['is_set', 'is_not_set', 'is_true', 'is_false']);
const words = (name: string) => name.replace(/_id$/, '').replace(/_/g, ' ');
/** A value as short text: a summary shows a line or two, so long text (a 20,000-character body) is cut. */
export const clipText = (t: string): string => (t.length > 120 ? `${t.slice(0, 119)}…` : t);
const valueText = (v: unknown) => clipText(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

function describeCondition(c: Record<string, unknown>, out: SummaryPart[]): void {
  const field = typeof c.field === 'string' ? c.field : '(no field)';
  const op = typeof c.operator === 'string' ? c.operator : '(no operator)';
  const ref = FILTER_FIELD_REFERENCES[field];
  const values = Array.isArray(c.value) ? c.value : c.value === undefined ? [] : [c.value];
  const pushValues = () =>
    values.forEach((v, i) => {
      if (i > 0) out.push(i === values.length - 1 ? ' or ' : ', ');
      out.push(ref && typeof v === 'string' && v !== '' ? { ref, id: v } : valueText(v));
    });
  // Tags read best as something the contact has.
  if (ref === 'tag' && (op === 'includes' || op === 'excludes' || op === 'equals')) {
    out.push(op === 'excludes' ? 'contact does not have tag ' : 'contact has tag ');
    pushValues();
    return;
  }
  out.push(`${words(field)} ${FILTER_OPERATORS[op] ?? op.replace(/_/g, ' ')}`);
  if (NO_VALUE.has(op) || values.length === 0) return;
  out.push(' ');
  pushValues();
  if (op === 'within_last_days' || op === 'older_than_days') out.push(op === 'older_than_days' ? ' days ago' : ' days');
}

/** A filter node in words: "contact has tag Buyer lead and (stage is New or …)". */
export function describeFilter(node: unknown, out: SummaryPart[] = [], depth = 0): SummaryPart[] {
  if (depth > 16) {
    out.push('…');
    return out;
  }
  if (isFilterGroup(node)) {
    const children: unknown[] = Array.isArray(node.children) ? node.children : [];
    if (node.type === 'not') {
      out.push('not ');
      const inner = children[0];
      // Parenthesised but for another not: "not do not contact is true" read as a double negative
      // of one field; "not (do not contact is true)" says what is negated.
      const wrap = inner !== undefined && !(isFilterGroup(inner) && inner.type === 'not');
      if (wrap) out.push('(');
      if (inner === undefined) out.push('(nothing)');
      else describeFilter(inner, out, depth + 1);
      if (wrap) out.push(')');
      return out;
    }
    if (children.length === 0) {
      out.push(node.type === 'and' ? 'always' : 'never');
      return out;
    }
    children.forEach((child, i) => {
      if (i > 0) out.push(` ${node.type} `);
      const wrap =
        isFilterGroup(child) &&
        child.type !== 'not' &&
        child.type !== node.type &&
        Array.isArray(child.children) &&
        child.children.length > 1;
      if (wrap) out.push('(');
      describeFilter(child, out, depth + 1);
      if (wrap) out.push(')');
    });
    return out;
  }
  if (isFilterCondition(node)) describeCondition(node, out);
  else out.push('(a condition in a shape we do not read)');
  return out;
}

/** A filter node as one line of text: describeFilter's words, a reference as its id or key. */
export function filterText(node: unknown): string {
  return describeFilter(node)
    .map((p) => (typeof p === 'string' ? p : p.id))
    .join('');
}

/**
 * A place in a filter tree, as a diff names it: "root", or the 1-based positions of the children
 * from the root down ("root › 2 › 1" is the first child of the root's second child).
 */
export function filterPlace(path: readonly number[]): string {
  return ['root', ...path.map((i) => String(i + 1))].join(' › ');
}
