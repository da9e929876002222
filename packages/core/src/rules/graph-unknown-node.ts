import { defineRule } from './rule.js';

export default defineRule({
  meta: { code: 'graph/unknown-node', severity: 'error', description: 'An edge names nodes that exist in the graph.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      const g = a.graph;
      if (!g) continue;
      for (const e of g.edges) {
        for (const end of ['source', 'target'] as const) {
          // Nodes without a usable id failed the schema; their edges would only echo that error.
          if (g.byId.has(e[end]) || g.hasIdlessNodes) continue;
          const near = [...g.byId.keys()].find((id) => id.toLowerCase() === e[end].toLowerCase());
          ctx.report({ pointer: `${e.pointer}/${end}`, message: `Edge "${e.id}" ${end === 'source' ? 'leaves' : 'enters'} node "${e[end]}", but the graph has no node with that id.`, ...(near ? { hint: `Did you mean "${near}"?` } : {}) });
        }
      }
    }
  },
});
