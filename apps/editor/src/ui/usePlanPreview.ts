// The plan preview's plan, worked out in a worker of its own (plan.worker.ts) while the panel is
// open: the workspace's copy goes to it once per read, then a patch of the pack per edit, and the
// answer for the latest edit is shown (an older one that arrives late is dropped). Where no worker
// can start, the same planView runs on the main thread, at a lower priority than typing.
import { useEffect, useMemo, useRef, useState } from 'react';
import { plural, pluralWord, type Pack } from '@setup-pack/core';
import { diffForWorker } from '../model/patch.js';
import type { PackValue } from '../model/pack.js';
import { planView, type PlanInput, type PlanView } from '../model/planView.js';
import type { WorkspaceState } from '../workspace/catalog.js';

export interface PlanPreview {
  view?: PlanView;
  note?: string;
  /** A newer edit than the plan shown is being planned. */
  pending: boolean;
}

/** `errors`: the pack's error count; a pack with errors is not planned, and the note says why. */
export function usePlanPreview(pack: Pack, workspace: WorkspaceState, errors: number): PlanPreview {
  const { catalog, planOptions } = workspace;
  const input = useMemo((): PlanInput | undefined => catalog && { ledger: catalog.ledger, snapshot: catalog.snapshot, collections: [...catalog.collections], options: planOptions }, [catalog, planOptions]);
  const [shown, setShown] = useState<{ seq: number; view?: PlanView; note?: string }>({ seq: 0 });
  const { ref: worker, broken } = usePlanWorker(setShown);
  const seq = useRef(0);
  const sentPack = useRef<PackValue | undefined>(undefined);
  const sentInput = useRef<PlanInput | undefined>(undefined);
  useEffect(() => {
    if (!input || errors > 0) return;
    const n = ++seq.current;
    const w = worker.current;
    if (!w) {
      // No worker: plan here, after the keystroke has painted.
      const t = setTimeout(() => setShown({ seq: n, ...planView(pack, input) }), 0);
      return () => clearTimeout(t);
    }
    if (w.fresh) (sentPack.current = undefined), (sentInput.current = undefined), (w.fresh = false);
    const value = pack as unknown as PackValue;
    w.worker.postMessage({ seq: n, patch: diffForWorker(sentPack.current, value), ...(sentInput.current !== input ? { input } : {}) });
    sentPack.current = value;
    sentInput.current = input;
  }, [pack, input, errors, worker, broken]);
  if (!input) return { pending: false };
  if (errors > 0) return { note: `The pack has ${plural(errors, 'error')}: fix ${pluralWord(errors, 'it', 'them')} to see what installing it would do.`, pending: false };
  return { view: shown.view, note: shown.note, pending: shown.seq !== seq.current };
}

/**
 * The panel's plan worker, started with it and ended with it (declared before the hook that sends
 * to it, so its effect runs first); null where a worker cannot start or failed to load, and then
 * `broken` changes so that the plan is worked out again on the main thread.
 */
function usePlanWorker(onAnswer: (answer: { seq: number; view?: PlanView; note?: string }) => void) {
  const ref = useRef<{ worker: Worker; fresh: boolean } | null>(null);
  const [broken, setBroken] = useState(false);
  useEffect(() => {
    let worker: Worker;
    try {
      worker = new Worker(new URL('../plan.worker.ts', import.meta.url), { type: 'module' });
    } catch {
      setBroken(true);
      return;
    }
    const w = { worker, fresh: true };
    ref.current = w;
    let latest = 0;
    worker.onmessage = (e: MessageEvent<{ seq: number; view?: PlanView; note?: string }>) => {
      if (e.data.seq < latest) return;
      latest = e.data.seq;
      onAnswer(e.data);
    };
    worker.onerror = () => {
      ref.current = null;
      setBroken(true);
    };
    return () => {
      worker.terminate();
      if (ref.current === w) ref.current = null;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return { ref, broken };
}
