// core's mechanical fixes (what `setup-pack fix` does) on the open pack: whether there are any to
// offer, and the pack with them applied. The fixes themselves are core's (fixedPack), never
// restated here. Asset hashes are remembered from one run to the next (hashcache.ts), so offering
// the fixes and then applying them decodes and hashes each asset once.
import { fixedPack, mayBeFixed, portableHasher, type Base64Hasher, type Diagnostic } from '@setup-pack/core';
import { createAssetHashCache } from './hashcache.js';
import type { PackValue } from './pack.js';

export interface Fixer {
  /**
   * What fixing `pack` would change, a line each; `diagnostics` are its findings. Nothing is run
   * unless one of them is about a place the fixes write (core's mayBeFixed): most packs have none.
   * Asked for every pack validated (an edit can change what a fix would write without changing a
   * finding, a sourceHandle's value say), it returns the array it returned last when the lines
   * are the same, so the panel showing them is not drawn again for nothing.
   */
  offered(pack: PackValue | undefined, diagnostics: readonly Diagnostic[]): string[];
  /** The pack with the fixes applied (`pack` itself when there are none; untouched parts shared) and a line per change. */
  apply(pack: PackValue): { pack: PackValue; changes: string[] };
}

export function createFixer(hash: Base64Hasher = portableHasher): Fixer {
  const assets = createAssetHashCache(hash);
  const run = (pack: PackValue) => {
    const r = fixedPack(pack, assets.hasher);
    assets.done();
    return r;
  };
  let last: string[] = [];
  return {
    offered: (pack, diagnostics) => {
      const next = pack && diagnostics.some(mayBeFixed) ? run(pack).changes : [];
      if (next.length !== last.length || next.some((line, i) => line !== last[i])) last = next;
      return last;
    },
    apply: run,
  };
}
