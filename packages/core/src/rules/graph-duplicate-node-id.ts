import { defineRule } from './rule.js';

export default defineRule({
  meta: { code: 'graph/duplicate-node-id', severity: 'error', description: 'Node ids are unique within a graph.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      const g = a.graph;
      if (!g) continue;
      for (let n = 0; n < g.nodeCount; n++) {
        if (!g.isDuplicate(n)) continue;
        const id = g.id(n);
        ctx.report({ pointer: `${g.nodePointer(n)}/id`, message: `Another node of this graph already has the id "${id}"; node ids must be unique.`, related: [{ pointer: `${g.nodePointer(g.first(n))}/id`, message: 'first node with this id' }] });
      }
    }
  },
});
