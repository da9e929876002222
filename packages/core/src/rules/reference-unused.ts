import { defineRule } from './rule.js';
import { removeWrittenStrings } from '../references.js';
import { objects, named } from './util.js';

export default defineRule({
  meta: { code: 'reference/unused', severity: 'warning', description: "Every reference's id is written somewhere in the graph's node configs." },
  check(ctx) {
    for (const a of ctx.automations()) {
      const refs = objects(a.document?.references);
      if (refs.length === 0 || !a.graph || a.graph.hasBrokenNodes) continue;
      const unwritten = new Set<string>();
      for (const [ref] of refs) if (typeof ref.id === 'string') unwritten.add(ref.id);
      const g = a.graph;
      for (let n = 0; n < g.nodeCount && unwritten.size > 0; n++) removeWrittenStrings(g.config(n), unwritten);
      for (const [ref, i] of refs) {
        if (typeof ref.id !== 'string' || !unwritten.has(ref.id)) continue;
        ctx.report({ pointer: `${a.pointer}/document/references/${i}`, message: `Reference ${named(ref.type, 'item')} "${ref.id}" is listed, but no node config in the graph writes that id.`, hint: 'Remove the reference, or use the id in a node.' });
      }
    }
  },
});
