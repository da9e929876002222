import { defineRule } from './rule.js';
import { cascadeOfRules, loopFinding } from '../behaviour/findings.js';

export default defineRule({
  meta: {
    code: 'flow/cascade-loop',
    severity: 'error',
    description: 'Automations do not start one another in a loop a contact can go round for ever.',
    docs: [
      "Read from the effects model (docs/behaviour.md): a block causes an event (a tag added, a stage set, a deal moved…) that starts another automation's trigger, or runs it directly. When such starts close a loop, a contact can go round it, and every turn sends what the loop sends.",
      'An **error** where every automation on the loop allows re-enrollment and every step of it is certain and unguarded: nothing stops it. A **warning** where something breaks or slows it, and the message names it: an automation that does not allow re-enrollment (a contact goes round once), a condition on the way (the model cannot decide it, so both branches count as possible), a wait on each turn, or a step that rests on the contact (an email that may be opened). The message names the loop block by block, and each block on it is a related location.',
    ].join('\n\n'),
  },
  check(ctx) {
    const cascade = cascadeOfRules(ctx);
    if (!cascade) return;
    const { flow, loops } = cascade;
    for (const loop of loops.loops) if (loop.path.length) ctx.report(loopFinding(flow, loop.path, 'loop'));
  },
});
