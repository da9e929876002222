// Runs core's validator off the main thread so typing never waits for it. The main thread sends
// patches (only what changed since the last message), so big packs are not cloned on every edit.
import { validatePack, type Diagnostic } from '@setup-pack/core';
import { createAssetHashCache } from './model/hashcache.js';
import { applyPatch, type PackPatch } from './model/patch.js';
import { findingsDelta } from './model/findingsDelta.js';
import type { PackValue } from './model/pack.js';

let pack: PackValue | undefined;
const assets = createAssetHashCache(); // unchanged assets are not decoded and hashed again
/** The findings last posted: the page has them (messages arrive in order), stale or not. */
let posted: Diagnostic[] | undefined;

self.onmessage = (e: MessageEvent<{ seq: number; patch: PackPatch }>) => {
  const { seq, patch } = e.data;
  pack = applyPatch(pack, patch);
  const diagnostics = validatePack(pack, { hashBase64: assets.hasher }).diagnostics;
  assets.done();
  // Most keystrokes change no finding: say so rather than cloning tens of thousands again; else
  // send only what changed, between the unchanged start and end (findingsDelta.ts).
  const delta = findingsDelta(posted, diagnostics);
  if (!delta) (self as unknown as Worker).postMessage({ seq, same: true });
  else {
    posted = diagnostics;
    (self as unknown as Worker).postMessage({ seq, delta });
  }
};
