import { defineRule } from './rule.js';
import { objects, named } from './util.js';

export default defineRule({
  meta: { code: 'pipeline/missing-lost-stage', severity: 'error', description: 'A pipeline has at least one CLOSED_LOST stage.' },
  check(ctx) {
    for (const p of ctx.items('pipelines')) {
      if (!Array.isArray(p.value.stages) || ctx.isBroken(`${p.pointer}/stages`) && p.value.stages.length === 0) continue;
      const stages = objects(p.value.stages);
      if (stages.some(([s]) => s.stageType === 'CLOSED_LOST')) continue;
      // A stage whose stageType failed the schema may have been meant as the lost stage.
      if (stages.some(([, i]) => ctx.isBroken(`${p.pointer}/stages/${i}/stageType`))) continue;
      ctx.report({ pointer: `${p.pointer}/stages`, message: `Pipeline "${named(p.value.name, named(p.value.key, `#${p.index}`))}" has no CLOSED_LOST stage; every pipeline needs at least one, so deals can be marked lost.`, hint: 'Add a stage with "stageType": "CLOSED_LOST".' });
    }
  },
});
