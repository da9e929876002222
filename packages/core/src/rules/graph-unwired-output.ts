import { defineRule, type RuleContext } from './rule.js';
import type { GraphModel } from '../graph/model.js';

export default defineRule({
  meta: {
    code: 'graph/unwired-output',
    severity: 'warning',
    description: 'Both outputs of control.if (true/false) and control.loop (each/done) are connected.',
  },
  check(ctx) {
    for (const a of ctx.automations()) if (a.graph) checkGraph(ctx, a.graph);
  },
});

/** One graph. A module-level function called per automation, so V8 optimises it once and keeps it. */
function checkGraph(ctx: RuleContext, g: GraphModel): void {
  for (let n = 0; n < g.nodeCount; n++) {
    const kind = g.kind(n);
    if ((kind !== 'control.if' && kind !== 'control.loop') || g.isDuplicate(n) || g.isBroken(n)) continue;
    const used = new Set<string>();
    for (let k = g.outStart[n]; k < g.outStart[n + 1]; k++) used.add(g.handle(g.outList[k]));
    const handles = g.handles(n) ?? [];
    // An edge with a wrong handle is reported on its own; it was probably meant for the free output.
    if ([...used].some((h) => !handles.includes(h))) continue;
    for (const h of kind === 'control.if' ? ['true', 'false'] : ['each', 'done']) {
      if (!used.has(h))
        ctx.report({
          pointer: g.nodePointer(n),
          message: `The "${h}" output of ${kind} "${g.id(n)}" is not connected; contacts taking it end their run there.`,
        });
    }
  }
}
