import { defineRule } from './rule.js';

export default defineRule({
  meta: { code: 'graph/unwired-output', severity: 'warning', description: 'Both outputs of control.if (true/false) and control.loop (each/done) are connected.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      const g = a.graph;
      if (!g) continue;
      for (const n of g.nodes) {
        if (n.duplicate || n.broken || (n.kind !== 'control.if' && n.kind !== 'control.loop')) continue;
        const used = new Set(g.edges.filter((e) => e.source === n.id).map((e) => e.handle));
        const handles = g.handlesOf(n) ?? [];
        // An edge with a wrong handle is reported on its own; it was probably meant for the free output.
        if ([...used].some((h) => !handles.includes(h))) continue;
        for (const h of n.kind === 'control.if' ? ['true', 'false'] : ['each', 'done']) {
          if (!used.has(h)) ctx.report({ pointer: n.pointer, message: `The "${h}" output of ${n.kind} "${n.id}" is not connected; contacts taking it end their run there.` });
        }
      }
    }
  },
});
