// Shared check behind pipeline/missing-won-stage and pipeline/missing-lost-stage.
import type { RuleContext } from './rule.js';
import { missingClosedStages } from '../pipeline.js';
import { isObj, named } from './util.js';

export function checkClosedStage(ctx: RuleContext, stageType: 'CLOSED_WON' | 'CLOSED_LOST'): void {
  const outcome = stageType === 'CLOSED_WON' ? 'won' : 'lost';
  for (const p of ctx.items('pipelines')) {
    if (!Array.isArray(p.value.stages) || p.value.stages.length === 0) continue; // the schema reports it
    const stages: unknown[] = p.value.stages;
    if (!missingClosedStages(stages, (s) => (isObj(s) ? s.stageType : undefined)).includes(stageType)) continue;
    // A stage whose stageType failed the schema may have been meant as this stage.
    if (stages.some((s, i) => isObj(s) && ctx.isBroken(`${p.pointer}/stages/${i}/stageType`))) continue;
    ctx.report({
      pointer: `${p.pointer}/stages`,
      message: `Pipeline "${named(p.value.name, named(p.value.key, `#${p.index}`))}" has no ${stageType} stage; every pipeline needs at least one, so deals can be marked ${outcome}.`,
      hint: `Add a stage with "stageType": "${stageType}".`,
    });
  }
}
