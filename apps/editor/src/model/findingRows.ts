// The diagnostics panel's rows: findings grouped by code and message shape (core's groupFindings,
// the same folding as `setup-pack validate`), each group one row with its count, opened to list
// its findings. Plain data, so the panel can virtualise any number of rows.
import { groupFindings, type Diagnostic, type FindingGroup, type Severity } from '@setup-pack/core';

export type FindingRow =
  | { type: 'group'; id: string; group: FindingGroup; open: boolean }
  | { type: 'item'; id: string; finding: Diagnostic; nested: boolean };

const order: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** Groups, errors first; a group of one is a plain finding row. */
export function groupRows(diagnostics: readonly Diagnostic[]): FindingGroup[] {
  return groupFindings(diagnostics).sort((a, b) => order[a.severity] - order[b.severity]);
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

export const groupId = (g: FindingGroup) => `${g.severity}\u0000${g.code}\u0000${g.shape}`;
