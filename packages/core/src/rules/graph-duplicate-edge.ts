import { defineRule, type RuleContext } from './rule.js';
import type { GraphModel } from '../graph/model.js';
import { forEachRepeat } from './util.js';

export default defineRule({
  meta: { code: 'graph/duplicate-edge', severity: 'warning', description: 'Two edges do not join the same nodes through the same handle.' },
  check(ctx) {
    for (const a of ctx.automations()) if (a.graph) checkGraph(ctx, a.graph);
  },
});

/** One graph. A module-level function called per automation, so V8 optimises it once and keeps it. */
function checkGraph(ctx: RuleContext, g: GraphModel): void {
  const report = (e: number, first: number) =>
    ctx.report({
      pointer: g.edgePointer(e),
      message: `Edge "${g.edgeId(e)}" repeats another edge from "${g.source(e)}" (${g.handle(e)}) to "${g.target(e)}".`,
      related: [{ pointer: g.edgePointer(first), message: 'the first edge' }],
      hint: 'Delete one of them.',
    });
  // Edges leaving a node are listed on it, so repeats are looked for among a node's few edges.
  const { outStart, outList } = g;
  for (let n = 0; n < g.nodeCount; n++) {
    for (let i = outStart[n] + 1; i < outStart[n + 1]; i++) {
      const e = outList[i];
      for (let j = outStart[n]; j < i; j++) {
        const f = outList[j];
        if (g.handle(f) === g.handle(e) && g.target(f) === g.target(e)) {
          report(e, f);
          break;
        }
      }
    }
  }
  // Edges whose source is no node (an error of their own) can still repeat each other.
  if (g.hasDanglingEdges) {
    const lost = Array.from({ length: g.edgeCount }, (_, e) => e).filter((e) => g.from(e) < 0);
    forEachRepeat(lost, (e) => `${g.source(e)}\u0000${g.handle(e)}\u0000${g.target(e)}`, report);
  }
}
