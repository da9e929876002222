// What a pack will do: the effects model, the cascade graph and its loops, the simulator.
import { cascadeOf, loopsOf, type Cascade, type Loop, type CascadeEdge } from './cascade.js';
import { flowOfPack, type FlowPack } from './flow.js';
import { validatedCascade } from './findings.js';
import type { Pack } from '../types.js';

export {
  EFFECTS,
  EVENT_WORDS,
  TRIGGER_CONDITIONS,
  subjectOf,
  type TriggerFact,
  type BlockEffects,
  type CausedEvent,
  type EventKind,
  type TriggerStart,
} from './effects.js';
export { cascadeOf, loopsOf, edgeWords, guardsOf, SUBJECT_TYPE, type Cascade, type CascadeEdge, type Loop, type Guard } from './cascade.js';
export {
  flowOfPack,
  flowSettings,
  nameOf,
  reachable,
  type FlowAutomation,
  type FlowNode,
  type FlowPack,
  type FlowSettings,
} from './flow.js';
export { pathWords } from './findings.js';
export { waitMinutes, waitUntilMinute } from './waits.js';

/**
 * A valid pack's automations as the effects model reads them, the cascade between them and its
 * loops (the editor's Flow map, the language server's hover): what validatePack's flow/* rules
 * built for this same value when they built it, else built here.
 */
export function analyseFlow(pack: Pack): { flow: FlowPack; cascade: Cascade; loops: Loop[]; selfStarts: CascadeEdge[][] } {
  const validated = validatedCascade(pack);
  if (validated) return { flow: validated.flow, cascade: validated.cascade, ...validated.loops };
  const flow = flowOfPack(pack);
  const cascade = cascadeOf(flow);
  return { flow, cascade, ...loopsOf(flow, cascade) };
}
export {
  simulate,
  simulationEvents,
  nextOpen,
  SimulateError,
  SIMULATION_PATH_LIMIT,
  SIMULATION_STEP_LIMIT,
  type SimulateInput,
  type Timeline,
  type TimelinePath,
  type TimelineStep,
  type MessageCounts,
} from './simulate.js';
export { readContact, ContactError, type SimContact } from './contact.js';
export { isTimeZone, isoIn } from './zone.js';
