import { defineRule } from './rule.js';

export default defineRule({
  meta: { code: 'graph/duplicate-node-id', severity: 'error', description: 'Node ids are unique within a graph.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      const g = a.graph;
      if (!g) continue;
      for (const n of g.nodes) {
        if (!n.duplicate) continue;
        const first = g.byId.get(n.id)!;
        ctx.report({ pointer: `${n.pointer}/id`, message: `Another node of this graph already has the id "${n.id}"; node ids must be unique.`, related: [{ pointer: `${first.pointer}/id`, message: 'first node with this id' }] });
      }
    }
  },
});
