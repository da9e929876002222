import { defineRule } from './rule.js';
import { forEachRepeat } from './util.js';

export default defineRule({
  meta: { code: 'graph/duplicate-edge-id', severity: 'warning', description: 'Edge ids are unique within a graph.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      forEachRepeat(a.graph?.edges ?? [], (e) => e.id, (e, first) =>
        ctx.report({ pointer: `${e.pointer}/id`, message: `Another edge of this graph already has the id "${e.id}"; editors and installers tell edges apart by id.`, related: [{ pointer: `${first.pointer}/id`, message: 'first edge with this id' }] }),
      );
    }
  },
});
