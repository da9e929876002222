// The diagnostics panel's rows: findings grouped by code and message shape (core's groupFindings,
// the same folding as `setup-pack validate`), each group one row with its count, opened to list
// its findings. Plain data, so the panel can virtualise any number of rows.
import { groupFindingsAt, groupOf, type Diagnostic, type FindingGroup, type Severity } from '@setup-pack/core';
import { changedRun, worthUpdating } from './findingsDelta.js';

export type FindingRow =
  { type: 'group'; id: string; group: FindingGroup; open: boolean } | { type: 'item'; id: string; finding: Diagnostic; nested: boolean };

const order: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** Groups, errors first; a group of one is a plain finding row. */
export function groupRows(diagnostics: readonly Diagnostic[]): FindingGroup[] {
  return regroupRows(undefined, diagnostics).groups;
}

/** Grouped findings, and what updating them when a few change needs. */
export interface GroupedRows {
  /** Errors first, then warnings, then infos; each in order of its first finding. */
  groups: FindingGroup[];
  list: readonly Diagnostic[];
  /** Each finding's group, by id (`byId`), in `list`'s order. */
  at: Int32Array;
  /** The groups by id; undefined for one that emptied. */
  byId: (FindingGroup | undefined)[];
  /** A group's id by `groupId`. */
  ids: Map<string, number>;
}

const sortGroups = (groups: FindingGroup[]) => groups.sort((a, b) => order[a.severity] - order[b.severity]);

/**
 * The groups of `list`, from `prev`'s when the two share a start and an end by identity and differ
 * in at most half (the page keeps its own objects for the findings a validation kept:
 * findingsDelta.ts): only the groups of the findings that left and came are made again, each
 * with its items spliced where its findings in the unchanged start end, and every other group
 * stays the object it was. Regrouping 59,700 findings (a shape each) cost about 25 ms of the
 * frame an edit that changed one finding ran in. Otherwise core's groupFindings, from scratch.
 */
export function regroupRows(prev: GroupedRows | undefined, list: readonly Diagnostic[]): GroupedRows {
  if (prev) {
    const next = update(prev, list);
    if (next) return next;
  }
  const { groups, at } = groupFindingsAt(list);
  return { groups: sortGroups([...groups]), list, at, byId: groups, ids: new Map(groups.map((g, i) => [groupId(g), i])) };
}

function update(prev: GroupedRows, list: readonly Diagnostic[]): GroupedRows | undefined {
  const a = prev.list;
  const run = changedRun(a, list);
  if (!worthUpdating(run, list.length)) return undefined;
  const { head, tail, gone, came } = run;
  const byId = prev.byId.slice();
  let ids = prev.ids;
  // Each touched group: how many of its findings left, and those that came, in order.
  const touched = new Map<number, { gone: number; came: Diagnostic[] }>();
  const touch = (id: number) => {
    let t = touched.get(id);
    if (!t) touched.set(id, (t = { gone: 0, came: [] }));
    return t;
  };
  for (let i = head; i < head + gone; i++) touch(prev.at[i]).gone++;
  const at = new Int32Array(list.length);
  at.set(prev.at.subarray(0, head));
  for (let i = head; i < head + came; i++) {
    const d = list[i];
    const group = groupOf(d);
    const key = groupId(group);
    let id = ids.get(key);
    if (id === undefined || !byId[id]) {
      if (ids === prev.ids) ids = new Map(ids);
      ids.set(key, (id = byId.length));
      byId.push(group);
    }
    touch(id).came.push(d);
    at[i] = id;
  }
  at.set(prev.at.subarray(a.length - tail), head + came);
  // A touched group's findings before the change are its first items: the rest follow its new ones.
  const before = new Map<number, number>();
  for (const id of touched.keys()) before.set(id, 0);
  for (let i = 0; i < head; i++) {
    const n = before.get(prev.at[i]);
    if (n !== undefined) before.set(prev.at[i], n + 1);
  }
  for (const [id, t] of touched) {
    const g = byId[id]!;
    const k = before.get(id)!;
    const items = [...g.items.slice(0, k), ...t.came, ...g.items.slice(k + t.gone)];
    if (items.length) byId[id] = { ...g, items };
    else {
      byId[id] = undefined;
      if (ids === prev.ids) ids = new Map(ids);
      ids.delete(groupId(g));
    }
  }
  // In order of each group's first finding, as groupFindings orders them; then errors first.
  const seen = new Uint8Array(byId.length);
  const groups: FindingGroup[] = [];
  for (let i = 0; i < at.length; i++) {
    const id = at[i];
    if (!seen[id]) {
      seen[id] = 1;
      groups.push(byId[id]!);
    }
  }
  return { groups: sortGroups(groups), list, at, byId, ids };
}

/** The visible rows for the open groups (ids are stable across renders for the virtualiser). */
export function flattenRows(groups: readonly FindingGroup[], open: ReadonlySet<string>): FindingRow[] {
  const rows: FindingRow[] = [];
  groups.forEach((group, g) => {
    if (group.items.length === 1) {
      rows.push({ type: 'item', id: `${g}`, finding: group.items[0], nested: false });
      return;
    }
    const id = groupId(group);
    const isOpen = open.has(id);
    rows.push({ type: 'group', id, group, open: isOpen });
    if (isOpen) group.items.forEach((finding, i) => rows.push({ type: 'item', id: `${id}/${i}`, finding, nested: true }));
  });
  return rows;
}

export const groupId = (g: Pick<FindingGroup, 'severity' | 'code' | 'shape'>) => `${g.severity}\u0000${g.code}\u0000${g.shape}`;
