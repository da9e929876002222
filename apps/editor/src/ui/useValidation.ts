// Live validation: every pack state is checked by core in a Web Worker, debounced so a burst
// of keystrokes costs one run; stale answers are ignored.
import { useEffect, useRef, useState } from 'react';
import { validatePack, type Diagnostic } from '@setup-pack/core';
import type { PackValue } from '../model/pack.js';
import { diffForWorker } from '../model/patch.js';
import { applyFindingsDelta, type FindingsDelta } from '../model/findingsDelta.js';
import { renderCounts } from './renderCounts.js';

export interface ValidationState {
  diagnostics: Diagnostic[];
  /** The pack the diagnostics belong to. */
  pack?: PackValue;
  pending: boolean;
}

export function useValidation(pack: PackValue, delay = 120): ValidationState {
  const [state, setState] = useState<ValidationState>({ diagnostics: [], pending: true });
  const worker = useRef<Worker | null>(null);
  const seq = useRef(0);
  const packs = useRef(new Map<number, PackValue>());
  const lastPack = useRef<PackValue | null>(null);
  /** The findings the worker posted last. */
  const received = useRef<Diagnostic[]>([]);
  /** The pack the worker holds, to patch from. */
  const sent = useRef<PackValue | undefined>(undefined);

  useEffect(() => {
    let w: Worker | null = null;
    sent.current = undefined; // a new worker starts empty: its first message is the whole pack
    received.current = [];
    try {
      w = new Worker(new URL('../validate.worker.ts', import.meta.url), { type: 'module' });
      w.onmessage = (e: MessageEvent<{ seq: number; delta?: FindingsDelta; same?: true }>) => {
        // "same": the findings the worker posted last (kept even when stale), so the panel keeps its rows.
        // A delta changes them; every message is applied, stale or not, as the worker's list moved on.
        if (e.data.delta) {
          received.current = applyFindingsDelta(received.current, e.data.delta);
          renderCounts.findingsReceived += e.data.delta.middle.length;
        }
        if (e.data.seq !== seq.current) return;
        setState({ diagnostics: received.current, pack: packs.current.get(e.data.seq), pending: false });
        packs.current.clear();
      };
      w.onerror = () => {
        // No worker (blocked, or failed to load): validate on the main thread from now on.
        worker.current = null;
        const last = lastPack.current;
        if (last) setState({ diagnostics: validatePack(last).diagnostics, pack: last, pending: false });
      };
    } catch {
      w = null;
    }
    worker.current = w;
    return () => w?.terminate();
  }, []);

  useEffect(() => {
    const n = ++seq.current;
    setState((s) => (s.pending ? s : { ...s, pending: true }));
    const t = setTimeout(() => {
      packs.current.set(n, pack);
      lastPack.current = pack;
      if (worker.current) {
        worker.current.postMessage({ seq: n, patch: diffForWorker(sent.current, pack) });
        sent.current = pack;
      } else setState({ diagnostics: validatePack(pack).diagnostics, pack, pending: false });
    }, delay);
    return () => clearTimeout(t);
  }, [pack, delay]);

  return state;
}
