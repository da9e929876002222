import { defineRule, type RuleContext } from './rule.js';
import type { GraphModel } from '../graph/model.js';
import { escapeToken } from '../json/pointer.js';
import { isObj } from './util.js';

export default defineRule({
  meta: {
    code: 'catalog/unknown-config-field',
    severity: 'info',
    description: 'A config field our catalog does not know (kept as it is; editors show it as raw JSON).',
  },
  check(ctx) {
    for (const a of ctx.automations()) if (a.graph) checkGraph(ctx, a.graph);
  },
});

const MESSAGE = ['config.', '', ' of ', '', ' node "', '', '" is not in our catalog; it is kept as it is.'];
const POINTER = ['', ''];

/** One graph. A module-level function called per automation, so V8 optimises it once and keeps it. */
function checkGraph(ctx: RuleContext, g: GraphModel): void {
  for (let n = 0; n < g.nodeCount; n++) {
    const info = g.info(n);
    const config = g.config(n);
    if (!info || !isObj(config)) continue;
    let configPointer: string | undefined; // built once per node, for its first unknown field
    for (const name in config) {
      if (!info.fieldNames.has(name) && Object.prototype.hasOwnProperty.call(config, name)) {
        configPointer ??= g.nodePointer(n) + '/config/';
        // A pack exported by the real service has tens of thousands of these, and each message
        // and pointer lives until the run ends: joined, each is one flat string rather than a
        // tree of concatenations that every scavenge copies (about 4 % of validating such a
        // pack) and that ordering or placing the findings flattens again, pointer by pointer.
        // The parts go into two arrays made once, not two new arrays per finding.
        MESSAGE[1] = name;
        MESSAGE[3] = info.kind;
        MESSAGE[5] = String(g.id(n));
        POINTER[0] = configPointer;
        POINTER[1] = escapeToken(name);
        ctx.report({ pointer: POINTER.join(''), message: MESSAGE.join('') });
      }
    }
  }
}
