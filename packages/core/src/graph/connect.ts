// May an edge be added to a graph, and if not, why: the graph rules' answer for one new edge.
// The editor's canvas asks this while a connection is dragged, so the canvas and the validator
// cannot disagree; the rules below share its wording.
import type { GraphModel } from './model.js';

export interface ConnectionSpec {
  source: string;
  target: string;
  /** The source's output; "next" when it names none. */
  handle: string;
}

/** `code` is the rule the edge would break (docs/rules.md). */
export type ConnectionCheck = { ok: true } | { ok: false; code: string; reason: string };

/** Why no edge may enter a trigger (graph/edge-into-trigger). */
export const TRIGGER_CANNOT_BE_ENTERED = 'triggers start an automation and cannot be entered';

/** A node's outputs as the rules list them (graph/invalid-handle). */
export function outputsList(handles: readonly string[]): string {
  return handles.length ? handles.map((h) => `"${h}"`).join(', ') : 'none (it declares no outcomes)';
}

function nodeOf(g: GraphModel, id: string): number {
  for (let n = 0; n < g.nodeCount; n++) if (g.id(n) === id) return n;
  return -1;
}

/** The nodes from `from` to `to` along edges (ids, both ends included), or undefined. */
function pathBetween(g: GraphModel, from: number, to: number): string[] | undefined {
  const parent = new Int32Array(g.nodeCount).fill(-2);
  parent[from] = -1;
  const queue = [from];
  for (let i = 0; i < queue.length; i++) {
    const n = queue[i];
    if (n === to) {
      const path: string[] = [];
      for (let m = to; m !== -1; m = parent[m]) path.push(g.id(m));
      return path.reverse();
    }
    for (let k = g.outStart[n]; k < g.outStart[n + 1]; k++) {
      const t = g.to(g.outList[k]);
      if (t >= 0 && parent[t] === -2) {
        parent[t] = n;
        queue.push(t);
      }
    }
  }
  return undefined;
}

export function checkConnection(g: GraphModel, spec: ConnectionSpec): ConnectionCheck {
  const s = nodeOf(g, spec.source);
  const t = nodeOf(g, spec.target);
  if (s < 0 || t < 0) return { ok: false, code: 'graph/unknown-node', reason: 'Both ends must be blocks of this graph.' };
  if (g.group(t) === 'trigger') {
    return {
      ok: false,
      code: 'graph/edge-into-trigger',
      reason: `"${spec.target}" is a trigger (${g.kind(t)}): ${TRIGGER_CANNOT_BE_ENTERED}.`,
    };
  }
  if (s === t)
    return {
      ok: false,
      code: 'graph/cycle',
      reason: `It would create a cycle ${spec.source} → ${spec.source}: a block cannot connect to itself.`,
    };
  const handles = g.handles(s);
  if (handles && !handles.includes(spec.handle)) {
    return {
      ok: false,
      code: 'graph/invalid-handle',
      reason: `${g.kind(s)} "${spec.source}" has no output "${spec.handle}"; its outputs are ${outputsList(handles)}.`,
    };
  }
  for (let k = g.outStart[s]; k < g.outStart[s + 1]; k++) {
    const e = g.outList[k];
    if (g.handle(e) === spec.handle && g.target(e) === spec.target) {
      return {
        ok: false,
        code: 'graph/duplicate-edge',
        reason: `"${spec.source}" already leads to "${spec.target}" through "${spec.handle}".`,
      };
    }
  }
  const back = pathBetween(g, t, s);
  if (back)
    return {
      ok: false,
      code: 'graph/cycle',
      reason: `It would create a cycle ${[spec.source, ...back].join(' → ')}; automation graphs are acyclic (repeat steps with control.loop).`,
    };
  return { ok: true };
}
