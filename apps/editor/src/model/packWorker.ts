// The worker side of work done on the pack being edited off the main thread (the plan preview's
// plan, the Simulate panel's timeline): it keeps its own copy of the pack, patched per edit as the
// validation worker's is, and the last input it was given, and answers each message with
// `compute(pack, input)` under the message's sequence number (ui/usePackWorker.ts is the other side).
import type { Pack } from '@setup-pack/core';
import { applyPatch, type PackPatch } from './patch.js';
import type { PackValue } from './pack.js';

export interface PackWorkerMessage<I> {
  seq: number;
  patch?: PackPatch;
  /** Sent when it changed (by identity on the page): a worker keeps the last one. */
  input?: I;
}

export function servePackWork<I, A>(compute: (pack: Pack, input: I) => A): void {
  let pack: PackValue | undefined;
  let input: I | undefined;
  self.onmessage = (e: MessageEvent<PackWorkerMessage<I>>) => {
    const { seq, patch } = e.data;
    if (patch) pack = applyPatch(pack, patch);
    if (e.data.input !== undefined) input = e.data.input;
    if (pack === undefined || input === undefined) return;
    (self as unknown as Worker).postMessage({ seq, answer: compute(pack as unknown as Pack, input) });
  };
}
