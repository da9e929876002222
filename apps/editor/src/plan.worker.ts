// Plans the pack being edited against the workspace's copy off the main thread, so a keystroke
// with the plan preview open never waits for the planner (tens of milliseconds on a large pack).
// The main thread sends the workspace's copy once per read and, per edit, a patch of the pack
// (as the validation worker gets it); the answer is the plan in words (model/planView.ts).
import type { Pack } from '@setup-pack/core';
import { applyPatch, type PackPatch } from './model/patch.js';
import type { PackValue } from './model/pack.js';
import { planView, type PlanInput } from './model/planView.js';

let pack: PackValue | undefined;
let input: PlanInput | undefined;

self.onmessage = (e: MessageEvent<{ seq: number; patch?: PackPatch; input?: PlanInput }>) => {
  const { seq, patch } = e.data;
  if (patch) pack = applyPatch(pack, patch);
  if (e.data.input) input = e.data.input;
  if (!pack || !input) return;
  (self as unknown as Worker).postMessage({ seq, ...planView(pack as unknown as Pack, input) });
};
