import { defineRule } from './rule.js';
import { stringsInConfig } from '../references.js';
import { objects, isObj, named } from './util.js';

export default defineRule({
  meta: { code: 'reference/unused', severity: 'warning', description: "Every reference's id is written somewhere in the graph's node configs." },
  check(ctx) {
    for (const a of ctx.automations()) {
      const refs = objects(a.document?.references);
      if (refs.length === 0 || !a.graph || a.graph.hasBrokenNodes) continue;
      const written = new Set<string>();
      const graph = a.document?.graph;
      if (isObj(graph)) for (const [node] of objects(graph.nodes)) stringsInConfig(node.config, written);
      for (const [ref, i] of refs) {
        if (typeof ref.id !== 'string' || written.has(ref.id)) continue;
        ctx.report({ pointer: `${a.pointer}/document/references/${i}`, message: `Reference ${named(ref.type, 'item')} "${ref.id}" is listed, but no node config in the graph writes that id.`, hint: 'Remove the reference, or use the id in a node.' });
      }
    }
  },
});
