import { defineRule } from './rule.js';
import { NODE_CATALOG } from '../catalog/nodes.js';
import { escapeToken } from '../json/pointer.js';
import { isObj } from './util.js';

export default defineRule({
  meta: { code: 'catalog/unknown-config-field', severity: 'info', description: 'A config field our catalog does not know (kept as it is; editors show it as raw JSON).' },
  check(ctx) {
    for (const a of ctx.automations()) {
      if (!a.graph) continue;
      for (const node of a.graph.nodes) {
        const info = NODE_CATALOG.get(node.kind);
        if (!info || !isObj(node.config)) continue;
        for (const name in node.config) {
          if (!info.fieldNames.has(name) && Object.prototype.hasOwnProperty.call(node.config, name))
            ctx.report({ pointer: `${node.pointer}/config/${escapeToken(name)}`, message: `config.${name} of ${info.kind} node "${node.id}" is not in our catalog; it is kept as it is.` });
        }
      }
    }
  },
});
