// Where the workspace API is stricter than the pack format, stated once. The server enforces
// these (its routes read them from here) and the planner reports a pack that exceeds one at plan
// time, so `setup-pack plan` says what `install` would otherwise fail on halfway.
import { strictBase64Size } from '../hash.js';
import type { Pack } from '../types.js';
import type { PlanError } from './types.js';

export const WORKSPACE_LIMITS = {
  /** Largest file the media library takes (an asset's decoded bytes). The format sets no limit. */
  mediaFileBytes: 10 * 1024 * 1024,
} as const;

/** Length of the base64 text of `bytes` bytes (with padding). */
export const base64Length = (bytes: number) => 4 * Math.ceil(bytes / 3);

const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB`;

/** The pack's items the workspace API would refuse, as plan errors. */
export function apiLimitErrors(pack: Pack): PlanError[] {
  const out: PlanError[] = [];
  for (const a of pack.assets ?? []) {
    if (a.data == null) continue;
    const size = strictBase64Size(a.data) ?? a.byteSize;
    if (size > WORKSPACE_LIMITS.mediaFileBytes) {
      out.push({ code: 'plan/api-limit', message: `Asset ${a.key} (${a.fileName}) is ${mb(size)}; the workspace's media library takes files up to ${mb(WORKSPACE_LIMITS.mediaFileBytes)}. Host it elsewhere and give its url instead of data.` });
    }
  }
  return out;
}
