import { defineRule } from './rule.js';
import { NODE_CATALOG } from '../catalog/nodes.js';
import { escapeToken } from '../json/pointer.js';
import { isObj, objects, named } from './util.js';

export default defineRule({
  meta: { code: 'catalog/unknown-config-field', severity: 'info', description: 'A config field our catalog does not know (kept as it is; editors show it as raw JSON).' },
  check(ctx) {
    for (const a of ctx.automations()) {
      if (!a.graph || !isObj(a.document?.graph)) continue;
      for (const [node, i] of objects((a.document!.graph as Record<string, unknown>).nodes)) {
        const info = NODE_CATALOG.get(node.kind as string);
        if (!info || !isObj(node.config)) continue;
        const known = new Set(info.fields.map((f) => f.name));
        for (const name of Object.keys(node.config)) {
          if (!known.has(name)) ctx.report({ pointer: `${a.graph.pointer}/nodes/${i}/config/${escapeToken(name)}`, message: `config.${name} of ${info.kind} node "${named(node.id, `#${i}`)}" is not in our catalog; it is kept as it is.` });
        }
      }
    }
  },
});
