import { defineRule } from './rule.js';
import { forEachRepeat, objects } from './util.js';

export default defineRule({
  meta: { code: 'pipeline/duplicate-stage-key', severity: 'error', description: 'Stage keys are unique within a pipeline.' },
  check(ctx) {
    for (const p of ctx.items('pipelines')) {
      forEachRepeat(objects(p.value.stages), ([stage]) => (typeof stage.key === 'string' ? stage.key : undefined), ([stage, i], [, prev]) =>
        ctx.report({ pointer: `${p.pointer}/stages/${i}/key`, message: `Stage ${i} has the key "${String(stage.key)}", already used by stage ${prev} of this pipeline; stage keys must be unique within a pipeline.`, related: [{ pointer: `${p.pointer}/stages/${prev}/key`, message: 'first use of the key' }] }),
      );
    }
  },
});
