import { defineRule } from './rule.js';
import { objects } from './util.js';

export default defineRule({
  meta: { code: 'pipeline/duplicate-stage-key', severity: 'error', description: 'Stage keys are unique within a pipeline.' },
  check(ctx) {
    for (const p of ctx.items('pipelines')) {
      const first = new Map<string, number>();
      for (const [stage, i] of objects(p.value.stages)) {
        if (typeof stage.key !== 'string') continue;
        const prev = first.get(stage.key);
        if (prev === undefined) first.set(stage.key, i);
        else ctx.report({ pointer: `${p.pointer}/stages/${i}/key`, message: `Stage ${i} has the key "${stage.key}", already used by stage ${prev} of this pipeline; stage keys must be unique within a pipeline.`, related: [{ pointer: `${p.pointer}/stages/${prev}/key`, message: 'first use of the key' }] });
      }
    }
  },
});
