// The page side of work done on the pack being edited in a worker (model/packWorker.ts): the
// worker starts with the component and ends with it; each edit sends a patch of the pack (and the
// input when it changed), and the answer for the latest edit is shown, an older one that arrives
// late dropped. Where no worker can start or it fails to load, `local` runs on the main thread,
// after the keystroke has painted.
import { useEffect, useRef, useState } from 'react';
import type { Pack } from '@setup-pack/core';
import { diffForWorker } from '../model/patch.js';
import type { PackValue } from '../model/pack.js';

export interface PackWork<A> {
  answer?: A;
  /** A newer edit than the answer shown is being worked on. */
  pending: boolean;
}

/** `input` undefined: nothing to work out (the answer shown stays). */
export function usePackWorker<I, A>(
  create: () => Worker,
  pack: Pack,
  input: I | undefined,
  local: (pack: Pack, input: I) => A,
): PackWork<A> {
  const [shown, setShown] = useState<{ seq: number; answer?: A }>({ seq: 0 });
  const { ref: worker, broken } = useWorker<A>(create, setShown);
  const seq = useRef(0);
  const sentPack = useRef<PackValue | undefined>(undefined);
  const sentInput = useRef<I | undefined>(undefined);
  useEffect(() => {
    if (input === undefined) return;
    const n = ++seq.current;
    const w = worker.current;
    if (!w) {
      const t = setTimeout(() => setShown({ seq: n, answer: local(pack, input) }), 0);
      return () => clearTimeout(t);
    }
    // A worker started anew holds nothing yet: it gets the whole pack and the input.
    if (w.fresh) {
      sentPack.current = undefined;
      sentInput.current = undefined;
      w.fresh = false;
    }
    const value = pack as unknown as PackValue;
    w.worker.postMessage({ seq: n, patch: diffForWorker(sentPack.current, value), ...(sentInput.current !== input ? { input } : {}) });
    sentPack.current = value;
    sentInput.current = input;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [pack, input, broken]);
  return { answer: shown.answer, pending: shown.seq !== seq.current };
}

/**
 * The worker (declared before the effect that sends to it, so its own effect runs first); null
 * where it cannot start or failed to load, and then `broken` changes so the work is done again
 * on the main thread.
 */
function useWorker<A>(create: () => Worker, onAnswer: (answer: { seq: number; answer: A }) => void) {
  const ref = useRef<{ worker: Worker; fresh: boolean } | null>(null);
  const [broken, setBroken] = useState(false);
  useEffect(() => {
    let worker: Worker;
    try {
      worker = create();
    } catch {
      setBroken(true);
      return;
    }
    const w = { worker, fresh: true };
    ref.current = w;
    let latest = 0;
    worker.onmessage = (e: MessageEvent<{ seq: number; answer: A }>) => {
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
