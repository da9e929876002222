// The item on screen as its forms and canvas edit it: the automation's document (the canvas's
// `edit`), the item's own fields, a new automation; and the findings its form shows on its fields.
import { useCallback, useMemo } from 'react';
import type { EditorStore } from '../../model/store.js';
import { addItem, documentOf, items, newItem, updateItem, type PackValue, type Target } from '../../model/pack.js';
import { editGraph } from '../../model/actions.js';
import { nodeAt } from '../../model/graph.js';
import { findingsOnForm, formPointer, type FindingIndex } from '../../model/findings.js';
import { str, type Obj } from '../../model/json.js';
import { targetKey } from './useSelection.js';

type Edit = (fn: (o: Obj) => Obj, coalesce?: string) => void;

export interface ItemEditing {
  /** The automation shown on the canvas (-1 for another kind of item), its document and its item. */
  automationIndex: number;
  doc: Obj | undefined;
  item: Obj | undefined;
  /** Edits the automation's document: one undoable step, or one per burst under a `coalesce` name. */
  editDoc: Edit;
  /** Edits the item's own fields (the pack's, for the pack). */
  editItem: Edit;
  addAutomation: () => void;
}

export function useItemEditing(store: EditorStore, pack: PackValue, target: Target, select: (t: Target) => void): ItemEditing {
  const automationIndex = target.kind === 'automations' ? target.index : -1;
  const doc = automationIndex >= 0 ? documentOf(pack, automationIndex) : undefined;
  const editDoc = useCallback(
    (fn: (d: Obj) => Obj, coalesce?: string) =>
      store.commit((p) => editGraph(p, automationIndex, fn), coalesce ? `a${automationIndex}:${coalesce}` : undefined),
    [store, automationIndex],
  );
  const editItem = (fn: (i: Obj) => Obj, coalesce?: string) => {
    if (target.kind === 'pack') store.commit(fn, coalesce ? `pack:${coalesce}` : undefined);
    else
      store.commit(
        (p) => updateItem(p, target.kind, (target as { index: number }).index, fn),
        coalesce ? `${targetKey(target)}:${coalesce}` : undefined,
      );
  };
  const item = target.kind === 'automations' ? items(pack, 'automations')[target.index] : undefined;
  const addAutomation = () => {
    let index = 0;
    store.commit((p) => {
      const r = addItem(p, 'automations', newItem(p, 'automations'));
      index = r.index;
      return r.pack;
    });
    select({ kind: 'automations', index });
  };
  return { automationIndex, doc, item, editDoc, editItem, addAutomation };
}

/**
 * The findings the form on screen shows on its fields: the item's, or the selected block's; and
 * where the form's field paths start in the pack (what a field's own note names the field by).
 */
export function useFormFindings(findings: FindingIndex, pack: PackValue, target: Target, doc: Obj | undefined, selected: string[]) {
  const block = doc && selected.length === 1 ? nodeAt(doc, selected[0]) : undefined;
  const blockId = block ? selected[0] : undefined;
  const blockKind = block ? str(block.kind) : undefined;
  const shown = useMemo(
    () => findingsOnForm(findings, target, blockId === undefined ? undefined : { id: blockId, kind: blockKind ?? '' }),
    [findings, target, blockId, blockKind],
  );
  return { findings: shown, at: formPointer(pack, target, blockId) };
}
