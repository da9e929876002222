import { defineRule } from './rule.js';

export default defineRule({
  meta: { code: 'graph/unknown-node', severity: 'error', description: 'An edge names nodes that exist in the graph.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      const g = a.graph;
      // Nodes without a usable id failed the schema; their edges would only echo that error.
      if (!g || !g.hasDanglingEdges || g.hasIdlessNodes) continue;
      for (let e = 0; e < g.edgeCount; e++) {
        for (const end of ['source', 'target'] as const) {
          if ((end === 'source' ? g.from(e) : g.to(e)) >= 0) continue;
          const named = g[end](e);
          const near = Array.from({ length: g.nodeCount }, (_, n) => g.id(n)).find((id) => id.toLowerCase() === named.toLowerCase());
          ctx.report({ pointer: `${g.edgePointer(e)}/${end}`, message: `Edge "${g.edgeId(e)}" ${end === 'source' ? 'leaves' : 'enters'} node "${named}", but the graph has no node with that id.`, ...(near ? { hint: `Did you mean "${near}"?` } : {}) });
        }
      }
    }
  },
});
