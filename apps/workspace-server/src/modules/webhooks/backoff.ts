/** Spec: a 2xx within 10 s acknowledges; 5 retries; 20 consecutive failed attempts disable. */
export const ACK_TIMEOUT_MS = 10_000;
export const MAX_RETRIES = 5;
export const DISABLE_AFTER_FAILURES = 20;

/**
 * Wait before retry n (1-based): 1 min × 4^(n−1) → 1 min, 4 min, 16 min, 64 min, 256 min;
 * the last retry comes about 5 h 41 min after the first attempt. No jitter, so the schedule is
 * exact and documented; a delivery's retries never pile up on the same endpoint because each
 * waits from its own failed attempt.
 */
export const RETRY_DELAYS_MS = [60_000, 240_000, 960_000, 3_840_000, 15_360_000] as const;

/** Delay after the given number of failed attempts, or null once the retries are used up. */
export function retryDelayMs(failedAttempts: number): number | null {
  return failedAttempts >= 1 && failedAttempts <= MAX_RETRIES ? RETRY_DELAYS_MS[failedAttempts - 1] : null;
}
