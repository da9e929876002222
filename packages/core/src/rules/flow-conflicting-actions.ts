import { defineRule, type RuleContext } from './rule.js';
import { canonicalJson } from '../plan/content.js';
import { blockKindsOfRules, flowOfRules, nameOf, reachable, type FlowAutomation, type FlowPack } from '../behaviour/flow.js';

export default defineRule({
  meta: {
    code: 'flow/conflicting-actions',
    severity: 'warning',
    description: 'Two automations that start on the same trigger do not undo each other.',
    docs: "Automations whose triggers are the same block kind with the same config start together, in an order the pack does not set. When one adds a tag the other removes, or they set the contact's stage to two different stages, what the contact ends with depends on which ran first.",
  },
  check(ctx) {
    // Only automations that remove a tag or set a stage can undo another's action; without one in
    // the pack, nothing is read (not even the flow model).
    const kinds = blockKindsOfRules(ctx);
    if (!kinds.has('action.remove_tag') && !kinds.has('action.set_stage')) return;
    const flow = flowOfRules(ctx);
    const groups = new Map<string, number[]>();
    flow.automations.forEach((a, i) => {
      for (const t of new Set(a.triggers.map((n) => `${a.nodes[n].kind} ${canonicalJson((a.nodes[n].config ?? {}) as never)}`)))
        groups.set(t, [...(groups.get(t) ?? []), i]);
    });
    for (const members of groups.values()) if (members.length > 1) checkGroup(ctx, flow, members);
  },
});

interface Act {
  automation: number;
  node: number;
  value: string;
}

/** The tags added and removed and the stages set by the blocks of one automation, reachable from its trigger. */
function actsOf(a: FlowAutomation, ai: number): { add: Act[]; remove: Act[]; stage: Act[] } {
  const out = { add: [] as Act[], remove: [] as Act[], stage: [] as Act[] };
  for (const n of reachable(a)) {
    const { kind, config } = a.nodes[n];
    const v = (f: string) => (typeof config?.[f] === 'string' && config[f] !== '' ? config[f] : undefined);
    const list =
      kind === 'action.add_tag' ? out.add : kind === 'action.remove_tag' ? out.remove : kind === 'action.set_stage' ? out.stage : undefined;
    const value = kind === 'action.set_stage' ? v('stage_id') : v('tag_id');
    if (list && value !== undefined) list.push({ automation: ai, node: n, value });
  }
  return out;
}

function checkGroup(ctx: RuleContext, flow: FlowPack, members: number[]): void {
  const adds = new Map<string, Act>();
  const stages: Act[] = [];
  const removes: Act[] = [];
  for (const m of members) {
    const acts = actsOf(flow.automations[m], m);
    for (const x of acts.add) if (!adds.has(x.value)) adds.set(x.value, x);
    removes.push(...acts.remove);
    stages.push(...acts.stage);
  }
  const said = new Set<string>();
  const trigger = flow.automations[members[0]];
  const on = trigger.nodes[trigger.triggers[0]]?.kind ?? 'trigger';
  const report = (x: Act, y: Act, what: string) => {
    const pair = `${x.automation} ${y.automation}`;
    if (said.has(pair)) return;
    said.add(pair);
    const ax = flow.automations[x.automation];
    const ay = flow.automations[y.automation];
    ctx.report({
      pointer: ay.nodes[y.node].pointer,
      message: `"${ax.name}" and "${ay.name}" both start on the same ${on} trigger, and ${what}, so what the contact ends with depends on which runs first.`,
      related: [{ pointer: ax.nodes[x.node].pointer, message: `"${ax.name}"'s block "${ax.nodes[x.node].id}"` }],
      hint: 'Let one automation do both, or start them on different triggers.',
    });
  };
  for (const y of removes) {
    const x = adds.get(y.value);
    if (x && x.automation !== y.automation)
      report(
        x,
        y,
        `"${flow.automations[x.automation].name}" adds tag ${nameOf(flow, 'tag', y.value)} that "${flow.automations[y.automation].name}" removes`,
      );
  }
  const first = new Map<number, Act>();
  for (const s of stages) if (!first.has(s.automation)) first.set(s.automation, s);
  const setters = [...first.values()];
  for (const y of setters.slice(1)) {
    const x = setters.find((s) => s.automation !== y.automation && s.value !== y.value);
    if (x && x.automation < y.automation)
      report(
        x,
        y,
        `"${flow.automations[x.automation].name}" sets the stage to ${nameOf(flow, 'stage', x.value)} where "${flow.automations[y.automation].name}" sets it to ${nameOf(flow, 'stage', y.value)}`,
      );
  }
}
