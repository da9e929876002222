// The cross-automation findings (flow/*) in words, computed once per validation and shared by the
// rules: the cascade graph and its loops, the automations that share a trigger, and the message
// steps a fixed trigger time and fixed waits always put outside the send window.
import type { Diagnostic } from '../diagnostics.js';
import type { RuleContext } from '../rules/rule.js';
import { cascadeOf, edgeWords, guardsOf, loopsOf, mayCascade, type Cascade, type CascadeEdge } from './cascade.js';
import { blockKindsOfRules, flowOfRules, type FlowPack } from './flow.js';

type Finding = Omit<Diagnostic, 'code'>;

const cache = new WeakMap<object, { flow: FlowPack; cascade: Cascade; loops: ReturnType<typeof loopsOf> }>();

/**
 * The cascade graph and its loops for the pack being validated, built once and shared by the flow/*
 * rules; undefined when no block of the pack can start an automation (mayCascade), so there is no
 * loop to find and the model is not built.
 */
export function cascadeOfRules(ctx: RuleContext) {
  const known = cache.get(ctx.pack);
  if (known) return known;
  if (!mayCascade(blockKindsOfRules(ctx))) return undefined;
  const flow = flowOfRules(ctx);
  const cascade = cascadeOf(flow);
  const out = { flow, cascade, loops: loopsOf(flow, cascade) };
  cache.set(ctx.pack, out);
  return out;
}

/**
 * The cascade the flow/* rules built while validating this very pack object, if they built one:
 * a reader of the same parsed value after validatePack (the language server's hover) need not
 * build it again. Valid while the value is not changed in place.
 */
export function validatedCascade(pack: object): { flow: FlowPack; cascade: Cascade; loops: ReturnType<typeof loopsOf> } | undefined {
  return cache.get(pack);
}

/** A loop's path as the message names it: `"New lead" adds tag hot → "Hot lead" sets stage nurture → "New lead"`. */
export function pathWords(flow: FlowPack, path: readonly CascadeEdge[]): string {
  const steps = path.map((e) => `"${flow.automations[e.from].name}" ${edgeWords(flow, e)}`);
  return `${steps.join(' → ')} → "${flow.automations[path[0].from].name}"`;
}

/**
 * The finding of a loop (or of an automation that starts itself): an error when nothing on it stops
 * a contact going round for ever, else a warning naming what breaks or slows it. Placed at the
 * first block on the loop; every block on it, and each trigger it starts, is a related location.
 */
export function loopFinding(flow: FlowPack, path: readonly CascadeEdge[], what: 'loop' | 'self'): Finding {
  const guards = guardsOf(flow, path);
  const first = path[0];
  const a = flow.automations[first.from];
  const related = path.flatMap((e) => {
    const from = flow.automations[e.from];
    const to = flow.automations[e.to];
    return [
      { pointer: from.nodes[e.node].pointer, message: `"${from.name}" ${edgeWords(flow, e)}` },
      { pointer: to.nodes[e.trigger].pointer, message: `which starts "${to.name}"` },
    ];
  });
  const head =
    what === 'self'
      ? `Automation "${a.name}" starts itself again: its block "${a.nodes[first.node].id}" ${edgeWords(flow, first)}, which starts its own trigger`
      : `Automations start one another in a loop: ${pathWords(flow, path)}`;
  const tail = guards.length
    ? `; ${guards.join('; ')}.`
    : `; ${what === 'self' ? 'it allows' : 'every one of them allows'} re-enrollment and nothing on the way stops it, so a contact goes round for ever${sends(flow, path)}.`;
  return {
    severity: guards.length ? 'warning' : 'error',
    pointer: a.nodes[first.node].pointer,
    message: `${head}${tail}`,
    related,
    hint: guards.length
      ? 'Check that the guard holds for every contact, or break the loop.'
      : 'Break the loop: turn re-enrollment off on one automation, add a condition that stops it, or remove the step that closes it.',
  };
}

/** What each turn of a loop sends, in words (` and each turn sends 1 email`), from the message blocks of its automations. */
function sends(flow: FlowPack, path: readonly CascadeEdge[]): string {
  let email = 0;
  let sms = 0;
  for (const m of new Set(path.map((e) => e.from))) {
    for (const n of flow.automations[m].nodes) {
      if (n.kind === 'action.send_email' || (n.kind === 'action.ai_message' && n.config?.channel === 'email')) email++;
      else if (n.kind === 'action.send_sms' || n.kind === 'action.ai_message') sms++;
    }
  }
  const parts = [email ? `${email} email${email > 1 ? 's' : ''}` : '', sms ? `${sms} SMS` : ''].filter(Boolean);
  return parts.length ? `, and each turn can send ${parts.join(' and ')}` : '';
}
