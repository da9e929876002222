// Runs core's validator off the main thread so typing never waits for it. The main thread sends
// patches (only what changed since the last message), so big packs are not cloned on every edit.
import { validatePack } from '@setup-pack/core';
import { createAssetHashCache } from './model/hashcache.js';
import { applyPatch, type PackPatch } from './model/patch.js';
import type { PackValue } from './model/pack.js';

let pack: PackValue | undefined;
const assets = createAssetHashCache(); // unchanged assets are not decoded and hashed again

self.onmessage = (e: MessageEvent<{ seq: number; patch: PackPatch }>) => {
  const { seq, patch } = e.data;
  pack = applyPatch(pack, patch);
  const diagnostics = validatePack(pack, { hashBase64: assets.hasher }).diagnostics;
  assets.done();
  (self as unknown as Worker).postMessage({ seq, diagnostics });
};
