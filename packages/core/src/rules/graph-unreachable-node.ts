import { defineRule } from './rule.js';
import { reachableFromTriggers } from '../graph/model.js';

export default defineRule({
  meta: { code: 'graph/unreachable-node', severity: 'warning', description: 'Every node can be reached from a trigger.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      const g = a.graph;
      // A dangling edge is reported on its own; the nodes it cut off would only echo it.
      if (!g || g.hasBrokenNodes || g.hasDanglingEdges || !g.hasTrigger) continue;
      const reached = reachableFromTriggers(g);
      for (let n = 0; n < g.nodeCount; n++) {
        if (reached[n] || g.isDuplicate(n)) continue;
        ctx.report({ pointer: g.nodePointer(n), message: `Node "${g.id(n)}" (${g.kind(n)}) cannot be reached from any trigger, so it never runs.`, hint: 'Connect it, or delete it.' });
      }
    }
  },
});
