import type { Db } from '../../db/db.js';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window ends. */
  reset: number;
  allowed: boolean;
  retryAfter: number;
}

/**
 * Fixed one-minute windows, counted in the database (see authenticate(), which counts a request
 * in the same statement that resolves its key), so every server process on one PostgreSQL shares
 * the count.
 */
export function rateLimitState(limit: number, count: number, windowStart: number, now: Date): RateLimitState {
  const reset = windowStart + 60;
  return {
    limit,
    remaining: Math.max(0, limit - count),
    reset,
    allowed: count <= limit,
    retryAfter: Math.max(1, Math.ceil(reset - now.getTime() / 1000)),
  };
}

/** Old windows are useless; dropped now and then so the table stays small. */
export async function pruneRateLimitWindows(db: Db, now: Date): Promise<void> {
  await db.query('DELETE FROM rate_limit_windows WHERE window_start < $1', [Math.floor(now.getTime() / 1000) - 3600]);
}
