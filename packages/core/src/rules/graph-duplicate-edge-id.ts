import { defineRule, type RuleContext } from './rule.js';
import type { GraphModel } from '../graph/model.js';

export default defineRule({
  meta: { code: 'graph/duplicate-edge-id', severity: 'warning', description: 'Edge ids are unique within a graph.' },
  check(ctx) {
    // One map for the whole pack (ids like "e1" repeat from graph to graph): a graph's edge e is
    // stored as base + e, so an entry at or above the current graph's base was seen in this graph.
    const first = new Map<string, number>();
    let base = 0;
    for (const a of ctx.automations()) {
      if (!a.graph) continue;
      checkGraph(ctx, a.graph, first, base);
      base += a.graph.edgeCount;
    }
  },
});

/** One graph. A module-level function called per automation, so V8 optimises it once and keeps it. */
function checkGraph(ctx: RuleContext, g: GraphModel, first: Map<string, number>, base: number): void {
  for (let e = 0; e < g.edgeCount; e++) {
    // An edge without a string id has its schema error already (one root cause, one error).
    if (!g.hasStringId(e)) continue;
    const id = g.edgeId(e);
    const seen = first.get(id);
    if (seen === undefined || seen < base) first.set(id, base + e);
    else
      ctx.report({
        pointer: `${g.edgePointer(e)}/id`,
        message: `Another edge of this graph already has the id "${id}"; editors and installers tell edges apart by id.`,
        related: [{ pointer: `${g.edgePointer(seen - base)}/id`, message: 'first edge with this id' }],
      });
  }
}
