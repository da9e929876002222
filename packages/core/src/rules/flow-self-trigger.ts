import { defineRule } from './rule.js';
import { cascadeOfRules, loopFinding } from '../behaviour/findings.js';

export default defineRule({
  meta: {
    code: 'flow/self-trigger',
    severity: 'error',
    description: "An automation's own block does not start it again.",
    docs: "A block that causes the event the automation's own trigger starts on (it adds the tag its trigger waits for, sets the stage it starts on), or runs the automation itself (action.run_automation). Its severity follows the same rule as flow/cascade-loop: an **error** when the automation allows re-enrollment and nothing on the way stops it, a **warning** naming what breaks or slows it otherwise.",
  },
  check(ctx) {
    const cascade = cascadeOfRules(ctx);
    if (!cascade) return;
    const { flow, loops } = cascade;
    for (const edges of loops.selfStarts) ctx.report(loopFinding(flow, [edges[0]], 'self'));
  },
});
