// The plan preview's plan, worked out in a worker of its own (plan.worker.ts) while the panel is
// open: the workspace's copy goes to it once per read, then a patch of the pack per edit
// (usePackWorker). Where no worker can start, the same planView runs on the main thread.
import { useMemo } from 'react';
import { plural, pluralWord, type Pack } from '@setup-pack/core';
import { planView, type PlanInput, type PlanView } from '../model/planView.js';
import type { WorkspaceState } from '../workspace/catalog.js';
import { usePackWorker } from './usePackWorker.js';

export interface PlanPreview {
  view?: PlanView;
  note?: string;
  /** A newer edit than the plan shown is being planned. */
  pending: boolean;
}

const planWorker = () => new Worker(new URL('../plan.worker.ts', import.meta.url), { type: 'module' });

/** `errors`: the pack's error count; a pack with errors is not planned, and the note says why. */
export function usePlanPreview(pack: Pack, workspace: WorkspaceState, errors: number): PlanPreview {
  const { catalog, planOptions } = workspace;
  const input = useMemo(
    (): PlanInput | undefined =>
      catalog && { ledger: catalog.ledger, snapshot: catalog.snapshot, collections: [...catalog.collections], options: planOptions },
    [catalog, planOptions],
  );
  const work = usePackWorker(planWorker, pack, errors > 0 ? undefined : input, planView);
  if (!input) return { pending: false };
  if (errors > 0)
    return {
      note: `The pack has ${plural(errors, 'error')}: fix ${pluralWord(errors, 'it', 'them')} to see what installing it would do.`,
      pending: false,
    };
  return { view: work.answer?.view, note: work.answer?.note, pending: work.pending };
}
