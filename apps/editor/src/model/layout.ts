// Tidy-up with dagre. Stable where it can be: nodes that already have positions keep the
// layout's relative shape anchored on where they were (the whole layout is shifted so the
// median node stays put), and `onlyNew` places just the nodes without a position.
import dagre from '@dagrejs/dagre';
import { asObj, str, type Obj } from './json.js';
import { edgesOf, handleOf, moveNodes, nodesOf, type XY } from './graph.js';

export const NODE_WIDTH = 220;
export const NODE_HEIGHT = 64;

const hasPosition = (n: Obj) => {
  const p = asObj(n.position);
  return typeof p.x === 'number' && typeof p.y === 'number';
};

/** Dagre positions (top-left corners) for every node of the graph. */
export function dagrePositions(doc: Obj): Map<string, XY> {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 40, ranksep: 56, marginx: 0, marginy: 0 });
  g.setDefaultEdgeLabel(() => ({}));
  // Insert nodes top-to-bottom, left-to-right as they stand, so dagre's initial order (and so
  // the left/right order of siblings) follows the author's current arrangement.
  const pos = (n: Obj) => asObj(n.position);
  const nodes = nodesOf(doc)
    .map((n, i) => ({ n, i }))
    .sort(
      (a, b) => (Number(pos(a.n).y) || 0) - (Number(pos(b.n).y) || 0) || (Number(pos(a.n).x) || 0) - (Number(pos(b.n).x) || 0) || a.i - b.i,
    )
    .map((x) => x.n);
  const ids = new Set<string>();
  for (const n of nodes) {
    const id = str(n.id);
    if (!id || ids.has(id)) continue;
    ids.add(id);
    g.setNode(id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  }
  // Order siblings by handle (true before false, each before done) for a predictable layout.
  const edges = edgesOf(doc)
    .slice()
    .sort((a, b) => handleOf(a).localeCompare(handleOf(b)) * -1);
  edges.forEach((e, i) => {
    const s = str(e.source);
    const t = str(e.target);
    if (ids.has(s) && ids.has(t) && s !== t) g.setEdge(s, t, {}, String(i));
  });
  dagre.layout(g);
  const out = new Map<string, XY>();
  for (const id of ids) {
    const n = g.node(id) as { x: number; y: number };
    out.set(id, { x: Math.round(n.x - NODE_WIDTH / 2), y: Math.round(n.y - NODE_HEIGHT / 2) });
  }
  // Within each rank, hand dagre's x slots out in the author's current left-to-right order.
  const current = new Map(nodes.map((n) => [str(n.id), pos(n)]));
  const ranks = new Map<number, string[]>();
  for (const [id, p] of out) ranks.set(p.y, [...(ranks.get(p.y) ?? []), id]);
  for (const members of ranks.values()) {
    if (members.length < 2) continue;
    const slots = members.map((id) => out.get(id)!.x).sort((a, b) => a - b);
    const key = (id: string) => (typeof current.get(id)?.x === 'number' ? (current.get(id)!.x as number) : out.get(id)!.x);
    members.sort((a, b) => key(a) - key(b) || out.get(a)!.x - out.get(b)!.x).forEach((id, i) => (out.get(id)!.x = slots[i]!));
  }
  return out;
}

function median(values: number[]): number {
  const s = values.slice().sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : 0;
}

export function tidyUp(doc: Obj, options: { onlyNew?: boolean } = {}): Obj {
  const nodes = nodesOf(doc);
  if (nodes.length === 0) return doc;
  const laid = dagrePositions(doc);
  const placed = nodes.filter(hasPosition);
  // Shift so the placed nodes move as little as possible (median offset per axis).
  const dx = median(placed.map((n) => (asObj(n.position).x as number) - (laid.get(str(n.id))?.x ?? 0)));
  const dy = median(placed.map((n) => (asObj(n.position).y as number) - (laid.get(str(n.id))?.y ?? 0)));
  const target = new Map<string, XY>();
  for (const n of nodes) {
    if (options.onlyNew && hasPosition(n)) continue;
    const p = laid.get(str(n.id));
    if (p) target.set(str(n.id), { x: p.x + dx, y: p.y + dy });
  }
  return moveNodes(doc, target);
}

/** The nearest spot at or below `want` where a new block does not overlap an existing one. */
export function freeSpot(doc: Obj, want: XY): XY {
  const boxes = nodesOf(doc)
    .map((n) => asObj(n.position))
    .filter((p) => typeof p.x === 'number' && typeof p.y === 'number') as unknown as XY[];
  const hits = (p: XY) => boxes.some((b) => Math.abs(b.x - p.x) < NODE_WIDTH + 20 && Math.abs(b.y - p.y) < NODE_HEIGHT + 20);
  const p = { x: Math.round(want.x), y: Math.round(want.y) };
  for (let i = 0; i < 200 && hits(p); i++) p.y += 40;
  return p;
}
