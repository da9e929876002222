import { defineRule } from './rule.js';
import { forEachRepeat, objects } from './util.js';

export default defineRule({
  meta: { code: 'pipeline/duplicate-stage-name', severity: 'error', description: 'Stage names are unique within a pipeline.' },
  check(ctx) {
    for (const p of ctx.items('pipelines')) {
      forEachRepeat(objects(p.value.stages), ([stage]) => (typeof stage.name === 'string' ? stage.name : undefined), ([stage, i], [, prev]) =>
        ctx.report({ pointer: `${p.pointer}/stages/${i}/name`, message: `Stage ${i} is named "${String(stage.name)}", like stage ${prev} of this pipeline; stage names must be unique.`, related: [{ pointer: `${p.pointer}/stages/${prev}/name`, message: 'first use of the name' }] }),
      );
    }
  },
});
