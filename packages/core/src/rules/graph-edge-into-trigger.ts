import { defineRule } from './rule.js';

export default defineRule({
  meta: { code: 'graph/edge-into-trigger', severity: 'error', description: 'No edge enters a trigger.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      const g = a.graph;
      if (!g || !g.hasTrigger) continue;
      for (let e = 0; e < g.edgeCount; e++) {
        if (!g.intoTrigger(e)) continue;
        const t = g.to(e);
        ctx.report({ pointer: `${g.edgePointer(e)}/target`, message: `Edge "${g.edgeId(e)}" enters trigger "${g.id(t)}" (${g.kind(t)}); triggers start an automation and cannot be entered.` });
      }
    }
  },
});
