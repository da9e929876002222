import { defineRule, type RuleContext } from './rule.js';
import { reachableFromTriggers, type GraphModel } from '../graph/model.js';

export default defineRule({
  meta: { code: 'graph/unreachable-node', severity: 'warning', description: 'Every node can be reached from a trigger.' },
  check(ctx) {
    for (const a of ctx.automations()) if (a.graph) checkGraph(ctx, a.graph);
  },
});

/** One graph. A module-level function called per automation, so V8 optimises it once and keeps it. */
function checkGraph(ctx: RuleContext, g: GraphModel): void {
  // A dangling edge is reported on its own; the nodes it cut off would only echo it.
  if (g.hasBrokenNodes || g.hasDanglingEdges || !g.hasTrigger) return;
  const reached = reachableFromTriggers(g);
  for (let n = 0; n < g.nodeCount; n++) {
    if (reached[n] || g.isDuplicate(n)) continue;
    ctx.report({
      pointer: g.nodePointer(n),
      message: `Node "${g.id(n)}" (${g.kind(n)}) cannot be reached from any trigger, so it never runs.`,
      hint: 'Connect it, or delete it.',
    });
  }
}
