// The pack-level cascade graph: automation → the events its blocks cause → the automations those
// events start. Built in one pass over the blocks with an index of triggers by event and subject,
// so it is linear in blocks plus edges (never a search per pair of automations). Loops are its
// strongly connected components (graphlib's tarjan). The flow/* rules, simulate's explanations and
// the editor's Flow map read it.
import { alg, Graph } from '@dagrejs/graphlib';
import { EFFECTS, EVENT_WORDS, subjectOf, type EventKind } from './effects.js';
import { nameOf, reachable, type FlowAutomation, type FlowPack } from './flow.js';
import type { ReferenceType } from '../types.js';

/** What a block passes through on its way from the trigger: a condition (control.if, AI branch) or a wait. */
export interface Guard {
  kind: 'condition' | 'wait';
  /** The node's index in its automation. */
  node: number;
}

/** One automation starting another (or itself): the block that does it, and how. */
export interface CascadeEdge {
  from: number;
  to: number;
  /** The block in `from` that causes it, and the trigger in `to` it starts. */
  node: number;
  trigger: number;
  /** The event ('run' for action.run_automation) and what it names. */
  event: EventKind | 'run';
  subject?: string;
  certainty: 'certain' | 'possible';
  /** A condition on every path from the trigger to the block, if any; likewise a wait. */
  condition?: Guard;
  wait?: Guard;
}

export interface Cascade {
  edges: CascadeEdge[];
  /** Per automation, its outgoing edges (indexes into `edges`). */
  out: number[][];
}

interface Start {
  automation: number;
  trigger: number;
}

/** Triggers by the event that starts them: by subject, and those that take any subject. */
function triggerIndex(automations: readonly FlowAutomation[]): Map<EventKind, { bySubject: Map<string, Start[]>; any: Start[] }> {
  const index = new Map<EventKind, { bySubject: Map<string, Start[]>; any: Start[] }>();
  automations.forEach((a, ai) => {
    for (const t of a.triggers) {
      const starts = EFFECTS.get(a.nodes[t].kind)?.starts;
      if (!starts || starts.on === 'time' || starts.on === 'external') continue;
      let entry = index.get(starts.on);
      if (!entry) index.set(starts.on, (entry = { bySubject: new Map(), any: [] }));
      const subject = subjectOf(starts.subject, a.nodes[t].config);
      if (subject === undefined) entry.any.push({ automation: ai, trigger: t });
      else entry.bySubject.set(subject, [...(entry.bySubject.get(subject) ?? []), { automation: ai, trigger: t }]);
    }
  });
  return index;
}

/**
 * For each node, a guard every path from a trigger to it passes (undefined where some path has
 * none): one walk that does not go on through guards, then one that does, remembering the guard.
 */
function guardsBefore(a: FlowAutomation, isGuard: (n: number) => boolean): (Guard['node'] | undefined)[] {
  const free = new Uint8Array(a.nodes.length);
  const stack = [...a.triggers];
  for (const t of stack) free[t] = 1;
  while (stack.length) {
    const n = stack.pop()!;
    if (isGuard(n)) continue;
    for (const { to } of a.nodes[n].next) if (!free[to]) (free[to] = 1), stack.push(to);
  }
  const via: (number | undefined)[] = new Array(a.nodes.length).fill(undefined);
  const seen = new Uint8Array(a.nodes.length);
  const walk: [number, number | undefined][] = a.triggers.map((t) => [t, undefined]);
  for (const t of a.triggers) seen[t] = 1;
  while (walk.length) {
    const [n, g] = walk.pop()!;
    const guard = g ?? (isGuard(n) ? n : undefined);
    for (const { to } of a.nodes[n].next) {
      if (seen[to]) continue;
      seen[to] = 1;
      if (!free[to]) via[to] = guard;
      walk.push([to, guard]);
    }
  }
  return via;
}

const kindOf = (a: FlowAutomation, n: number) => EFFECTS.get(a.nodes[n].kind)?.control;

/** How sure an edge is: one that goes round for sure, with no guard, is preferred when choosing a path. */
const rank = (e: CascadeEdge) => (e.certainty === 'possible' ? 4 : 0) + (e.condition ? 2 : 0) + (e.wait ? 1 : 0);

/** The cascade graph of a pack's automations: one edge per pair of automations, the least guarded. */
export function cascadeOf(flow: FlowPack): Cascade {
  const { automations, stageTypes } = flow;
  const index = triggerIndex(automations);
  const byKey = new Map<string, number>();
  automations.forEach((a, i) => !byKey.has(a.key) && byKey.set(a.key, i));
  const edges: CascadeEdge[] = [];
  const out: number[][] = automations.map(() => []);
  automations.forEach((a, ai) => {
    const conditions = guardsBefore(a, (n) => kindOf(a, n) === 'if' || kindOf(a, n) === 'ai_branch');
    const waits = guardsBefore(a, (n) => kindOf(a, n) === 'wait');
    // One edge per automation started, the least guarded: many blocks of one automation causing
    // events that start another say no more than the worst of them, and the graph stays small.
    const best = new Map<number, number>();
    const add = (e: Omit<CascadeEdge, 'from' | 'condition' | 'wait'>) => {
      const c = conditions[e.node];
      const w = waits[e.node];
      const edge: CascadeEdge = { from: ai, ...e, ...(c !== undefined ? { condition: { kind: 'condition', node: c } } : {}), ...(w !== undefined ? { wait: { kind: 'wait', node: w } } : {}) };
      const known = best.get(e.to);
      if (known !== undefined) {
        if (rank(edge) < rank(edges[known])) edges[known] = edge;
        return;
      }
      best.set(e.to, edges.length);
      out[ai].push(edges.length);
      edges.push(edge);
    };
    for (const n of reachable(a)) {
      const node = a.nodes[n];
      const effects = EFFECTS.get(node.kind);
      if (!effects) continue;
      if (effects.automations?.does === 'start') {
        const target = byKey.get(String(node.config?.[effects.automations.field] ?? ''));
        if (target !== undefined) for (const t of automations[target].triggers.slice(0, 1)) add({ to: target, node: n, trigger: t, event: 'run', subject: automations[target].key, certainty: 'certain' });
      }
      for (const c of effects.causes ?? []) {
        const subject = subjectOf(c.subject, node.config);
        if (c.whenStageType && stageTypes.get(String(node.config?.stage_id ?? '')) !== c.whenStageType) continue;
        const entry = index.get(c.event);
        if (!entry) continue;
        // An event whose subject the block does not name may be any: it meets every trigger of its kind.
        const starts = subject === undefined ? [...entry.any, ...[...entry.bySubject.values()].flat()] : [...entry.any, ...(entry.bySubject.get(subject) ?? [])];
        for (const s of starts) add({ to: s.automation, node: n, trigger: s.trigger, event: c.event, ...(subject !== undefined ? { subject } : {}), certainty: c.certainty });
      }
    }
  });
  return { edges, out };
}

/** One loop of automations starting one another: its edges in order, the last one back to the first automation. */
export interface Loop {
  /** The automations of its strongly connected component (all those that take part). */
  members: number[];
  path: CascadeEdge[];
}


/**
 * Every loop of the cascade (automations that start one another, two or more), one path each,
 * and the automations that start themselves, with the edges that do it.
 */
export function loopsOf(flow: FlowPack, cascade: Cascade): { loops: Loop[]; selfStarts: CascadeEdge[][] } {
  const g = new Graph({ directed: true });
  flow.automations.forEach((_, i) => g.setNode(String(i)));
  for (const e of cascade.edges) if (e.from !== e.to) g.setEdge(String(e.from), String(e.to));
  const loops: Loop[] = [];
  for (const component of alg.tarjan(g)) {
    if (component.length < 2) continue;
    const members = component.map(Number).sort((x, y) => x - y);
    loops.push({ members, path: cyclePath(members, cascade) });
  }
  loops.sort((x, y) => x.members[0] - y.members[0]);
  const selfStarts = cascade.out.map((list) => list.map((i) => cascade.edges[i]).filter((e) => e.to === e.from)).filter((l) => l.length);
  return { loops, selfStarts };
}

/** A shortest path from the component's first automation back to it, through its members, the least guarded edges first. */
function cyclePath(members: number[], cascade: Cascade): CascadeEdge[] {
  const inside = new Set(members);
  const start = members[0];
  const prev = new Map<number, CascadeEdge>();
  const queue = [start];
  for (let q = 0; q < queue.length; q++) {
    const a = queue[q];
    const edges = cascade.out[a].map((i) => cascade.edges[i]).filter((e) => inside.has(e.to) && e.to !== e.from).sort((x, y) => rank(x) - rank(y));
    for (const e of edges) {
      if (e.to === start) {
        const path = [e];
        for (let at = a; at !== start; at = prev.get(at)!.from) path.unshift(prev.get(at)!);
        return path;
      }
      if (prev.has(e.to)) continue;
      prev.set(e.to, e);
      queue.push(e.to);
    }
  }
  return [];
}

const DOES: Partial<Record<EventKind, string>> = {
  tag_added: 'adds tag', tag_removed: 'removes tag', stage_changed: 'sets stage', field_changed: 'sets field', deal_created: 'creates a deal in',
  deal_stage_changed: 'moves the deal to', deal_won: 'wins the deal in', deal_lost: 'loses the deal in', deal_stuck: 'leaves the deal in',
  transaction_created: 'opens a transaction', task_created: 'creates a task',
};
/** The reference type an event's subject is an id of, for its name. */
export const SUBJECT_TYPE: Partial<Record<EventKind, ReferenceType>> = {
  tag_added: 'tag', tag_removed: 'tag', stage_changed: 'stage', field_changed: 'custom_field', deal_created: 'pipeline', deal_stage_changed: 'deal_stage',
  deal_won: 'pipeline', deal_lost: 'pipeline', deal_stuck: 'deal_stage', email_sent: 'email_template', email_opened: 'email_template', email_clicked: 'email_template',
  email_replied: 'email_template', email_bounced: 'email_template',
};
const MAY: Partial<Record<EventKind, [string, string]>> = {
  email_opened: ['sends email', 'opened'], email_clicked: ['sends email', 'clicked'], email_replied: ['sends email', 'replied to'], email_bounced: ['sends email', 'bounced'],
  task_completed: ['creates a task', 'completed'], task_overdue: ['creates a task', 'left overdue'],
};

/** What a block does on a cascade edge, in words: `adds tag hot`, `sets stage nurture`, `runs "Follow-up"`, `sends email tpl, which may be opened`. */
export function edgeWords(flow: FlowPack, e: CascadeEdge): string {
  if (e.event === 'run') return `runs "${flow.automations[e.to].name}"`;
  const type = SUBJECT_TYPE[e.event];
  const subject = e.subject === undefined || e.event === 'transaction_created' ? '' : ` ${type ? nameOf(flow, type, e.subject) : e.subject}`;
  const may = MAY[e.event];
  if (may) return `${may[0]}${subject}, which may be ${may[1]}`;
  return `${DOES[e.event] ?? `causes "${EVENT_WORDS[e.event]}"`}${subject}`;
}

/**
 * Why an edge of a loop cannot repeat, when it cannot: a tag added, a stage or a field set is an
 * event only when it changes the contact, so it repeats only where a block of the loop undoes it
 * (removes the tag, sets another stage, sets the field otherwise). Undefined when it can repeat.
 */
function settles(flow: FlowPack, e: CascadeEdge, members: readonly number[]): string | undefined {
  if (e.subject === undefined || (e.event !== 'tag_added' && e.event !== 'stage_changed' && e.event !== 'field_changed')) return undefined;
  const node = flow.automations[e.from].nodes[e.node];
  const undoes = (kind: string, config: Record<string, unknown> | undefined) => {
    if (e.event === 'tag_added') return kind === 'action.remove_tag' && config?.tag_id === e.subject;
    if (e.event === 'stage_changed') return kind === 'action.set_stage' && typeof config?.stage_id === 'string' && config.stage_id !== e.subject;
    return kind === 'action.set_field' && subjectOf(['custom_field_id', 'field'], config) === e.subject && JSON.stringify(config?.value) !== JSON.stringify(node.config?.value);
  };
  for (const m of members) {
    const a = flow.automations[m];
    if (reachable(a).some((n) => undoes(a.nodes[n].kind, a.nodes[n].config))) return undefined;
  }
  const what = e.event === 'tag_added' ? `has tag ${nameOf(flow, 'tag', e.subject)}: adding it again` : e.event === 'stage_changed' ? `has stage ${nameOf(flow, 'stage', e.subject)}: setting it again` : `has field ${e.subject} set: setting it again`;
  return `it stops once the contact ${what} changes nothing, and nothing on the loop undoes it`;
}

/** The guards a path passes, as the loop's message names them (empty: nothing stops it). */
export function guardsOf(flow: FlowPack, path: readonly CascadeEdge[]): string[] {
  const out: string[] = [];
  const members = [...new Set(path.map((e) => e.from))];
  for (const m of members) {
    const a = flow.automations[m];
    if (!a.settings.allowReenrollment) out.push(`"${a.name}" does not allow re-enrollment${a.hasSettings ? '' : ' (it has no settings, and the service\'s default is taken as off)'}, so a contact goes round once`);
  }
  for (const e of path) {
    const a = flow.automations[e.from];
    const stays = settles(flow, e, members);
    if (stays) out.push(stays);
    if (e.certainty === 'possible') out.push(`it rests on the contact: "${a.name}" ${edgeWords(flow, e)}`);
    if (e.condition) out.push(`it goes round only while the condition of block "${a.nodes[e.condition.node].id}" in "${a.name}" holds (the model cannot decide it, so both branches are taken as possible)`);
    if (e.wait) out.push(`block "${a.nodes[e.wait.node].id}" in "${a.name}" waits on each turn`);
  }
  return out;
}
