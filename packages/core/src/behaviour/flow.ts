// A pack's automations as the behaviour model reads them: each one's blocks (by kind and config),
// the flow between them, and its settings. Built from a validated Pack (simulate, the editor's Flow
// map) or from what the validator parsed (the flow/* rules), so both read one shape.
import type { RuleContext } from '../rules/rule.js';
import type { GraphModel } from '../graph/model.js';
import { packItemsByReferenceType } from '../references.js';
import type { Pack, ReferenceType } from '../types.js';

export interface FlowNode {
  id: string;
  kind: string;
  config: Record<string, unknown> | undefined;
  /** RFC 6901 pointer of the node in the pack. */
  pointer: string;
  /** Outgoing edges: the handle and the node it enters (an index into the automation's nodes). */
  next: { handle: string; to: number }[];
}

export interface FlowSettings {
  allowReenrollment: boolean;
  stopOnReply: boolean;
  dailySendLimit?: number;
  /** Minutes after midnight, workspace time; both or neither. */
  windowStart?: number;
  windowEnd?: number;
  /** 0 (Sunday) to 6; all days when left out. */
  days?: number[];
  skipHolidays: boolean;
}

export interface FlowAutomation {
  key: string;
  name: string;
  /** Its place in the pack's automations. */
  index: number;
  pointer: string;
  settings: FlowSettings;
  /** Whether the document has settings at all (without, the service's defaults apply: docs/behaviour.md). */
  hasSettings: boolean;
  /** Its blocks (built on first use from what the validator parsed: most analyses need only `kinds`). */
  readonly nodes: FlowNode[];
  /** Indexes of the trigger nodes. */
  triggers: number[];
  /** The block kinds it has, to tell without its nodes whether an analysis concerns it. */
  kinds: ReadonlySet<string>;
}

export interface FlowPack {
  automations: FlowAutomation[];
  /** Deal stage key → its stage type, for a block that moves a deal to a won or lost stage. */
  stageTypes: Map<string, string>;
  /** What the pack (or an automation's listed references) calls an id of a type (`tag:tag-hot` → "Hot"), for words. */
  names: Map<string, string>;
}

/** The name of an id of a reference type, as the pack or a reference calls it; the id itself otherwise. */
export const nameOf = (flow: FlowPack, type: ReferenceType, id: string) => flow.names.get(`${type}:${id}`) ?? id;

/** Names of the pack's items and of the workspace items its automations list, by `type:id`. */
function namesOf(pack: Record<string, unknown>, automations: readonly unknown[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const [type, items] of packItemsByReferenceType(pack))
    for (const [key, item] of items) if (item.name) out.set(`${type}:${key}`, item.name);
  for (const a of automations) {
    const refs = isObj(a) && isObj(a.document) ? a.document.references : undefined;
    if (!Array.isArray(refs)) continue;
    for (const r of refs)
      if (isObj(r) && typeof r.id === 'string' && typeof r.name === 'string' && r.name && !out.has(`${r.type}:${r.id}`))
        out.set(`${r.type}:${r.id}`, r.name);
  }
  return out;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The settings as the model reads them. Without settings (or with null), a contact does not enroll
 * again after a completed run and a reply does not stop it: the format leaves the service's
 * defaults unshown, and the model takes the cautious reading for loops (re-enrollment off).
 */
export function flowSettings(s: unknown): FlowSettings {
  if (!isObj(s)) return { allowReenrollment: false, stopOnReply: false, skipHolidays: false };
  const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);
  const out: FlowSettings = {
    allowReenrollment: s.allow_reenrollment === true,
    stopOnReply: s.stop_on_reply === true,
    skipHolidays: s.send_window_skip_holidays === true,
  };
  const limit = int(s.daily_send_limit);
  if (limit !== undefined) out.dailySendLimit = limit;
  const start = int(s.send_window_start);
  const end = int(s.send_window_end);
  if (start !== undefined && end !== undefined && start !== end) Object.assign(out, { windowStart: start, windowEnd: end });
  if (Array.isArray(s.send_window_days) && s.send_window_days.length)
    out.days = s.send_window_days.filter((d): d is number => Number.isInteger(d) && d >= 0 && d <= 6);
  return out;
}

/** The type of the stage each deal-stage key means (core's reference rule: the lowest pipeline key wins). */
function stageTypesOf(pack: Record<string, unknown>): Map<string, string> {
  const out = new Map<string, string>();
  const pipelines = pack.pipelines;
  if (!Array.isArray(pipelines)) return out;
  for (const [key, item] of packItemsByReferenceType(pack).get('deal_stage') ?? []) {
    const s: unknown = (pipelines[item.index] as { stages: unknown[] }).stages[item.stage!];
    if (isObj(s)) out.set(key, typeof s.stageType === 'string' ? s.stageType : 'OPEN');
  }
  return out;
}

/** A validated pack's automations as the model reads them. */
export function flowOfPack(pack: Pack): FlowPack {
  const automations = (pack.automations ?? []).map((a, index): FlowAutomation => {
    const graph = a.document.graph;
    const pointer = `/automations/${index}`;
    const at = new Map<string, number>();
    graph.nodes.forEach((n, i) => !at.has(n.id) && at.set(n.id, i));
    const nodes: FlowNode[] = graph.nodes.map((n, i) => ({
      id: n.id,
      kind: n.kind,
      config: isObj(n.config) ? n.config : undefined,
      pointer: `${pointer}/document/graph/nodes/${i}`,
      next: [],
    }));
    for (const e of graph.edges ?? []) {
      const from = at.get(e.source);
      const to = at.get(e.target);
      if (from !== undefined && to !== undefined && !nodes[to].kind.startsWith('trigger.'))
        nodes[from].next.push({ handle: e.handle ?? 'next', to });
    }
    return finish(a.key, a.document.name, index, pointer, a.document.settings, nodes);
  });
  return {
    automations,
    stageTypes: stageTypesOf(pack as unknown as Record<string, unknown>),
    names: namesOf(pack as unknown as Record<string, unknown>, pack.automations ?? []),
  };
}

const cache = new WeakMap<object, FlowPack>();
// By the validation's context, not the pack: a pack object changed and validated again is read anew.
const kindsCache = new WeakMap<RuleContext, ReadonlySet<string>>();

/** The blocks flowOfRules keeps: those that passed their schema, not repeating an earlier block's id. */
const usable = (g: GraphModel, n: number) => !g.isBroken(n) && !g.isDuplicate(n);

/**
 * The block kinds of the automations flowOfRules reads (their usable blocks), for the pack being
 * validated, read from the validator's graphs without building the model. Every flow/* rule finds
 * nothing in a pack without kinds of its own (a block that starts another automation, one that
 * undoes another's action, a trigger at set times), which most packs are: told from these, the
 * model is not built: for a folder of 1,000 small packs it was about a sixth of the main thread's
 * instructions, and a quarter counting the optimising compiler's threads.
 */
export function blockKindsOfRules(ctx: RuleContext): ReadonlySet<string> {
  const known = kindsCache.get(ctx);
  if (known) return known;
  const kinds = new Set<string>();
  for (const a of ctx.automations()) {
    const g = a.graph;
    if (!g || typeof a.value.key !== 'string') continue;
    for (let n = 0; n < g.nodeCount; n++) if (usable(g, n)) kinds.add(g.kind(n));
  }
  kindsCache.set(ctx, kinds);
  return kinds;
}

/**
 * What the validator parsed, as the model reads it, once per validation (the flow/* rules share
 * it): automations whose graph could be read, without nodes that failed their schema.
 */
export function flowOfRules(ctx: RuleContext): FlowPack {
  const known = cache.get(ctx.pack);
  if (known) return known;
  const automations: FlowAutomation[] = [];
  for (const a of ctx.automations()) {
    const g = a.graph;
    const key = a.value.key;
    if (!g || typeof key !== 'string') continue;
    // Each usable node's place among the automation's nodes, and its kind: read without building a
    // node object, which a pack at every limit (20,000 blocks) would pay for on every validation.
    const place = new Int32Array(g.nodeCount).fill(-1);
    const kinds = new Set<string>();
    const triggers: number[] = [];
    let count = 0;
    for (let n = 0; n < g.nodeCount; n++) {
      if (!usable(g, n)) continue;
      const kind = g.kind(n);
      kinds.add(kind);
      if (kind.startsWith('trigger.')) triggers.push(count);
      place[n] = count++;
    }
    let nodes: FlowNode[] | undefined;
    const build = (): FlowNode[] => {
      const out: FlowNode[] = [];
      for (let n = 0; n < g.nodeCount; n++) {
        if (place[n] < 0) continue;
        const config = g.config(n);
        out.push({ id: g.id(n), kind: g.kind(n), config: isObj(config) ? config : undefined, pointer: g.nodePointer(n), next: [] });
      }
      for (let e = 0; e < g.edgeCount; e++) {
        if (!g.flows(e)) continue;
        const from = place[g.from(e)];
        const to = place[g.to(e)];
        if (from >= 0 && to >= 0) out[from].next.push({ handle: g.handle(e), to });
      }
      return out;
    };
    const settings = a.document?.settings;
    automations.push({
      key,
      name: typeof a.document?.name === 'string' ? a.document.name : key,
      index: a.index,
      pointer: a.pointer,
      settings: flowSettings(settings),
      hasSettings: isObj(settings),
      triggers,
      kinds,
      get nodes() {
        return (nodes ??= build());
      },
    });
  }
  // The names are for the words of a finding, which most packs have none of, and the stage types
  // for deal blocks, which most packs have none of either: both are read on first use.
  let names: Map<string, string> | undefined;
  let stageTypes: Map<string, string> | undefined;
  const pack = ctx.pack;
  const flow: FlowPack = {
    automations,
    get stageTypes() {
      return (stageTypes ??= stageTypesOf(pack));
    },
    get names() {
      return (names ??= namesOf(pack, Array.isArray(pack.automations) ? pack.automations : []));
    },
  };
  cache.set(ctx.pack, flow);
  return flow;
}

function finish(key: string, name: string, index: number, pointer: string, settings: unknown, nodes: FlowNode[]): FlowAutomation {
  const triggers: number[] = [];
  nodes.forEach((n, i) => n.kind.startsWith('trigger.') && triggers.push(i));
  return {
    key,
    name,
    index,
    pointer,
    settings: flowSettings(settings),
    hasSettings: isObj(settings),
    nodes,
    triggers,
    kinds: new Set(nodes.map((n) => n.kind)),
  };
}

/** The nodes reachable from the automation's triggers (each once, in the order a walk meets them). */
export function reachable(a: FlowAutomation, from: readonly number[] = a.triggers): number[] {
  const seen = new Uint8Array(a.nodes.length);
  const order: number[] = [];
  const stack = [...from];
  for (const t of stack) seen[t] = 1;
  while (stack.length) {
    const n = stack.pop()!;
    order.push(n);
    for (const { to } of a.nodes[n].next) {
      if (seen[to]) continue;
      seen[to] = 1;
      stack.push(to);
    }
  }
  return order;
}
