/**
 * Sets `key` last in a map of at most `max` entries, forgetting the one set longest ago when it is
 * full: the memos of a long-running process (counts, workspace sizes, pages served, webhook targets)
 * stay bounded.
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  if (map.size >= max) map.delete(map.keys().next().value as K);
  map.set(key, value);
}
