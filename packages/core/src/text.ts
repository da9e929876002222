// Small text helpers for messages.

/** Levenshtein distance, capped: enough to suggest "did you mean". */
export function editDistance(a: string, b: string, cap = 8): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/** The candidate closest to `word`, when it is close enough to be a likely typo. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  if (word.length > 200) return undefined;
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const s = editDistance(word.toLowerCase(), c.toLowerCase());
    if (s < bestScore) {
      best = c;
      bestScore = s;
    }
  }
  return best !== undefined && bestScore <= Math.max(2, Math.floor(word.length / 4)) ? best : undefined;
}

/**
 * A count as people read it, with thousands separators as toLocaleString('en-US') writes them
 * (39,799), without loading ICU's number formatting: its first call costs a fresh process 8–68 ms,
 * and the CLI's start-up is benchmarked. A fraction keeps the digits String gives it (1,500.25).
 */
export function count(n: number): string {
  const s = String(n);
  return s.length < 4 ? s : s.replace(/^-?\d{4,}/, (whole) => whole.replace(/\B(?=(\d{3})+$)/g, ','));
}

/** The word for `n` things: `one` for exactly 1, else `many` (`one` and an s unless given). */
export const pluralWord = (n: number, one: string, many = `${one}s`): string => (n === 1 ? one : many);

/** "1 error", "3,980 warnings", "2 entries": a count and its word, as every message writes one. */
export const plural = (n: number, one: string, many?: string): string => `${count(n)} ${pluralWord(n, one, many)}`;
