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
