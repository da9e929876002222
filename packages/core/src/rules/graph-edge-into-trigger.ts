import { defineRule, type RuleContext } from './rule.js';
import type { GraphModel } from '../graph/model.js';
import { TRIGGER_CANNOT_BE_ENTERED } from '../graph/connect.js';

export default defineRule({
  meta: { code: 'graph/edge-into-trigger', severity: 'error', description: 'No edge enters a trigger.' },
  check(ctx) {
    for (const a of ctx.automations()) if (a.graph) checkGraph(ctx, a.graph);
  },
});

/** One graph. A module-level function called per automation, so V8 optimises it once and keeps it. */
function checkGraph(ctx: RuleContext, g: GraphModel): void {
  if (!g.hasTrigger) return;
  for (let e = 0; e < g.edgeCount; e++) {
    if (!g.intoTrigger(e)) continue;
    const t = g.to(e);
    ctx.report({
      pointer: `${g.edgePointer(e)}/target`,
      message: `Edge "${g.edgeId(e)}" enters trigger "${g.id(t)}" (${g.kind(t)}); ${TRIGGER_CANNOT_BE_ENTERED}.`,
    });
  }
}
