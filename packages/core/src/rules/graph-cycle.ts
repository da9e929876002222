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
      ctx.report({
        pointer: cycle.edge.pointer,
        message: `The graph has a cycle: ${cycle.path.join(' → ')} (edge "${cycle.edge.id}" leads back to "${cycle.edge.target}"). Automation graphs must be acyclic.`,
        hint: 'Remove an edge of the cycle; use control.loop to repeat steps.',
      });
    }
  },
});
