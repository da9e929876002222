// Runs core's validator off the main thread so typing never waits for it.
import { validatePack } from '@setup-pack/core';

self.onmessage = (e: MessageEvent<{ seq: number; pack: unknown }>) => {
  const { seq, pack } = e.data;
  const diagnostics = validatePack(pack).diagnostics;
  (self as unknown as Worker).postMessage({ seq, diagnostics });
};
