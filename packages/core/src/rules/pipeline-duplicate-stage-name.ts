import { defineRule } from './rule.js';
import { repeatedStageNames } from '../pipeline.js';

export default defineRule({
  meta: { code: 'pipeline/duplicate-stage-name', severity: 'error', description: 'Stage names are unique within a pipeline.' },
  check(ctx) {
    for (const p of ctx.items('pipelines')) {
      const stages = p.value.stages as Record<string, unknown>[];
      for (const [i, prev] of repeatedStageNames(stages))
        ctx.report({
          pointer: `${p.pointer}/stages/${i}/name`,
          message: `Stage ${i} is named "${String(stages[i].name)}", like stage ${prev} of this pipeline; stage names must be unique.`,
          related: [{ pointer: `${p.pointer}/stages/${prev}/name`, message: 'first use of the name' }],
        });
    }
  },
});
