// The mechanical repairs of a pack, stated once: `setup-pack fix` applies them to files, and the
// editor offers them on the open pack. Each repair is one whose answer the pack itself holds.
import type { Base64Hasher } from './hash.js';
import { fixedStageProbability } from './pipeline.js';

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Applies the fixes to `pack` in place; returns one line per change, in words for a person:
 * - an asset's `sha256` and `byteSize` recomputed from its `data` (when the data is strict base64);
 * - a `CLOSED_WON` stage's probability set to 100 and a `CLOSED_LOST` stage's to 0.
 */
export function fixPack(pack: unknown, hash: Base64Hasher): string[] {
  const changes: string[] = [];
  if (!isObj(pack)) return changes;
  if (Array.isArray(pack.assets)) {
    pack.assets.forEach((a, i) => {
      if (!isObj(a) || typeof a.data !== 'string') return;
      const hashed = hash(a.data); // undefined for data that is not strict base64
      if (!hashed) return;
      const { byteSize, sha256 } = hashed;
      const name = typeof a.key === 'string' ? `asset "${a.key}"` : `assets[${i}]`;
      if (a.sha256 !== sha256) changes.push(`${name}: sha256 ${typeof a.sha256 === 'string' ? a.sha256.slice(0, 12) + '…' : String(a.sha256)} → ${sha256.slice(0, 12)}…`);
      if (a.byteSize !== byteSize) changes.push(`${name}: byteSize ${String(a.byteSize)} → ${byteSize}`);
      a.sha256 = sha256;
      a.byteSize = byteSize;
    });
  }
  if (Array.isArray(pack.pipelines)) {
    for (const p of pack.pipelines) {
      if (!isObj(p) || !Array.isArray(p.stages)) continue;
      for (const s of p.stages) {
        if (!isObj(s) || typeof s.probability !== 'number') continue;
        const want = fixedStageProbability(s.stageType);
        if (want !== undefined && s.probability !== want) {
          changes.push(`pipeline "${String(p.key)}" stage "${String(s.key)}": probability ${s.probability} → ${want}`);
          s.probability = want;
        }
      }
    }
  }
  return changes;
}
