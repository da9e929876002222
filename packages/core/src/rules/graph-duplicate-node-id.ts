import { defineRule, type RuleContext } from './rule.js';
import type { GraphModel } from '../graph/model.js';

export default defineRule({
  meta: { code: 'graph/duplicate-node-id', severity: 'error', description: 'Node ids are unique within a graph.' },
  check(ctx) {
    for (const a of ctx.automations()) if (a.graph) checkGraph(ctx, a.graph);
  },
});

/** One graph. A module-level function called per automation, so V8 optimises it once and keeps it. */
function checkGraph(ctx: RuleContext, g: GraphModel): void {
  for (let n = 0; n < g.nodeCount; n++) {
    if (!g.isDuplicate(n)) continue;
    const id = g.id(n);
    ctx.report({
      pointer: `${g.nodePointer(n)}/id`,
      message: `Another node of this graph already has the id "${id}"; node ids must be unique.`,
      related: [{ pointer: `${g.nodePointer(g.first(n))}/id`, message: 'first node with this id' }],
    });
  }
}
