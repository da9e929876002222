import { defineRule } from './rule.js';
import { checkClosedStage } from './closed-stage.js';

export default defineRule({
  meta: { code: 'pipeline/missing-won-stage', severity: 'error', description: 'A pipeline has at least one CLOSED_WON stage.' },
  check: (ctx) => checkClosedStage(ctx, 'CLOSED_WON'),
});
