import { defineRule } from './rule.js';
import { findCycle } from '../graph/model.js';

export default defineRule({
  meta: { code: 'graph/cycle', severity: 'error', description: 'The graph is acyclic.', docs: 'Repeat work with control.loop instead of wiring an edge back.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      if (!a.graph) continue;
      const cycle = findCycle(a.graph);
      if (!cycle) continue;
      // Point at the edge that closes the loop.
      const from = cycle[cycle.length - 2];
      const to = cycle[cycle.length - 1];
      const edge = a.graph.edges.find((e) => e.connected && e.source === from && e.target === to);
      ctx.report({
        pointer: edge?.pointer ?? `${a.graph.pointer}/edges`,
        message: `The graph has a cycle: ${cycle.join(' → ')}. Automation graphs must be acyclic.`,
        hint: 'Remove an edge of the cycle; use control.loop to repeat steps.',
      });
    }
  },
});
