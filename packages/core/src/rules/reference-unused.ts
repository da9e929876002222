import { defineRule, type AutomationRef, type RuleContext } from './rule.js';
import { removeWrittenStrings } from '../references.js';
import { isObj, named } from './util.js';

export default defineRule({
  meta: {
    code: 'reference/unused',
    severity: 'warning',
    description: "Every reference's id is written somewhere in the graph's node configs.",
  },
  check(ctx) {
    for (const a of ctx.automations()) checkAutomation(ctx, a);
  },
});

/** One automation. A module-level function called per automation, so V8 optimises it once and keeps it. */
function checkAutomation(ctx: RuleContext, a: AutomationRef): void {
  const refs: unknown[] = Array.isArray(a.document?.references) ? a.document.references : [];
  const g = a.graph;
  if (refs.length === 0 || !g || g.hasBrokenNodes) return;
  const unwritten = new Set<string>();
  for (const ref of refs) if (isObj(ref) && typeof ref.id === 'string') unwritten.add(ref.id);
  for (let n = 0; n < g.nodeCount && unwritten.size > 0; n++) removeWrittenStrings(g.config(n), unwritten);
  for (let i = 0; i < refs.length && unwritten.size > 0; i++) {
    const ref = refs[i];
    if (!isObj(ref) || typeof ref.id !== 'string' || !unwritten.has(ref.id)) continue;
    ctx.report({
      pointer: `${a.pointer}/document/references/${i}`,
      message: `Reference ${named(ref.type, 'item')} "${ref.id}" is listed, but no node config in the graph writes that id.`,
      hint: 'Remove the reference, or use the id in a node.',
    });
  }
}
