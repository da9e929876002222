import { defineRule } from './rule.js';
import { fixedStageProbability } from '../pipeline.js';
import { isObj, named } from './util.js';

export default defineRule({
  meta: {
    code: 'pipeline/probability-normalised',
    severity: 'warning',
    description: 'Won stages are installed at 100% and lost stages at 0%, whatever the pack says.',
  },
  check(ctx) {
    for (const p of ctx.items('pipelines')) {
      const stages: unknown[] = Array.isArray(p.value.stages) ? p.value.stages : [];
      for (let i = 0; i < stages.length; i++) {
        const stage = stages[i];
        if (!isObj(stage) || typeof stage.probability !== 'number') continue;
        const want = fixedStageProbability(stage.stageType);
        if (want !== undefined && stage.probability !== want)
          ctx.report({
            pointer: `${p.pointer}/stages/${i}/probability`,
            message: `Stage "${named(stage.name, `#${i}`)}" is ${stage.stageType} with probability ${stage.probability}; it will be installed as ${want}.`,
            hint: `Set "probability": ${want} (setup-pack fix does this).`,
          });
      }
    }
  },
});
