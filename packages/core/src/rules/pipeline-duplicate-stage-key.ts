import { defineRule } from './rule.js';
import { forEachRepeatedField } from './util.js';

export default defineRule({
  meta: { code: 'pipeline/duplicate-stage-key', severity: 'error', description: 'Stage keys are unique within a pipeline.' },
  check(ctx) {
    for (const p of ctx.items('pipelines')) {
      const stages = p.value.stages as Record<string, unknown>[];
      forEachRepeatedField(stages, 'key', (i, prev) =>
        ctx.report({
          pointer: `${p.pointer}/stages/${i}/key`,
          message: `Stage ${i} has the key "${String(stages[i].key)}", already used by stage ${prev} of this pipeline; stage keys must be unique within a pipeline.`,
          related: [{ pointer: `${p.pointer}/stages/${prev}/key`, message: 'first use of the key' }],
        }),
      );
    }
  },
});
