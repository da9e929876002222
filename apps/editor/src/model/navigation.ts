// Arrow-key movement between nodes: the nearest node in the pressed direction, preferring
// nodes straight ahead over ones far to the side.
import type { XY } from './graph.js';

export type Direction = 'up' | 'down' | 'left' | 'right';

export function neighbour(nodes: readonly { id: string; position: XY }[], fromId: string, dir: Direction): string | undefined {
  const from = nodes.find((n) => n.id === fromId);
  if (!from) return nodes[0]?.id;
  let best: string | undefined;
  let bestScore = Infinity;
  for (const n of nodes) {
    if (n.id === fromId) continue;
    const dx = n.position.x - from.position.x;
    const dy = n.position.y - from.position.y;
    const [ahead, side] = dir === 'down' ? [dy, dx] : dir === 'up' ? [-dy, dx] : dir === 'right' ? [dx, dy] : [-dx, dy];
    if (ahead <= 0) continue;
    const score = ahead + 2 * Math.abs(side);
    if (score < bestScore) {
      bestScore = score;
      best = n.id;
    }
  }
  return best;
}
