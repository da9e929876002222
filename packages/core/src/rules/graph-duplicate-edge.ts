import { defineRule } from './rule.js';

export default defineRule({
  meta: { code: 'graph/duplicate-edge', severity: 'warning', description: 'Two edges do not join the same nodes through the same handle.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      const g = a.graph;
      if (!g) continue;
      const seen = new Map<string, string>();
      for (const e of g.edges) {
        const sig = `${e.source}\u0000${e.handle}\u0000${e.target}`;
        const prev = seen.get(sig);
        if (prev === undefined) seen.set(sig, e.pointer);
        else ctx.report({ pointer: e.pointer, message: `Edge "${e.id}" repeats another edge from "${e.source}" (${e.handle}) to "${e.target}".`, related: [{ pointer: prev, message: 'the first edge' }], hint: 'Delete one of them.' });
      }
    }
  },
});
