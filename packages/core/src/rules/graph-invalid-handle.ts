import { defineRule } from './rule.js';

export default defineRule({
  meta: { code: 'graph/invalid-handle', severity: 'error', description: "An edge's handle is an output of its source node's kind." },
  check(ctx) {
    for (const a of ctx.automations()) {
      const g = a.graph;
      if (!g) continue;
      for (const e of g.edges) {
        const source = g.byId.get(e.source);
        if (!source) continue;
        const handles = g.handlesOf(source);
        if (!handles || handles.includes(e.handle)) continue;
        const list = handles.length ? handles.map((h) => `"${h}"`).join(', ') : 'none (it declares no outcomes)';
        ctx.report({
          pointer: e.explicitHandle ? `${e.pointer}/handle` : e.pointer,
          message: e.explicitHandle
            ? `Edge "${e.id}" leaves ${source.kind} "${source.id}" through handle "${e.handle}", which that node does not have; its outputs are ${list}.`
            : `Edge "${e.id}" leaves ${source.kind} "${source.id}" without a handle, so it uses "next", which that node does not have; its outputs are ${list}.`,
          hint: source.kind === 'control.ai_branch' ? 'Declare the outcome in the node\'s config.outcomes, or use one that is declared.' : `Set "handle" to one of ${list}.`,
        });
      }
    }
  },
});
