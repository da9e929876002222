import { defineRule, type RuleContext } from './rule.js';
import type { GraphModel } from '../graph/model.js';
import { escapeToken } from '../json/pointer.js';
import { isObj } from './util.js';

export default defineRule({
  meta: { code: 'catalog/unknown-config-field', severity: 'info', description: 'A config field our catalog does not know (kept as it is; editors show it as raw JSON).' },
  check(ctx) {
    for (const a of ctx.automations()) if (a.graph) checkGraph(ctx, a.graph);
  },
});

/** One graph. A module-level function called per automation, so V8 optimises it once and keeps it. */
function checkGraph(ctx: RuleContext, g: GraphModel): void {
  for (let n = 0; n < g.nodeCount; n++) {
    const info = g.info(n);
    const config = g.config(n);
    if (!info || !isObj(config)) continue;
    for (const name in config) {
      if (!info.fieldNames.has(name) && Object.prototype.hasOwnProperty.call(config, name))
        ctx.report({ pointer: `${g.nodePointer(n)}/config/${escapeToken(name)}`, message: `config.${name} of ${info.kind} node "${g.id(n)}" is not in our catalog; it is kept as it is.` });
    }
  }
}
