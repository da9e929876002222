import { defineRule } from './rule.js';

export default defineRule({
  meta: { code: 'graph/edge-into-trigger', severity: 'error', description: 'No edge enters a trigger.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      const g = a.graph;
      if (!g) continue;
      for (const e of g.edges) {
        const target = g.byId.get(e.target);
        if (target && !target.broken && target.group === 'trigger')
          ctx.report({ pointer: `${e.pointer}/target`, message: `Edge "${e.id}" enters trigger "${target.id}" (${target.kind}); triggers start an automation and cannot be entered.` });
      }
    }
  },
});
