import { defineRule } from './rule.js';
import { named } from './util.js';

export default defineRule({
  meta: { code: 'graph/no-trigger', severity: 'error', description: 'A graph includes at least one trigger.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      const g = a.graph;
      if (!g || g.hasBrokenNodes || g.hasTrigger) continue;
      ctx.report({
        pointer: `${g.pointer}/nodes`,
        message: `Automation "${named(a.document?.name, named(a.value.key, `#${a.index}`))}" has no trigger, so it could never start; add a trigger.* node.`,
      });
    }
  },
});
