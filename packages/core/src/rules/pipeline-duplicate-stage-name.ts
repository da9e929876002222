import { defineRule } from './rule.js';
import { objects } from './util.js';

export default defineRule({
  meta: { code: 'pipeline/duplicate-stage-name', severity: 'error', description: 'Stage names are unique within a pipeline.' },
  check(ctx) {
    for (const p of ctx.items('pipelines')) {
      const first = new Map<string, number>();
      for (const [stage, i] of objects(p.value.stages)) {
        if (typeof stage.name !== 'string') continue;
        const prev = first.get(stage.name);
        if (prev === undefined) first.set(stage.name, i);
        else ctx.report({ pointer: `${p.pointer}/stages/${i}/name`, message: `Stage ${i} is named "${stage.name}", like stage ${prev} of this pipeline; stage names must be unique.`, related: [{ pointer: `${p.pointer}/stages/${prev}/name`, message: 'first use of the name' }] });
      }
    }
  },
});
