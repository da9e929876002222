import { defineRule } from './rule.js';
import { findCycle } from '../graph/model.js';

export default defineRule({
  meta: {
    code: 'graph/cycle',
    severity: 'error',
    description: 'The graph is acyclic.',
    docs: 'Repeat work with control.loop instead of wiring an edge back.',
  },
  check(ctx) {
    for (const a of ctx.automations()) {
      if (!a.graph) continue;
      const cycle = findCycle(a.graph);
      if (!cycle) continue;
      const g = a.graph;
      // Point at the edge that closes the loop.
      ctx.report({
        pointer: g.edgePointer(cycle.edge),
        message: `The graph has a cycle: ${cycle.path.join(' → ')} (edge "${g.edgeId(cycle.edge)}" leads back to "${g.target(cycle.edge)}"). Automation graphs must be acyclic.`,
        hint: 'Remove an edge of the cycle; use control.loop to repeat steps.',
      });
    }
  },
});
