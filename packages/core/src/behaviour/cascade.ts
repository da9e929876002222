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

type TriggerIndex = Map<EventKind, { bySubject: Map<string, Start[]>; any: Start[] }>;

/** What a block can start an automation by: an event its triggers take, or the automation's key (action.run_automation). */
interface StartIndex {
  triggers: TriggerIndex;
  /** Each key's first automation, as a run_automation block names it. */
  byKey: Map<string, number>;
}

function startIndex(automations: readonly FlowAutomation[]): StartIndex {
  const byKey = new Map<string, number>();
  automations.forEach((a, i) => !byKey.has(a.key) && byKey.set(a.key, i));
  return { triggers: triggerIndex(automations), byKey };
}

/** Triggers by the event that starts them: by subject, and those that take any subject. */
function triggerIndex(automations: readonly FlowAutomation[]): TriggerIndex {
  const index = new Map<EventKind, { bySubject: Map<string, Start[]>; any: Start[] }>();
  automations.forEach((a, ai) => {
    // Its nodes are read only when one of its triggers is started by an event.
    let started = false;
    for (const k of a.kinds) if (EVENT_TRIGGERS.has(k)) started = true;
    if (!started) return;
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
 * For each node, a guard every path from a trigger (of `roots`) to it passes (undefined where some path has
 * none): one walk that does not go on through guards, then one that does, remembering the guard.
 */
function guardsBefore(
  a: FlowAutomation,
  isGuard: (n: number) => boolean,
  roots: readonly number[] = a.triggers,
): (Guard['node'] | undefined)[] {
  const count = a.nodes.length;
  const free = new Uint8Array(count);
  const stack: number[] = [...roots];
  for (const t of stack) free[t] = 1;
  while (stack.length) {
    const n = stack.pop()!;
    if (isGuard(n)) continue;
    for (const { to } of a.nodes[n].next) {
      if (free[to]) continue;
      free[to] = 1;
      stack.push(to);
    }
  }
  const via = new Array<number | undefined>(count).fill(undefined);
  // The guard met on the way to each node (-1: none yet), walked with a stack of node numbers.
  const guardOf = new Int32Array(count).fill(-1);
  const seen = new Uint8Array(count);
  for (const t of roots) {
    seen[t] = 1;
    stack.push(t);
  }
  while (stack.length) {
    const n = stack.pop()!;
    const guard = guardOf[n] >= 0 ? guardOf[n] : isGuard(n) ? n : -1;
    for (const { to } of a.nodes[n].next) {
      if (seen[to]) continue;
      seen[to] = 1;
      guardOf[to] = guard;
      if (!free[to] && guard >= 0) via[to] = guard;
      stack.push(to);
    }
  }
  return via;
}

const kindOf = (a: FlowAutomation, n: number) => EFFECTS.get(a.nodes[n].kind)?.control;
/** No block of an automation without that kind of control is guarded by one. */
const NO_GUARDS: readonly undefined[] = [];

/** Trigger kinds an event inside the workspace starts (the others start from outside or at set times). */
const EVENT_TRIGGERS = new Set(
  [...EFFECTS].filter(([, e]) => e.starts && e.starts.on !== 'time' && e.starts.on !== 'external').map(([k]) => k),
);

/** A bit per event kind (19 of them: one small integer holds a set). */
const EVENT_BIT = new Map((Object.keys(EVENT_WORDS) as EventKind[]).map((e, i) => [e, 1 << i]));
if (EVENT_BIT.size > 30) throw new Error('cascade: more event kinds than bits of a small integer');

/**
 * Per block kind, what mayCascade asks of it, worked out once: the event its trigger starts on
 * (inside the workspace), the events it causes, each as bits, and whether it runs an automation.
 */
const CASCADE_BITS = new Map(
  [...EFFECTS].map(([kind, e]) => [
    kind,
    {
      starts: EVENT_TRIGGERS.has(kind) ? EVENT_BIT.get(e.starts!.on as EventKind)! : 0,
      causes: (e.causes ?? []).reduce((bits, c) => bits | EVENT_BIT.get(c.event)!, 0),
      runs: e.automations?.does === 'start',
    },
  ]),
);

/**
 * Whether blocks of these kinds can make a cascade edge at all: one of them runs an automation, or
 * causes an event that a trigger among them starts on. Every edge cascadeOf makes is one of these,
 * so without them there is no loop and no automation that starts itself. Asked of every pack
 * validated: one pass over its kinds, no set made.
 */
export function mayCascade(kinds: ReadonlySet<string>): boolean {
  let started = 0;
  let caused = 0;
  for (const k of kinds) {
    const bits = CASCADE_BITS.get(k);
    if (!bits) continue;
    if (bits.runs) return true;
    started |= bits.starts;
    caused |= bits.causes;
  }
  return (started & caused) !== 0;
}

/** The cascade graph of a pack's automations: one edge per pair of automations, the least guarded. */
export function cascadeOf(flow: FlowPack): Cascade {
  const starts = startIndex(flow.automations);
  const cascade: Cascade = { edges: [], out: flow.automations.map(() => []) };
  // With no trigger started by an event, only action.run_automation can start an automation.
  const runsOnly = starts.triggers.size === 0;
  flow.automations.forEach((a, ai) => {
    if (!runsOnly || a.kinds.has('action.run_automation')) edgesFrom(flow, cascade, ai, starts);
  });
  return cascade;
}

/**
 * The edges leaving automation `ai`, one per automation it starts: the least guarded of its
 * blocks' starts (many blocks causing events that start one automation say no more than the
 * worst of them). A block's rank is worked out once, and an edge object made only when it is
 * better than the one kept, so a pack whose every block starts others allocates per pair, not per match.
 */
function edgesFrom(flow: FlowPack, cascade: Cascade, ai: number, starts: StartIndex): void {
  const a = flow.automations[ai];
  const make = edgeMaker(a, ai);
  const best = new Map<number, { at: number; rank: number }>();
  // Going round by that trigger, the guards that count are those on its own branch.
  const byBranch = new Map<number, ReturnType<typeof edgeMaker>>();
  const makerOf = (to: number, trigger: number) => {
    if (to !== ai || a.triggers.length < 2) return make;
    let m = byBranch.get(trigger);
    if (!m) byBranch.set(trigger, (m = edgeMaker(a, ai, [trigger])));
    return m;
  };
  startsFrom(flow, ai, starts, (node, certainty, to, trigger, event, subject) => {
    // An automation with several triggers that starts itself by another trigger than the one the
    // block is reached from goes round only if that trigger's branch leads back to the block.
    if (to === ai && event !== 'run' && a.triggers.length > 1 && !branchOf(a, trigger).has(node)) return;
    const maker = makerOf(to, trigger);
    const r = maker.rank(node, certainty);
    const known = best.get(to);
    if (known && known.rank <= r) return;
    const edge = maker.edge(node, certainty, to, trigger, event, subject);
    if (known) {
      cascade.edges[known.at] = edge;
      known.rank = r;
      return;
    }
    best.set(to, { at: cascade.edges.length, rank: r });
    cascade.out[ai].push(cascade.edges.length);
    cascade.edges.push(edge);
  });
}

// Per automation, its triggers' branches by trigger node, each walked on first use. Weakly keyed by
// the automation object: the model builds its automations once per pack it reads and never changes
// them after, so a branch is as current as the model it came from and goes with it.
const branchCache = new WeakMap<FlowAutomation, Map<number, ReadonlySet<number>>>();

/**
 * A trigger's branch: the nodes reachable from trigger node `trigger` of `a`. Both the check that
 * an automation starts itself and the loops of automations with several triggers ask it of the
 * same automation, so it is walked once for both.
 */
function branchOf(a: FlowAutomation, trigger: number): ReadonlySet<number> {
  let byTrigger = branchCache.get(a);
  if (!byTrigger) branchCache.set(a, (byTrigger = new Map<number, ReadonlySet<number>>()));
  let nodes = byTrigger.get(trigger);
  if (!nodes) byTrigger.set(trigger, (nodes = new Set(reachable(a, [trigger]))));
  return nodes;
}

/**
 * The edges an automation's blocks make, and their rank (how guarded), with the guards on every
 * path to the block from `roots` (its triggers, or the one a loop enters by), worked out once an
 * edge leaves the automation (most never do).
 */
function edgeMaker(a: FlowAutomation, ai: number, roots: readonly number[] = a.triggers) {
  let conditions: readonly (number | undefined)[] | undefined;
  let waits: readonly (number | undefined)[] | undefined;
  const guards = () => {
    conditions ??=
      a.kinds.has('control.if') || a.kinds.has('control.ai_branch')
        ? guardsBefore(a, (n) => kindOf(a, n) === 'if' || kindOf(a, n) === 'ai_branch', roots)
        : NO_GUARDS;
    waits ??= a.kinds.has('control.wait') ? guardsBefore(a, (n) => kindOf(a, n) === 'wait', roots) : NO_GUARDS;
    return { conditions, waits };
  };
  return {
    rank(node: number, certainty: CascadeEdge['certainty']): number {
      const { conditions, waits } = guards();
      return rankOf(certainty, conditions[node] !== undefined, waits[node] !== undefined);
    },
    edge(
      node: number,
      certainty: CascadeEdge['certainty'],
      to: number,
      trigger: number,
      event: CascadeEdge['event'],
      subject: string | undefined,
    ): CascadeEdge {
      const { conditions, waits } = guards();
      const c = conditions[node];
      const w = waits[node];
      return {
        from: ai,
        to,
        node,
        trigger,
        event,
        certainty,
        ...(subject !== undefined ? { subject } : {}),
        ...(c !== undefined ? { condition: { kind: 'condition', node: c } } : {}),
        ...(w !== undefined ? { wait: { kind: 'wait', node: w } } : {}),
      };
    },
  };
}

type StartVisitor = (
  node: number,
  certainty: CascadeEdge['certainty'],
  to: number,
  trigger: number,
  event: CascadeEdge['event'],
  subject: string | undefined,
) => void;

/** Every start a block of automation `ai` makes: the block, how sure, the automation and trigger it starts, the event and what it names. */
function startsFrom(flow: FlowPack, ai: number, { triggers: index, byKey }: StartIndex, offer: StartVisitor): void {
  const a = flow.automations[ai];
  for (const n of reachable(a)) {
    const node = a.nodes[n];
    const effects = EFFECTS.get(node.kind);
    if (!effects) continue;
    if (effects.automations?.does === 'start') {
      const target = byKey.get(String(node.config?.[effects.automations.field] ?? ''));
      const t = target === undefined ? undefined : flow.automations[target].triggers[0];
      if (target !== undefined && t !== undefined) offer(n, 'certain', target, t, 'run', flow.automations[target].key);
    }
    for (const c of effects.causes ?? []) {
      if (c.whenStageType && flow.stageTypes.get(String(node.config?.stage_id ?? '')) !== c.whenStageType) continue;
      const entry = index.get(c.event);
      if (!entry) continue;
      const subject = subjectOf(c.subject, node.config);
      for (const s of entry.any) offer(n, c.certainty, s.automation, s.trigger, c.event, subject);
      // An event whose subject the block does not name may be any: it meets every trigger of its kind.
      if (subject !== undefined)
        for (const s of entry.bySubject.get(subject) ?? []) offer(n, c.certainty, s.automation, s.trigger, c.event, subject);
      else
        for (const list of entry.bySubject.values()) for (const s of list) offer(n, c.certainty, s.automation, s.trigger, c.event, subject);
    }
  }
}

/** How sure an edge is: one that goes round for sure, with no guard, is preferred when choosing a path. */
const rank = (e: CascadeEdge) => rankOf(e.certainty, e.condition !== undefined, e.wait !== undefined);
/** How guarded a start is: resting on the contact weighs most, then a condition, then a wait. */
const rankOf = (certainty: CascadeEdge['certainty'], condition: boolean, wait: boolean) =>
  (certainty === 'possible' ? 4 : 0) + (condition ? 2 : 0) + (wait ? 1 : 0);

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
    if (members.every((m) => flow.automations[m].triggers.length < 2)) loops.push({ members, path: cyclePath(members, cascade) });
    else loops.push(...branchLoops(flow, members));
  }
  loops.sort((x, y) => x.members[0] - y.members[0]);
  const selfStarts = cascade.out.map((list) => list.map((i) => cascade.edges[i]).filter((e) => e.to === e.from)).filter((l) => l.length);
  return { loops, selfStarts };
}

/**
 * The loops among `members` (automations that start one another, one of them with several
 * triggers) that go round for real: an automation is entered by one trigger, and only the blocks
 * of that trigger's branch cause what starts the next. Worked out on a graph of entries
 * (automation, trigger), only for such components; each loop as its automations, two or more, and
 * a path through the branches it enters by, each step the least guarded block of its branch.
 */
function branchLoops(flow: FlowPack, members: number[]): Loop[] {
  const starts = startIndex(flow.automations);
  const inside = new Set(members);
  const g = new Graph({ directed: true });
  const steps = new Map<string, { edge: CascadeEdge; rank: number }>();
  for (const ai of members) {
    const a = flow.automations[ai];
    const branches = a.triggers.map((t) => ({ entry: `${ai}:${t}`, nodes: branchOf(a, t), make: edgeMaker(a, ai, [t]) }));
    startsFrom(flow, ai, starts, (node, certainty, to, trigger, event, subject) => {
      if (!inside.has(to)) return;
      for (const b of branches) {
        if (!b.nodes.has(node)) continue;
        const id = `${b.entry}>${to}:${trigger}`;
        const rank = b.make.rank(node, certainty);
        if ((steps.get(id)?.rank ?? Infinity) <= rank) continue;
        steps.set(id, { edge: b.make.edge(node, certainty, to, trigger, event, subject), rank });
        g.setEdge(b.entry, `${to}:${trigger}`);
      }
    });
  }
  const loops: Loop[] = [];
  for (const component of alg.tarjan(g)) {
    const automations = [...new Set(component.map((entry) => Number(entry.split(':')[0])))].sort((x, y) => x - y);
    if (automations.length > 1) loops.push({ members: automations, path: entryCyclePath(component, g, steps) });
  }
  return loops;
}

/** A shortest way round a component of the entry graph, from its first automation's first entry back to it, the least guarded steps first. */
function entryCyclePath(component: string[], g: Graph, steps: Map<string, { edge: CascadeEdge; rank: number }>): CascadeEdge[] {
  const inside = new Set(component);
  const order = (entry: string) => entry.split(':').map(Number);
  const start = [...component].sort((x, y) => order(x)[0] - order(y)[0] || order(x)[1] - order(y)[1])[0];
  return shortestWayRound(start, (at) =>
    (g.successors(at) ?? [])
      .filter((to) => inside.has(to))
      .map((to) => ({ to, ...steps.get(`${at}>${to}`)! }))
      .sort((x, y) => x.rank - y.rank),
  );
}

/** A shortest path from `start` back to it (breadth first), each place's steps taken in the order `next` gives them. */
function shortestWayRound<N>(start: N, next: (at: N) => { to: N; edge: CascadeEdge }[]): CascadeEdge[] {
  const prev = new Map<N, { from: N; edge: CascadeEdge }>();
  const queue = [start];
  for (let q = 0; q < queue.length; q++) {
    const at = queue[q];
    for (const { to, edge } of next(at)) {
      if (to === start) {
        const path = [edge];
        for (let e = at; e !== start; e = prev.get(e)!.from) path.unshift(prev.get(e)!.edge);
        return path;
      }
      if (prev.has(to)) continue;
      prev.set(to, { from: at, edge });
      queue.push(to);
    }
  }
  return [];
}

/** A shortest path from the component's first automation back to it, through its members, the least guarded edges first. */
function cyclePath(members: number[], cascade: Cascade): CascadeEdge[] {
  const inside = new Set(members);
  return shortestWayRound(members[0], (a) =>
    cascade.out[a]
      .map((i) => cascade.edges[i])
      .filter((e) => inside.has(e.to) && e.to !== e.from)
      .sort((x, y) => rank(x) - rank(y))
      .map((edge) => ({ to: edge.to, edge })),
  );
}

const DOES: Partial<Record<EventKind, string>> = {
  tag_added: 'adds tag',
  tag_removed: 'removes tag',
  stage_changed: 'sets stage',
  field_changed: 'sets field',
  deal_created: 'creates a deal in',
  deal_stage_changed: 'moves the deal to',
  deal_won: 'wins the deal in',
  deal_lost: 'loses the deal in',
  deal_stuck: 'leaves the deal in',
  transaction_created: 'opens a transaction',
  task_created: 'creates a task',
};
/** The reference type an event's subject is an id of, for its name. */
export const SUBJECT_TYPE: Partial<Record<EventKind, ReferenceType>> = {
  tag_added: 'tag',
  tag_removed: 'tag',
  stage_changed: 'stage',
  field_changed: 'custom_field',
  deal_created: 'pipeline',
  deal_stage_changed: 'deal_stage',
  deal_won: 'pipeline',
  deal_lost: 'pipeline',
  deal_stuck: 'deal_stage',
  email_sent: 'email_template',
  email_opened: 'email_template',
  email_clicked: 'email_template',
  email_replied: 'email_template',
  email_bounced: 'email_template',
};
const MAY: Partial<Record<EventKind, [string, string]>> = {
  email_opened: ['sends email', 'opened'],
  email_clicked: ['sends email', 'clicked'],
  email_replied: ['sends email', 'replied to'],
  email_bounced: ['sends email', 'bounced'],
  task_completed: ['creates a task', 'completed'],
  task_overdue: ['creates a task', 'left overdue'],
};

/** What a block does on a cascade edge, in words: `adds tag hot`, `sets stage nurture`, `runs "Follow-up"`, `sends email tpl, which may be opened`. */
export function edgeWords(flow: FlowPack, e: CascadeEdge): string {
  if (e.event === 'run') return `runs "${flow.automations[e.to].name}"`;
  const type = SUBJECT_TYPE[e.event];
  const subject =
    e.subject === undefined || e.event === 'transaction_created' ? '' : ` ${type ? nameOf(flow, type, e.subject) : e.subject}`;
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
  const value = JSON.stringify(flow.automations[e.from].nodes[e.node].config?.value);
  for (const m of members) {
    const u = undoing(flow.automations[m]);
    if (e.event === 'tag_added' && u.removedTags.has(e.subject)) return undefined;
    if (e.event === 'stage_changed' && [...u.stages].some((st) => st !== e.subject)) return undefined;
    if (e.event === 'field_changed' && [...(u.fields.get(e.subject) ?? [])].some((v) => v !== value)) return undefined;
  }
  const what =
    e.event === 'tag_added'
      ? `has tag ${nameOf(flow, 'tag', e.subject)}: adding it again`
      : e.event === 'stage_changed'
        ? `has stage ${nameOf(flow, 'stage', e.subject)}: setting it again`
        : `has field ${e.subject} set: setting it again`;
  return `it stops once the contact ${what} changes nothing, and nothing on the loop undoes it`;
}

const undoings = new WeakMap<FlowAutomation, { removedTags: Set<string>; stages: Set<string>; fields: Map<string, Set<string>> }>();

/** What an automation's reachable blocks can undo: the tags they remove, the stages and field values they set (once per automation). */
function undoing(a: FlowAutomation) {
  let u = undoings.get(a);
  if (u) return u;
  u = { removedTags: new Set(), stages: new Set(), fields: new Map() };
  for (const n of reachable(a)) {
    const { kind, config } = a.nodes[n];
    if (kind === 'action.remove_tag' && typeof config?.tag_id === 'string') u.removedTags.add(config.tag_id);
    else if (kind === 'action.set_stage' && typeof config?.stage_id === 'string') u.stages.add(config.stage_id);
    else if (kind === 'action.set_field') {
      const field = subjectOf(['custom_field_id', 'field'], config);
      if (field !== undefined) u.fields.set(field, (u.fields.get(field) ?? new Set()).add(JSON.stringify(config?.value)));
    }
  }
  undoings.set(a, u);
  return u;
}

/** The guards a path passes, as the loop's message names them (empty: nothing stops it). */
export function guardsOf(flow: FlowPack, path: readonly CascadeEdge[]): string[] {
  const out: string[] = [];
  const members = [...new Set(path.map((e) => e.from))];
  for (const m of members) {
    const a = flow.automations[m];
    if (!a.settings.allowReenrollment)
      out.push(
        `"${a.name}" does not allow re-enrollment${a.hasSettings ? '' : " (it has no settings, and the service's default is taken as off)"}, so a contact goes round once`,
      );
  }
  for (const e of path) {
    const a = flow.automations[e.from];
    const stays = settles(flow, e, members);
    if (stays) out.push(stays);
    if (e.certainty === 'possible') out.push(`it rests on the contact: "${a.name}" ${edgeWords(flow, e)}`);
    if (e.condition)
      out.push(
        `it goes round only while the condition of block "${a.nodes[e.condition.node].id}" in "${a.name}" holds (the model cannot decide it, so both branches are taken as possible)`,
      );
    if (e.wait) out.push(`block "${a.nodes[e.wait.node].id}" in "${a.name}" waits on each turn`);
  }
  return out;
}
