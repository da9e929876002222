import { defineRule } from './rule.js';

export default defineRule({
  meta: { code: 'graph/unknown-node', severity: 'error', description: 'An edge names nodes that exist in the graph.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      const g = a.graph;
      // Nodes without a usable id failed the schema; their edges would only echo that error.
      if (!g || !g.hasDanglingEdges || g.hasIdlessNodes) continue;
      // The ids by their lower case, made once per graph on its first dangling end (edges are not
      // limited in number: every one may dangle).
      let byLower: Map<string, string> | undefined;
      for (let e = 0; e < g.edgeCount; e++) {
        for (const end of ['source', 'target'] as const) {
          if ((end === 'source' ? g.from(e) : g.to(e)) >= 0) continue;
          const named = g[end](e);
          if (!byLower) {
            byLower = new Map();
            for (let n = 0; n < g.nodeCount; n++) {
              const lower = g.id(n).toLowerCase();
              if (!byLower.has(lower)) byLower.set(lower, g.id(n)); // the first of ids alike but for case
            }
          }
          const near = byLower.get(named.toLowerCase());
          ctx.report({
            pointer: `${g.edgePointer(e)}/${end}`,
            message: `Edge "${g.edgeId(e)}" ${end === 'source' ? 'leaves' : 'enters'} node "${named}", but the graph has no node with that id.`,
            ...(near ? { hint: `Did you mean "${near}"?` } : {}),
          });
        }
      }
    }
  },
});
