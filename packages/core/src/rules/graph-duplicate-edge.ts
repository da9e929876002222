import { defineRule } from './rule.js';
import { forEachRepeat } from './util.js';

export default defineRule({
  meta: { code: 'graph/duplicate-edge', severity: 'warning', description: 'Two edges do not join the same nodes through the same handle.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      forEachRepeat(a.graph?.edges ?? [], (e) => `${e.source}\u0000${e.handle}\u0000${e.target}`, (e, first) =>
        ctx.report({ pointer: e.pointer, message: `Edge "${e.id}" repeats another edge from "${e.source}" (${e.handle}) to "${e.target}".`, related: [{ pointer: first.pointer, message: 'the first edge' }], hint: 'Delete one of them.' }),
      );
    }
  },
});
