import { defineRule } from './rule.js';

export default defineRule({
  meta: { code: 'graph/duplicate-edge-id', severity: 'warning', description: 'Edge ids are unique within a graph.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      const g = a.graph;
      if (!g) continue;
      const seen = new Map<string, string>();
      for (const e of g.edges) {
        const prev = seen.get(e.id);
        if (prev === undefined) seen.set(e.id, e.pointer);
        else ctx.report({ pointer: `${e.pointer}/id`, message: `Another edge of this graph already has the id "${e.id}"; editors and installers tell edges apart by id.`, related: [{ pointer: `${prev}/id`, message: 'first edge with this id' }] });
      }
    }
  },
});
