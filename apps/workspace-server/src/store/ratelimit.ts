import type { Db } from '../db/db.js';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window ends. */
  reset: number;
  allowed: boolean;
  retryAfter: number;
}

/**
 * Fixed one-minute windows counted in the database with one atomic upsert, so every server
 * process on one PostgreSQL shares the count.
 */
export async function hitRateLimit(db: Db, workspaceId: string, limit: number, now: Date): Promise<RateLimitState> {
  const windowStart = Math.floor(now.getTime() / 60000) * 60;
  const { rows } = await db.query<{ count: number }>(
    `INSERT INTO rate_limit_windows (workspace_id, window_start, count) VALUES ($1, $2, 1)
     ON CONFLICT (workspace_id, window_start) DO UPDATE SET count = rate_limit_windows.count + 1
     RETURNING count`,
    [workspaceId, windowStart],
  );
  return rateLimitState(limit, Number(rows[0].count), windowStart, now);
}

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
