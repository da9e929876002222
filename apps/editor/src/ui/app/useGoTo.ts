// Going to what something names: a finding's place (its item, block or edge, and field), a
// reference's item, an automation's steps from the Simulate panel, an item of the plan.
import { useCallback } from 'react';
import type { Diagnostic, PackItemOfReference } from '@setup-pack/core';
import { documentOf, type PackValue, type Target } from '../../model/pack.js';
import { nodeAt } from '../../model/graph.js';
import { formPath, locate } from '../../model/findings.js';
import { PLAN_KIND_LIST } from '../PlanPanel.js';
import { useLatestCallback } from '../useLatestCallback.js';
import { targetKey, type Selection } from './useSelection.js';

/** The index of the item of pack list `list` whose key is `key`; -1 when there is none. */
const indexOfKey = (pack: PackValue, list: string, key: string) =>
  ((pack as Record<string, unknown>)[list] as { key?: string }[] | undefined)?.findIndex((x) => x?.key === key) ?? -1;

export interface GoTo {
  /** Shows a finding's place and focuses the field it is about. */
  pickDiagnostic: (d: Diagnostic) => void;
  /** pickDiagnostic, stable for the diagnostics list (which then re-renders only on a new validation result). */
  onPickDiagnostic: (d: Diagnostic) => void;
  /** A reference in a block's summary (or a ref field) opens the item it names; a deal stage, its pipeline with the stage's name focused. */
  openReference: (item: PackItemOfReference) => void;
  /** Opens the automation of pack key `key` on the canvas, with `nodes` selected (the Simulate panel's steps and paths). */
  openAutomation: (key: string, nodes: string[]) => void;
  /** Opens the item a plan's step, warning or error names. */
  openPlanItem: (kind: string, key: string) => void;
}

/** `closeFlowMap` leaves the Flow map for the canvas. */
export function useGoTo(nav: Selection, pack: PackValue, target: Target, closeFlowMap: () => void): GoTo {
  const { select, setFocus, setFieldFocus, clearSelection } = nav;
  const openReference = useCallback(
    (item: PackItemOfReference) => {
      select({ kind: item.kind, index: item.index });
      if (item.stage !== undefined) setFieldFocus({ path: ['stages', String(item.stage), 'name'], seq: Date.now() });
    },
    [select, setFieldFocus],
  );
  const pickDiagnostic = (d: Diagnostic) => {
    const loc = locate(pack, d.pointer);
    if (targetKey(loc.target) !== targetKey(target)) select(loc.target);
    if (loc.target.kind === 'automations') setFocus({ nodeId: loc.nodeId, edgeId: loc.edgeId, seq: Date.now() });
    if (!loc.nodeId) clearSelection();
    const kind = loc.nodeId && loc.target.kind === 'automations' ? nodeAt(documentOf(pack, loc.target.index), loc.nodeId)?.kind : undefined;
    setFieldFocus({ path: formPath(loc, typeof kind === 'string' ? kind : undefined, d.missing), seq: Date.now() });
  };
  const onPickDiagnostic = useLatestCallback(pickDiagnostic);
  const openAutomation = (key: string, nodes: string[]) => {
    const index = indexOfKey(pack, 'automations', key);
    if (index < 0) return;
    closeFlowMap();
    select({ kind: 'automations', index });
    setFocus({ nodeIds: nodes, seq: Date.now() });
  };
  const planItem = (kind: string, key: string) => {
    // The brand is edited with the pack's own fields.
    if (kind === 'brand') return select({ kind: 'pack' });
    const list = PLAN_KIND_LIST[kind];
    const index = list ? indexOfKey(pack, list, key) : -1;
    if (list && index >= 0) select({ kind: list as never, index });
    // The automation's own form: the canvas lets go of its blocks too (it is not made anew when
    // the automation is the one already open, and would keep a block shown selected).
    if (list === 'automations') setFocus({ seq: Date.now() });
  };
  // Stable across renders, so the plan preview's rows (memoized) are not all drawn again per keystroke.
  const openPlanItem = useLatestCallback(planItem);
  return { pickDiagnostic, onPickDiagnostic, openReference, openAutomation, openPlanItem };
}
