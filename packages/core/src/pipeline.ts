// The format's rules for a pipeline's stage list, in one place for every shape that carries one:
// the validator's rules (pipeline/duplicate-stage-name, pipeline/missing-won-stage,
// pipeline/missing-lost-stage) and the workspace API's pipeline routes both call these, so a
// pipeline the validator accepts is one the API stores.
import { forEachRepeatedField } from './rules/util.js';
import type { StageType } from './types.js';

/** Each stage whose name an earlier stage already has, exactly as written: [index, first index]. */
export function repeatedStageNames(stages: readonly unknown[]): [number, number][] {
  const out: [number, number][] = [];
  forEachRepeatedField(stages, 'name', (i, first) => out.push([i, first]));
  return out;
}

/** The closed stage types a pipeline must have at least one stage of. */
export const REQUIRED_CLOSED_STAGES: readonly Extract<StageType, 'CLOSED_WON' | 'CLOSED_LOST'>[] = ['CLOSED_WON', 'CLOSED_LOST'];

/** Which of REQUIRED_CLOSED_STAGES no stage has; `typeOf` reads a stage's type (the pack's `stageType`, the API's `type`). */
export function missingClosedStages<S>(
  stages: readonly S[],
  typeOf: (stage: S) => unknown,
): Extract<StageType, 'CLOSED_WON' | 'CLOSED_LOST'>[] {
  // One pass over the stages (the validator asks this of every pipeline of every pack).
  let won = false;
  let lost = false;
  for (let i = 0; i < stages.length && !(won && lost); i++) {
    const t = typeOf(stages[i]);
    if (t === 'CLOSED_WON') won = true;
    else if (t === 'CLOSED_LOST') lost = true;
  }
  return won && lost ? [] : REQUIRED_CLOSED_STAGES.filter((t) => (t === 'CLOSED_WON' ? !won : !lost));
}

/**
 * The probability a stage of `type` has whatever the pack gives: 100 for CLOSED_WON and 0 for
 * CLOSED_LOST (the format's rule); undefined for an open stage, whose own probability stands.
 */
export function fixedStageProbability(type: unknown): number | undefined {
  return type === 'CLOSED_WON' ? 100 : type === 'CLOSED_LOST' ? 0 : undefined;
}
