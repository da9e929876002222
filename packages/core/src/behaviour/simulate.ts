// The simulator: one contact's path through a pack's automations from one event, as a
// deterministic timeline. Waits are resolved in the workspace's time zone, messages held to the
// send window, send days and holidays; the events blocks cause start other automations (the
// effects model, the cascade); a condition the contact's fields decide takes its branch, one they
// cannot decide forks the timeline into paths, each with a contact and runs of its own. A state
// that repeats is a loop: the path stops there and names it. Pure: the CLI, the editor's Simulate
// panel and the language server call it with a validated pack.
import { describeConfig, NODE_CATALOG } from '../catalog/nodes.js';
import { closest, count, plural, pluralWord } from '../text.js';
import type { Pack } from '../types.js';
import { cascadeOf, edgeWords, SUBJECT_TYPE, type Cascade } from './cascade.js';
import { cloneContact, contactState, evaluate, readContact, type SimContact } from './contact.js';
import { EFFECTS, subjectOf, TRIGGER_CONDITIONS, type BlockEffects, type EventKind } from './effects.js';
import { flowOfPack, nameOf, type FlowAutomation, type FlowPack, type FlowSettings } from './flow.js';
import { waitMinutes, waitUntilMinute } from './waits.js';
import { hasWindow, inWindowMinutes } from './window.js';
import { addDays, dateText, instantOf, isoIn, isTimeZone, wallOf } from './zone.js';

export interface SimulateInput {
  /** The starting event, as a trigger kind without `trigger.`: tag_added, stage_changed, contact_created, manual… */
  event: string;
  /** What the event names (a tag, stage, field, template, pipeline or deal stage: pack key or name); for `manual`, the automation. */
  subject?: string;
  /** The contact, as the workspace API returns one (first_name required). */
  contact: unknown;
  /** When the event happens (RFC 3339). */
  at: string;
  /** How far to follow (default 30 days). */
  days?: number;
  /** The workspace's time zone (IANA name; default UTC). */
  timeZone?: string;
  /** The workspace's holidays, `YYYY-MM-DD`, for send_window_skip_holidays. */
  holidays?: string[];
  /** When the contact replies (RFC 3339), to the last message sent before then: runs with stop_on_reply end, reply triggers start. */
  replyAt?: string;
}

export interface TimelineStep {
  /** When the step runs, RFC 3339 in the workspace's time zone. */
  at: string;
  automation: string;
  automationName: string;
  /** The block ('' for an automation starting). */
  node: string;
  kind: string;
  /** What happens, in words. */
  does: string;
  /** The output taken, and why. */
  branch?: { handle: string; why: string };
  message?: { channel: 'email' | 'sms'; heldFrom?: string };
  /** Automations this step starts (their keys). */
  starts?: string[];
  /** What may also follow, not simulated (an email that may be opened…). */
  may?: string[];
  /** The choices at undecided conditions this step rests on, joined with "; ". */
  assuming?: string;
  /** At a condition the contact's fields do not decide: the path each output is followed on (indexes of `paths`). */
  forks?: { handle: string; path: number }[];
}

export interface MessageCounts {
  email: { day: number; week: number; total: number };
  sms: { day: number; week: number; total: number };
  words: string;
}

/** One way through: the steps a contact takes given one choice at each condition their fields do not decide. */
export interface TimelinePath {
  /** The output this path takes at each undecided condition, in order ([] for a path that never forked). */
  choices: string[];
  /** The path this one forks from and how many steps it shares with it: they begin `steps`. */
  forkOf?: { path: number; steps: number };
  steps: TimelineStep[];
  /** Why it ended: every run done, a loop found, the time horizon, or the step limit. */
  ended: 'done' | 'loop' | 'horizon' | 'limit';
  loop?: { automations: string[]; message: string; period: string; perTurn: { email: number; sms: number } };
  /** The messages this path sends per channel in the first 24 hours, 7 days, and in all. */
  summary: MessageCounts;
}

export interface Timeline {
  version: 2;
  pack: { packId: string; name: string; version: string };
  start: { event: string; subject?: string; at: string; timeZone: string; contact: string; days: number; replyAt?: string };
  /** The first path takes the first output at every undecided condition; each fork adds a path. */
  paths: TimelinePath[];
  /** The most serious way a path ended: a loop, then the step limit, the horizon, done. */
  ended: TimelinePath['ended'];
  /** Facts the contact does not give, taken to hold, on any path. */
  assumptions: string[];
  /** The most any path sends per channel; its words give the range over the paths. */
  summary: MessageCounts;
}

/** Input the simulator cannot start from, naming the field (`event`, `subject`, `at`, `timeZone`, `contact.first_name`…). */
export class SimulateError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'SimulateError';
  }
}

/** Steps a path records at the most: past them it stops (`ended: 'limit'`). */
export const SIMULATION_STEP_LIMIT = 5000;
/**
 * Paths a simulation keeps apart at the most. Each undecided condition doubles them, so past this
 * an undecided condition is followed both ways on one path, sharing its contact, and said so.
 */
export const SIMULATION_PATH_LIMIT = 16;
const MINUTE = 60000;
const DAY = 1440 * MINUTE;

interface Token {
  time: number;
  seq: number;
  /** The run the block is of; REPLY for the contact's reply. */
  run: number;
  node: number;
  assuming: string;
  /** A message held: when it was first due, and whether the daily send limit (not only the send window) held it. */
  held?: { from: number; limit: boolean };
}

/** The run of the contact's reply, which is no automation's. */
const REPLY = -1;
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/i;

interface Run {
  automation: number;
  live: number;
  stopped: boolean;
}

/** The trigger kinds an event of the simulation can name, and what their subject is an id of. */
export function simulationEvents(): { event: string; subject?: string }[] {
  return [...EFFECTS]
    .filter(([k]) => k.startsWith('trigger.'))
    .map(([k, e]) => {
      const on = e.starts && e.starts.on !== 'time' && e.starts.on !== 'external' ? e.starts.on : undefined;
      const type = on ? SUBJECT_TYPE[on] : undefined;
      return { event: k.slice('trigger.'.length), ...(type ? { subject: type } : k === 'trigger.manual' ? { subject: 'automation' } : {}) };
    });
}

/** Follows one contact from one event through the pack's automations. */
export function simulate(pack: Pack, input: SimulateInput): Timeline {
  const first = new Simulation(pack, input);
  first.begin();
  // A path forks while it runs; the paths it adds are run after it, in the order they were made.
  for (let i = 0; i < first.paths.length; i++) first.paths[i].run();
  return timelineOf(first);
}

/**
 * One path of a simulation. What every path shares (the pack's model, the input) is read only; the
 * state a path changes (the contact, its runs and queue, its steps) is copied when it forks.
 */
class Simulation {
  readonly flow: FlowPack;
  readonly cascade: Cascade;
  readonly zone: string;
  readonly start: number;
  readonly horizon: number;
  readonly holidays: Set<string>;
  readonly replyAt?: number;
  subject?: string;
  /** Every path of the simulation, this one included (one list, shared by all). */
  readonly paths: Simulation[] = [this];
  index = 0;
  forkOf?: TimelinePath['forkOf'];
  // The state of this path, copied by fork().
  contact: SimContact;
  steps: (TimelineStep & { ms: number })[] = [];
  queue: Token[] = [];
  runs: Run[] = [];
  active = new Map<number, number>();
  completed = new Set<number>();
  seen = new Map<string, { step: number; ms: number }>();
  assumptions: string[] = [];
  choices: string[] = [];
  ended: TimelinePath['ended'] = 'done';
  loop?: TimelinePath['loop'];
  seq = 0;
  /** Messages sent to the contact per workspace day (`YYYY-MM-DD`), for the daily send limit. */
  sentOn = new Map<string, number>();

  constructor(
    readonly pack: Pack,
    readonly input: SimulateInput,
  ) {
    this.flow = flowOfPack(pack);
    this.cascade = cascadeOf(this.flow);
    this.zone = input.timeZone ?? 'UTC';
    if (!isTimeZone(this.zone))
      throw new SimulateError(
        'timeZone',
        `"${this.zone}" is not a time zone this platform knows (give an IANA name such as America/New_York, or UTC)`,
      );
    this.start = instant('at', input.at);
    if (input.replyAt !== undefined) {
      this.replyAt = instant('replyAt', input.replyAt);
      if (this.replyAt < this.start)
        throw new SimulateError('replyAt', `the reply (${input.replyAt}) comes before the event (${input.at})`);
    }
    const days = input.days ?? 30;
    if (!Number.isInteger(days) || days < 1 || days > 366)
      throw new SimulateError('days', `days must be a whole number from 1 to 366, not ${days}`);
    this.horizon = this.start + days * DAY;
    this.holidays = new Set(input.holidays ?? []);
    for (const h of this.holidays)
      if (!/^\d{4}-\d\d-\d\d$/.test(h)) throw new SimulateError('holidays', `holiday "${h}" is not a date (YYYY-MM-DD)`);
    const names = (type: string) =>
      new Map([...this.flow.names].filter(([k]) => k.startsWith(`${type}:`)).map(([k, v]) => [k.slice(type.length + 1), v]));
    try {
      this.contact = readContact(input.contact, names('tag'), names('stage'), names('lead_source'));
    } catch (e) {
      const field = (e as { field?: string }).field;
      throw new SimulateError(field ? `contact.${field}` : 'contact', (e as Error).message);
    }
  }

  /** Runs the path's queue to its end (the first path after begin(), a forked one from where it forked). */
  run(): void {
    while (this.queue.length && this.ended === 'done') {
      const token = this.queue.shift()!;
      if (token.run === REPLY) {
        this.reply(token.time);
        continue;
      }
      if (token.time > this.horizon) {
        this.ended = 'horizon';
        break;
      }
      if (this.steps.length >= SIMULATION_STEP_LIMIT) {
        this.ended = 'limit';
        break;
      }
      const run = this.runs[token.run];
      if (!run.stopped) this.step(token);
      if (--run.live === 0) this.finish(token.run);
    }
  }

  /** Applies the starting event to the contact, starts the automations it starts, and queues the reply. */
  begin(): void {
    this.startEvent();
    if (this.replyAt !== undefined && this.replyAt <= this.horizon)
      this.push({ time: this.replyAt, seq: this.seq++, run: REPLY, node: -1, assuming: '' });
  }

  /** A copy of this path as it is now, added to the simulation's paths. */
  private fork(): Simulation {
    const copy = Object.assign(Object.create(Simulation.prototype) as Simulation, this);
    copy.index = this.paths.push(copy) - 1;
    copy.forkOf = { path: this.index, steps: this.steps.length };
    copy.contact = cloneContact(this.contact);
    copy.steps = this.steps.slice();
    copy.queue = this.queue.slice();
    copy.runs = this.runs.map((r) => ({ ...r }));
    copy.active = new Map(this.active);
    copy.completed = new Set(this.completed);
    copy.seen = new Map(this.seen);
    copy.assumptions = this.assumptions.slice();
    copy.choices = this.choices.slice();
    copy.sentOn = new Map(this.sentOn);
    return copy;
  }

  private startEvent(): void {
    const kind = `trigger.${this.input.event}`;
    const effects = EFFECTS.get(kind);
    if (!effects?.starts) {
      const known = simulationEvents().map((e) => e.event);
      const near = closest(this.input.event, known);
      throw new SimulateError(
        'event',
        `"${this.input.event}" is not an event the simulator knows${near ? `; did you mean ${near}?` : ''} (one of: ${known.join(', ')})`,
      );
    }
    const starts = effects.starts;
    if (starts.on !== 'time' && starts.on !== 'external') {
      this.subject = this.resolveSubject(SUBJECT_TYPE[starts.on]);
      const from = this.contact.stage;
      this.applyEvent(starts.on, this.subject);
      this.emit(starts.on, this.subject, this.start, 'the event', from);
      return;
    }
    const only = kind === 'trigger.manual' ? this.resolveSubject('automation') : undefined;
    this.enrollOn(kind, this.start, 'the event', only);
  }

  /** Starts the automations with a trigger of `kind` (only `only`, when given) whose conditions hold: an event from outside. */
  private enrollOn(kind: string, at: number, cause: string, only?: string): string[] {
    const started: string[] = [];
    this.flow.automations.forEach((a, i) => {
      if (only !== undefined && a.key !== only) return;
      const t = a.triggers.find((n) => a.nodes[n].kind === kind);
      if (t !== undefined && this.fits(a, t, undefined) && this.enroll(i, t, at, cause)) started.push(a.key);
    });
    return started;
  }

  /**
   * Whether a trigger's conditions beyond its subject hold (TRIGGER_CONDITIONS): the stage a
   * contact leaves, the contact's stage or lead source. A fact the contact does not give is taken
   * to hold, and said under assumptions.
   */
  private fits(a: FlowAutomation, t: number, from: string | undefined): boolean {
    const node = a.nodes[t];
    for (const c of TRIGGER_CONDITIONS[node.kind] ?? []) {
      const want = node.config?.[c.field];
      if (typeof want !== 'string' || want === '') continue;
      const fact = c.equals === 'previous stage' ? from : c.equals === "contact's stage" ? this.contact.stage : this.contact.leadSource;
      if (fact === undefined) {
        this.assume(
          `"${a.name}" starts only when the ${c.equals} is ${nameOf(this.flow, c.equals === "contact's lead source" ? 'lead_source' : 'stage', want)}, which the contact does not give: taken to hold`,
        );
        continue;
      }
      if (fact !== want) return false;
    }
    return true;
  }

  private assume(what: string): void {
    if (!this.assumptions.includes(what)) this.assumptions.push(what);
  }

  /** The pack key the input's subject names (a key, or a name of a pack item or listed reference), or an error naming what the pack has. */
  private resolveSubject(type: string | undefined): string | undefined {
    const s = this.input.subject;
    if (s === undefined || s === '') return undefined;
    if (!type) throw new SimulateError('subject', `event ${this.input.event} names nothing; leave the subject out`);
    const candidates =
      type === 'automation'
        ? this.flow.automations.map((a) => [a.key, a.name] as const)
        : [...this.flow.names].filter(([k]) => k.startsWith(`${type}:`)).map(([k, v]) => [k.slice(type.length + 1), v] as const);
    const hit = candidates.find(([k]) => k === s) ?? candidates.find(([, n]) => n.trim().toLowerCase() === s.trim().toLowerCase());
    if (hit) return hit[0];
    const list = candidates.map(([k, n]) => (k === n ? k : `${k} ("${n}")`)).join(', ');
    const near = closest(
      s,
      candidates.flatMap(([k, n]) => [k, n]),
    );
    throw new SimulateError(
      'subject',
      `${type} "${s}" is not in the pack${near ? `; did you mean "${near}"?` : ''}${list ? ` (it has: ${list})` : ` (it has no ${type})`}`,
    );
  }

  /** What an event does to the contact's state. */
  private applyEvent(event: EventKind, subject: string | undefined, config?: Record<string, unknown>): void {
    const c = this.contact;
    if (event === 'tag_added' && subject) c.tags.add(subject);
    if (event === 'tag_removed' && subject) c.tags.delete(subject);
    if (event === 'stage_changed' && subject) c.stage = subject;
    if (event === 'field_changed' && subject) c.fields.set(subject, config?.value);
    if (event === 'deal_created' || event === 'deal_stage_changed') c.deal = { ...(c.deal ?? {}), stage: String(config?.stage_id ?? '') };
  }

  /** Starts every automation whose trigger the event starts. */
  private emit(event: EventKind, subject: string | undefined, at: number, cause: string, from?: string): string[] {
    const started: string[] = [];
    this.flow.automations.forEach((a, i) => {
      for (const t of a.triggers) {
        const starts = EFFECTS.get(a.nodes[t].kind)?.starts;
        if (!starts || starts.on !== event) continue;
        const want = subjectOf(starts.subject, a.nodes[t].config);
        if (want !== undefined && subject !== undefined && want !== subject) continue;
        if (!this.fits(a, t, from)) continue;
        if (this.enroll(i, t, at, cause)) started.push(a.key);
        break;
      }
    });
    return started;
  }

  /** Enrolls the contact in automation `i` at trigger `t`, unless it is in it now or may not come back; a state seen before is a loop. */
  private enroll(i: number, t: number, at: number, cause: string): boolean {
    if (this.ended !== 'done') return false;
    const a = this.flow.automations[i];
    if (this.active.has(i)) return false;
    if (this.completed.has(i) && !a.settings.allowReenrollment) return false;
    const state = `${i}|${contactState(this.contact)}|${[...this.active.keys()].sort().join(',')}`;
    const before = this.seen.get(state);
    this.record(at, a, -1, { does: `"${a.name}" starts (${cause})` });
    if (before) return (this.loopFound(before, at), false);
    this.seen.set(state, { step: this.steps.length - 1, ms: at });
    const run = this.runs.push({ automation: i, live: 0, stopped: false }) - 1;
    this.active.set(i, run);
    this.follow(run, t, at, '');
    return true;
  }

  private loopFound(first: { step: number; ms: number }, at: number): void {
    const between = this.steps.slice(first.step, -1);
    const names = [...new Set(between.filter((s) => s.node === '').map((s) => s.automation))];
    const perTurn = {
      email: between.filter((s) => s.message?.channel === 'email').length,
      sms: between.filter((s) => s.message?.channel === 'sms').length,
    };
    const period = words(at - first.ms);
    const loopNames = names.map((k) => `"${this.flow.automations.find((a) => a.key === k)!.name}"`);
    this.loop = {
      automations: names,
      period,
      perTurn,
      message: `${this.contact.name} is back in the state of ${isoIn(first.ms, this.zone)}: ${loopNames.join(' → ')} → ${loopNames[0]} repeats every ${period}, and each turn sends ${messages(perTurn)}`,
    };
    this.ended = 'loop';
  }

  /** Queues the blocks after `node` along its outputs (all of them, or `handle`'s). */
  private follow(run: number, node: number, at: number, assuming: string, handle?: string): void {
    const a = this.flow.automations[this.runs[run].automation];
    for (const e of a.nodes[node].next) {
      if (handle !== undefined && e.handle !== handle) continue;
      this.push({ time: at, seq: this.seq++, run, node: e.to, assuming });
    }
  }

  private push(token: Token): void {
    if (token.run !== REPLY) this.runs[token.run].live++;
    let i = this.queue.length;
    while (i > 0 && (this.queue[i - 1].time > token.time || (this.queue[i - 1].time === token.time && this.queue[i - 1].seq > token.seq)))
      i--;
    this.queue.splice(i, 0, token);
  }

  private finish(run: number): void {
    const r = this.runs[run];
    if (this.active.get(r.automation) === run) this.active.delete(r.automation);
    this.completed.add(r.automation);
  }

  private record(
    ms: number,
    a: FlowAutomation,
    node: number,
    rest: Omit<TimelineStep, 'at' | 'automation' | 'automationName' | 'node' | 'kind'>,
  ): void {
    const n = node >= 0 ? a.nodes[node] : undefined;
    this.steps.push({
      ms,
      at: isoIn(ms, this.zone),
      automation: a.key,
      automationName: a.name,
      node: n?.id ?? '',
      kind: n?.kind ?? a.nodes[a.triggers[0]]?.kind ?? '',
      ...rest,
    });
  }

  /** Runs one block of a run at the token's time. */
  private step(token: Token): void {
    const a = this.flow.automations[this.runs[token.run].automation];
    const node = a.nodes[token.node];
    const effects = EFFECTS.get(node.kind) ?? {};
    const assuming = token.assuming || undefined;
    const base = { ...(assuming ? { assuming } : {}) };
    if (effects.control) return this.control(token, a, effects.control, base);
    if (effects.message) return this.message(token, a, effects.message, base);
    const words = describeConfig(node.kind, node.config)
      .map((p) => (typeof p === 'string' ? p : nameOf(this.flow, p.ref, p.id)))
      .join('');
    // The run goes on before what its events start: the blocks after this one are queued first,
    // and its own line comes before the lines of the automations it starts.
    this.follow(token.run, token.node, token.time, token.assuming);
    this.record(token.time, a, token.node, { ...base, does: `${labelOf(node.kind)}${words ? ` (${words})` : ''}` });
    const mine = this.steps[this.steps.length - 1];
    const starts = this.act(token, a, effects);
    const may = this.mayFollow(a, token.node);
    if (starts.length) mine.starts = starts;
    if (may.length) mine.may = may;
  }

  /** What an action does to the contact and to automations; the automations its events start. */
  private act(token: Token, a: FlowAutomation, effects: BlockEffects): string[] {
    const node = a.nodes[token.node];
    const c = this.contact;
    const cause = `"${a.name}" block "${node.id}"`;
    if (effects.automations) {
      const ids = ([] as unknown[])
        .concat(node.config?.[effects.automations.field] ?? [])
        .filter((x): x is string => typeof x === 'string');
      const targets = ids.map((k) => this.flow.automations.findIndex((x) => x.key === k)).filter((x) => x >= 0);
      if (effects.automations.does === 'stop') {
        for (const t of targets) {
          const run = this.active.get(t);
          if (run !== undefined) this.runs[run].stopped = true;
        }
        return [];
      }
      return targets
        .filter((t) => this.enroll(t, this.flow.automations[t].triggers[0], token.time, cause))
        .map((t) => this.flow.automations[t].key);
    }
    if (effects.contact === 'do-not-contact') c.doNotContact.add(String(node.config?.channel ?? 'all'));
    if (effects.contact === 'email-subscription') c.emailSubscribed = node.config?.subscribed !== false;
    const started: string[] = [];
    for (const e of effects.causes ?? []) {
      if (e.certainty !== 'certain') continue;
      const subject = subjectOf(e.subject, node.config);
      if (e.whenStageType && this.flow.stageTypes.get(String(node.config?.stage_id ?? '')) !== e.whenStageType) continue;
      if (!this.changes(e.event, subject, node.config)) continue;
      const from = c.stage;
      this.applyEvent(e.event, subject, node.config);
      started.push(...this.emit(e.event, subject, token.time, cause, from));
    }
    return started;
  }

  /** Whether the event changes the contact (a tag it has already is not added again). */
  private changes(event: EventKind, subject: string | undefined, config: Record<string, unknown> | undefined): boolean {
    const c = this.contact;
    if (event === 'tag_added') return subject !== undefined && !c.tags.has(subject);
    if (event === 'tag_removed') return subject !== undefined && c.tags.has(subject);
    if (event === 'stage_changed') return subject !== undefined && c.stage !== subject;
    if (event === 'field_changed') return subject !== undefined && c.fields.get(subject) !== config?.value;
    return true;
  }

  /** The possible events of a block (not simulated) and the automations they would start. */
  private mayFollow(a: FlowAutomation, node: number): string[] {
    const i = this.flow.automations.indexOf(a);
    return this.cascade.out[i]
      .map((x) => this.cascade.edges[x])
      .filter((e) => e.node === node && e.certainty === 'possible')
      .map((e) => `${edgeWords(this.flow, e)}, which would start "${this.flow.automations[e.to].name}" (not simulated)`);
  }

  private control(token: Token, a: FlowAutomation, control: 'wait' | 'if' | 'ai_branch' | 'loop', base: { assuming?: string }): void {
    const node = a.nodes[token.node];
    if (control === 'wait') {
      const next = this.waitEnd(token.time, node.config);
      this.record(token.time, a, token.node, {
        ...base,
        does: next === undefined ? 'waits for a length the model cannot read: the run stops here' : `waits until ${isoIn(next, this.zone)}`,
      });
      if (next !== undefined) this.follow(token.run, token.node, next, token.assuming);
      return;
    }
    if (control === 'if') {
      const answer = evaluate(node.config?.conditions, this.contact);
      if (answer !== undefined) {
        this.record(token.time, a, token.node, {
          ...base,
          does: 'checks its condition',
          branch: { handle: String(answer), why: `the contact's fields make the condition ${answer}` },
        });
        return this.follow(token.run, token.node, token.time, token.assuming, String(answer));
      }
    }
    const handles = [...new Set(node.next.map((e) => e.handle))];
    if (control === 'loop') {
      this.record(token.time, a, token.node, { ...base, does: 'repeats for each item: followed once, then done' });
      for (const h of handles) this.follow(token.run, token.node, token.time, token.assuming, h);
      return;
    }
    const what = control === 'if' ? `the condition of "${node.id}" in "${a.name}" is` : `AI in "${node.id}" of "${a.name}" chooses`;
    if (handles.length > 1 && this.paths.length + handles.length - 1 <= SIMULATION_PATH_LIMIT)
      return this.forkAt(token, a, handles, what, base);
    // No room for more paths (or one output): every output on this path, sharing its contact.
    if (handles.length > 1)
      this.assume(
        `${what} ${handles.join(' or ')}: ${handles.length === 2 ? 'both' : 'each'} followed on one path, past the ${SIMULATION_PATH_LIMIT} paths a simulation keeps apart`,
      );
    this.record(token.time, a, token.node, { ...base, does: `cannot be decided for this contact: followed ${handles.join(' and ')}` });
    for (const h of handles) this.follow(token.run, token.node, token.time, chose(token.assuming, `${what} ${h}`), h);
  }

  /**
   * An undecided condition: this path takes the first output, and a copy of it made now takes each
   * other one, with a contact and runs of its own from here on.
   */
  private forkAt(token: Token, a: FlowAutomation, handles: string[], what: string, base: { assuming?: string }): void {
    this.record(token.time, a, token.node, {
      ...base,
      does: `cannot be decided for this contact: the timeline forks (${handles.join(', ')})`,
    });
    const step = this.steps[this.steps.length - 1];
    const others = handles.slice(1).map((h) => ({ handle: h, path: this.fork() }));
    step.forks = [{ handle: handles[0], path: this.index }, ...others.map((o) => ({ handle: o.handle, path: o.path.index }))];
    for (const o of others) {
      o.path.take(token, `${what} ${o.handle}`, o.handle);
      // This token is done on the copy too (the running path counts it down in run()).
      if (--o.path.runs[token.run].live === 0) o.path.finish(token.run);
    }
    this.take(token, `${what} ${handles[0]}`, handles[0]);
  }

  /** Takes output `handle` of the token's block as this path's choice. */
  private take(token: Token, choice: string, handle: string): void {
    this.choices.push(choice);
    this.follow(token.run, token.node, token.time, chose(token.assuming, choice), handle);
  }

  /** When a wait ends: its length, or the next `until` time of day, whichever comes first. */
  private waitEnd(at: number, config: Record<string, unknown> | undefined): number | undefined {
    const length = waitMinutes(config);
    const until = waitUntilMinute(config);
    const byLength = length === undefined ? undefined : at + length * MINUTE;
    if (until === undefined) return byLength ?? (config?.duration === undefined && config?.until === undefined ? at : undefined);
    const w = wallOf(at, this.zone);
    for (let d = 0; d < 3; d++) {
      const date = addDays(w.year, w.month, w.day, d);
      const t = instantOf(date.year, date.month, date.day, until, this.zone);
      if (t >= at) return byLength === undefined ? t : Math.min(t, byLength);
    }
    return byLength;
  }

  /**
   * A message block: sent now when the send window and the daily send limit allow it, else held:
   * the block runs again when it may go out (a run stopped meanwhile sends nothing). A contact who
   * may not get it gets nothing.
   */
  private message(token: Token, a: FlowAutomation, kind: 'email' | 'sms' | 'config', base: { assuming?: string }): void {
    const node = a.nodes[token.node];
    const channel: 'email' | 'sms' = kind === 'config' ? (node.config?.channel === 'email' ? 'email' : 'sms') : kind;
    const c = this.contact;
    if (c.doNotContact.has('all') || c.doNotContact.has(channel) || (channel === 'email' && !c.emailSubscribed)) {
      this.record(token.time, a, token.node, {
        ...base,
        does: `does not send the ${channel === 'email' ? 'email' : 'SMS'}: ${channel === 'email' && !c.emailSubscribed ? 'the contact is unsubscribed from email' : 'the contact is marked do-not-contact'}`,
      });
      return this.follow(token.run, token.node, token.time, token.assuming);
    }
    const sendAt = this.sendTime(token.time, a.settings);
    if (sendAt === undefined) {
      this.record(token.time, a, token.node, {
        ...base,
        does:
          this.sentOn.size && a.settings.dailySendLimit !== undefined
            ? 'never sends: no day within reach has room under the daily send limit in the send window'
            : 'never sends: its send window never opens',
      });
      return;
    }
    if (sendAt > token.time) {
      const open = nextOpen(token.time, a.settings, this.zone, this.holidays)!;
      return this.push({
        ...token,
        time: sendAt,
        seq: this.seq++,
        held: { from: token.held?.from ?? token.time, limit: (token.held?.limit ?? false) || sendAt > open },
      });
    }
    this.send(token, a, channel, base);
  }

  /** Records a message going out now, counts it for the daily send limit, and goes on. */
  private send(token: Token, a: FlowAutomation, channel: 'email' | 'sms', base: { assuming?: string }): void {
    const node = a.nodes[token.node];
    const day = dateText(wallOf(token.time, this.zone));
    this.sentOn.set(day, (this.sentOn.get(day) ?? 0) + 1);
    const words = describeConfig(node.kind, node.config)
      .map((p) => (typeof p === 'string' ? p : nameOf(this.flow, p.ref, p.id)))
      .join('');
    const may = this.mayFollow(a, token.node);
    const held =
      token.held &&
      `, held ${token.held.limit ? `by the daily send limit (${a.settings.dailySendLimit} a day)` : 'to the send window'} from ${isoIn(token.held.from, this.zone)}`;
    this.record(token.time, a, token.node, {
      ...base,
      does: `sends ${channel === 'email' ? 'an email' : 'an SMS'} to ${this.contact.name}${words ? ` (${words})` : ''}${held ?? ''}`,
      message: { channel, ...(token.held ? { heldFrom: isoIn(token.held.from, this.zone) } : {}) },
      ...(may.length ? { may } : {}),
    });
    this.follow(token.run, token.node, token.time, token.assuming);
  }

  /**
   * When a message due at `ms` may go out: in the automation's send window, on a day whose count
   * of messages to the contact is under its daily send limit (undefined: no such time within reach).
   */
  private sendTime(ms: number, s: FlowSettings): number | undefined {
    let t = nextOpen(ms, s, this.zone, this.holidays);
    for (let d = 0; t !== undefined && s.dailySendLimit !== undefined && d < 366; d++) {
      const w = wallOf(t, this.zone);
      if ((this.sentOn.get(dateText(w)) ?? 0) < s.dailySendLimit) return t;
      const next = addDays(w.year, w.month, w.day, 1);
      t = nextOpen(instantOf(next.year, next.month, next.day, 0, this.zone), s, this.zone, this.holidays);
    }
    return s.dailySendLimit === undefined || t === undefined ? t : undefined;
  }

  /**
   * The contact replies: to the last message sent before now. The runs of automations with
   * stop_on_reply end; an email's reply starts the automations on "email replied" (its template),
   * an SMS's those on "SMS received".
   */
  private reply(at: number): void {
    const last = this.steps.findLast((x) => x.message && x.ms <= at);
    if (!last)
      return this.assume(
        `${this.contact.name} replies at ${isoIn(at, this.zone)}, before any message was sent: the reply stops and starts nothing`,
      );
    const a = this.flow.automations.find((x) => x.key === last.automation)!;
    const node = a.nodes.findIndex((n) => n.id === last.node);
    const ended: string[] = [];
    for (const [i, run] of this.active) {
      const b = this.flow.automations[i];
      if (!b.settings.stopOnReply || this.runs[run].stopped) continue;
      this.runs[run].stopped = true;
      ended.push(`"${b.name}"`);
    }
    const channel = last.message!.channel;
    this.record(at, a, node, {
      does: `${this.contact.name} replies to the ${channel === 'email' ? 'email' : 'SMS'} sent at ${last.at}${ended.length ? `: ${ended.join(', ')} end${ended.length === 1 ? 's' : ''} (stop on reply)` : ''}`,
    });
    const mine = this.steps[this.steps.length - 1];
    const cause = `the reply to "${a.name}" block "${last.node}"`;
    const template = subjectOf(['template_id'], a.nodes[node]?.config);
    const starts = channel === 'email' ? this.emit('email_replied', template, at, cause) : this.enrollOn('trigger.sms_received', at, cause);
    if (starts.length) mine.starts = starts;
  }

  /** This path as the timeline gives it. */
  view(): TimelinePath {
    const count = (channel: 'email' | 'sms', within: number) =>
      this.steps.filter((s) => s.message?.channel === channel && s.ms < this.start + within).length;
    const email = { day: count('email', DAY), week: count('email', 7 * DAY), total: count('email', Infinity) };
    const sms = { day: count('sms', DAY), week: count('sms', 7 * DAY), total: count('sms', Infinity) };
    return {
      choices: this.choices,
      ...(this.forkOf ? { forkOf: this.forkOf } : {}),
      steps: this.steps.map(({ ms: _ms, ...s }) => s),
      ended: this.ended,
      ...(this.loop ? { loop: this.loop } : {}),
      summary: { email, sms, words: summaryWords(this.contact.name, email, sms, this.loop) },
    };
  }
}

const ENDINGS: TimelinePath['ended'][] = ['loop', 'limit', 'horizon', 'done'];

/** The timeline of a simulation whose paths have all run. */
function timelineOf(first: Simulation): Timeline {
  const paths = first.paths.map((x) => x.view());
  const input = first.input;
  const p = first.pack;
  const most = (channel: 'email' | 'sms') => ({
    day: Math.max(...paths.map((x) => x.summary[channel].day)),
    week: Math.max(...paths.map((x) => x.summary[channel].week)),
    total: Math.max(...paths.map((x) => x.summary[channel].total)),
  });
  const email = most('email');
  const sms = most('sms');
  return {
    version: 2,
    pack: { packId: p.packId, name: p.name, version: p.version },
    start: {
      event: input.event,
      ...(first.subject !== undefined ? { subject: first.subject } : {}),
      at: isoIn(first.start, first.zone),
      timeZone: first.zone,
      contact: first.contact.name,
      days: input.days ?? 30,
      ...(first.replyAt !== undefined ? { replyAt: isoIn(first.replyAt, first.zone) } : {}),
    },
    paths,
    ended: ENDINGS.find((e) => paths.some((x) => x.ended === e))!,
    assumptions: [...new Set(first.paths.flatMap((x) => x.assumptions))],
    summary: { email, sms, words: paths.length === 1 ? paths[0].summary.words : rangeWords(first.contact.name, paths) },
  };
}

const chose = (so: string, choice: string) => [so, choice].filter(Boolean).join('; ');

/** When a message held to the automation's send window goes out: now when inside it, else when it next opens (undefined: never). */
export function nextOpen(ms: number, s: FlowSettings, zone: string, holidays: ReadonlySet<string>): number | undefined {
  const skip = s.skipHolidays && holidays.size > 0;
  if (!hasWindow(s) && !skip) return ms;
  const w = wallOf(ms, zone);
  const dayOk = (weekday: number, date: { year: number; month: number; day: number }) =>
    (s.days === undefined || s.days.includes(weekday)) && !(skip && holidays.has(dateText(date)));
  if (dayOk(w.weekday, w) && inWindowMinutes(s, w.minute)) return ms;
  for (let d = 0; d <= 14; d++) {
    const date = addDays(w.year, w.month, w.day, d);
    if (!dayOk((w.weekday + d) % 7, date)) continue;
    const t = instantOf(date.year, date.month, date.day, s.windowStart ?? 0, zone);
    if (t >= ms) return t;
  }
  return undefined;
}

/** An RFC 3339 date and time with its offset, as an instant; else an error naming the field. */
function instant(field: string, text: string): number {
  const ms = Date.parse(text);
  if (!RFC3339.test(text) || Number.isNaN(ms))
    throw new SimulateError(field, `"${text}" is not an RFC 3339 date and time with its offset (e.g. 2026-12-04T18:45:00-05:00)`);
  return ms;
}

const labelOf = (kind: string) => NODE_CATALOG.get(kind)?.label ?? kind;

function words(ms: number): string {
  const m = Math.round(ms / MINUTE);
  if (m === 0) return 'moment, without pause';
  const d = Math.floor(m / 1440);
  const h = Math.floor((m % 1440) / 60);
  return [d ? `${d} d` : '', h ? `${h} h` : '', m % 60 ? `${m % 60} min` : ''].filter(Boolean).join(' ');
}

const CHANNELS = ['email', 'sms'] as const;

/** A channel's messages in words ("2 emails", "1 to 3 emails", "1 SMS"): `most` decides the noun. */
const channelWords = (channel: (typeof CHANNELS)[number], amount: string, most: number) =>
  `${amount} ${channel === 'sms' ? 'SMS' : pluralWord(most, 'email')}`;

const joinMessages = (parts: string[]) => parts.join(' and ') || 'no message';

const messages = (n: { email: number; sms: number }) =>
  joinMessages(CHANNELS.filter((c) => n[c] > 0).map((c) => channelWords(c, count(n[c]), n[c])));

function summaryWords(
  name: string,
  email: { day: number; week: number },
  sms: { day: number; week: number },
  loop?: TimelinePath['loop'],
): string {
  const text = `${name} gets ${messages({ email: email.day, sms: sms.day })} in the first 24 h, ${messages({ email: email.week, sms: sms.week })} in the first 7 days`;
  return loop
    ? `${text} before the simulation stopped at a loop (${plural(loop.automations.length, 'automation')}, every ${loop.period}, ${messages(loop.perTurn)} a turn, without end)`
    : text;
}

/** The messages of several paths, as the least to the most any path sends per channel. */
function rangeWords(name: string, paths: TimelinePath[]): string {
  const range = (within: 'day' | 'week') =>
    joinMessages(
      CHANNELS.flatMap((channel) => {
        const n = paths.map((x) => x.summary[channel][within]);
        const [least, most] = [Math.min(...n), Math.max(...n)];
        if (most === 0) return [];
        return [channelWords(channel, least === most ? count(most) : `${count(least)} to ${count(most)}`, most)];
      }),
    );
  const loops = paths.filter((x) => x.loop).length;
  const text = `${name} gets ${range('day')} in the first 24 h, ${range('week')} in the first 7 days, on ${paths.length} paths`;
  return loops ? `${text}, ${loops === paths.length ? 'each' : `${loops} of them`} stopping at a loop` : text;
}
