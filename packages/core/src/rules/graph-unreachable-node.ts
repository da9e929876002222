import { defineRule } from './rule.js';
import { reachableFromTriggers } from '../graph/model.js';

export default defineRule({
  meta: { code: 'graph/unreachable-node', severity: 'warning', description: 'Every node can be reached from a trigger.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      const g = a.graph;
      // A dangling edge is reported on its own; the nodes it cut off would only echo it.
      if (!g || g.hasBrokenNodes || g.edges.some((e) => !e.connected) || !g.nodes.some((n) => n.group === 'trigger')) continue;
      const reached = reachableFromTriggers(g);
      for (const n of g.nodes) {
        if (n.duplicate || reached.has(n.id)) continue;
        ctx.report({ pointer: n.pointer, message: `Node "${n.id}" (${n.kind}) cannot be reached from any trigger, so it never runs.`, hint: 'Connect it, or delete it.' });
      }
    }
  },
});
