// The effects model and the cross-automation analysis over generated packs: every block kind has
// its effects stated, the analysis terminates on every pack, and a loop planted by adding its
// closing step is always reported, and removing that step clears it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  analyseFlow,
  EFFECTS,
  flowSettings,
  NODE_KINDS,
  simulate,
  SIMULATION_PATH_LIMIT,
  simulationEvents,
  validatePack,
  type AutomationItem,
  type Pack,
} from '../src/index.js';
import { wallOf } from '../src/behaviour/zone.js';
import { inWindowMinutes } from '../src/behaviour/window.js';
import { fuzzConfig, validPack } from '@setup-pack/testkit';

const { numRuns, seed } = fuzzConfig('a planted loop is always reported', 100);

/** Two automations on tags of their own: "Planted A" adds the tag that starts "Planted B"; with `closed`, B adds the one that starts A. */
function planted(pack: Pack, closed: boolean, reenroll: boolean): Pack {
  const p = structuredClone(pack);
  const settings = { allow_reenrollment: reenroll, stop_on_reply: false, daily_send_limit: 100 };
  const auto = (key: string, name: string, on: string, adds: string | null): AutomationItem => ({
    key,
    document: {
      format: 'service.automation-template',
      version: 1,
      name,
      settings,
      graph: {
        // The tag that started it is removed first, so adding it again is an event every turn.
        nodes: [
          { id: 'start', kind: 'trigger.tag_added', config: { tag_id: on } },
          { id: 'untag', kind: 'action.remove_tag', config: { tag_id: on } },
          adds
            ? { id: 'tag', kind: 'action.add_tag', config: { tag_id: adds } }
            : { id: 'tag', kind: 'action.add_note', config: { body: 'end' } },
        ],
        edges: [
          { id: 'e0', source: 'start', target: 'untag' },
          { id: 'e1', source: 'untag', target: 'tag' },
        ],
      },
    },
  });
  p.resources = [
    ...(p.resources ?? []),
    { key: 'planted a', kind: 'tag', name: 'Planted tag A' },
    { key: 'planted b', kind: 'tag', name: 'Planted tag B' },
  ];
  p.automations = [
    ...(p.automations ?? []),
    auto('planted a', 'Planted A', 'planted a', 'planted b'),
    auto('planted b', 'Planted B', 'planted b', closed ? 'planted a' : null),
  ];
  return p;
}

/** The loop findings about the planted automations alone (a generated automation may take part in a loop of its own with them). */
const ZONES = ['UTC', 'America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'Asia/Kathmandu'];

/** Whether a message's time is inside its automation's send window, in the zone, and on no holiday. */
function inItsWindow(pack: Pack, automation: string, at: string, zone: string, holidays: string[]): boolean {
  const settings = flowSettings(pack.automations!.find((a) => a.key === automation)!.document.settings);
  const w = wallOf(Date.parse(at), zone);
  const date = `${w.year}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;
  if (settings.skipHolidays && holidays.includes(date)) return false;
  return (settings.days === undefined || settings.days.includes(w.weekday)) && inWindowMinutes(settings, w.minute);
}

const plantedFindings = (p: Pack) => {
  const planted = [p.automations!.length - 2, p.automations!.length - 1].map((i) => `/automations/${i}/`);
  return validatePack(p).diagnostics.filter(
    (d) =>
      d.code === 'flow/cascade-loop' &&
      [d.pointer, ...(d.related ?? []).map((r) => r.pointer)].every((x) => planted.some((at) => x.startsWith(at))),
  );
};

describe('the effects model', () => {
  it('states the effects of every block kind of the catalog', () => {
    expect([...EFFECTS.keys()]).toEqual([...NODE_KINDS]);
    for (const [kind, e] of EFFECTS) if (kind.startsWith('trigger.')) expect(e.starts, kind).toBeDefined();
  });

  it(`a loop planted by its closing step is reported, an error with re-enrollment on and a warning without; open, it is not (${numRuns} packs)`, () => {
    // A generated automation that starts on any tag added would join the planted loop: left out.
    const startsOnTags = (p: Pack) => (p.automations ?? []).some((a) => a.document.graph.nodes.some((n) => n.kind === 'trigger.tag_added'));
    const small = validPack({ maxItems: 2 }).filter((p) => !startsOnTags(p));
    fc.assert(
      fc.property(small, (pack) => {
        const open = plantedFindings(planted(pack, false, true));
        expect(open).toEqual([]);
        const closed = plantedFindings(planted(pack, true, true));
        expect(closed.map((d) => d.severity)).toEqual(['error']);
        expect(closed[0].message).toContain('"Planted A" adds tag Planted tag B → "Planted B" adds tag Planted tag A → "Planted A"');
        expect(closed[0].related?.length).toBe(4);
        expect(plantedFindings(planted(pack, true, false)).map((d) => d.severity)).toEqual(['warning']);
      }),
      { numRuns, seed },
    );
  });

  it(`the simulator ends on every generated pack and sends no message outside its automation's window (${numRuns} packs)`, () => {
    const events = simulationEvents().map((e) => e.event);
    const input = fc.record({
      event: fc.constantFrom(...events),
      at: fc
        .date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2027-12-31T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString()),
      zone: fc.constantFrom(...ZONES),
      holidays: fc.uniqueArray(
        fc
          .date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2028-01-31T00:00:00Z'), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10)),
        { maxLength: 30 },
      ),
      days: fc.integer({ min: 1, max: 40 }),
      replyAfter: fc.option(fc.integer({ min: 0, max: 40 * 1440 })),
    });
    fc.assert(
      fc.property(validPack({ maxItems: 3 }), input, (pack, { event, at, zone, holidays, days, replyAfter }) => {
        const replyAt = replyAfter === null ? {} : { replyAt: new Date(Date.parse(at) + replyAfter * 60000).toISOString() };
        const t = simulate(pack, { event, contact: { first_name: 'Rosa' }, at, timeZone: zone, holidays, days, ...replyAt });
        expect(['done', 'loop', 'horizon', 'limit']).toContain(t.ended);
        expect(t.paths.length).toBeGreaterThanOrEqual(1);
        expect(t.paths.length).toBeLessThanOrEqual(SIMULATION_PATH_LIMIT);
        for (const path of t.paths) {
          expect(['done', 'loop', 'horizon', 'limit']).toContain(path.ended);
          // A forked path begins with the steps it shares with the path it forked from, ending at the fork.
          if (path.forkOf) {
            const parent = t.paths[path.forkOf.path];
            expect(path.steps.slice(0, path.forkOf.steps)).toEqual(parent.steps.slice(0, path.forkOf.steps));
            expect(path.steps[path.forkOf.steps - 1].forks?.map((f) => f.path)).toContain(t.paths.indexOf(path));
          }
          const sentOn = new Map<string, number>();
          for (const s of path.steps.filter((x) => x.message)) {
            expect(inItsWindow(pack, s.automation, s.at, zone, holidays), `${s.automation} ${s.node} at ${s.at}`).toBe(true);
            // No message beyond its automation's daily send limit, counting the contact's messages of that day on this path.
            const w = wallOf(Date.parse(s.at), zone);
            const day = `${w.year}-${w.month}-${w.day}`;
            sentOn.set(day, (sentOn.get(day) ?? 0) + 1);
            expect(sentOn.get(day), `${s.automation} ${s.node} at ${s.at}`).toBeLessThanOrEqual(
              flowSettings(pack.automations!.find((a) => a.key === s.automation)!.document.settings).dailySendLimit ?? Infinity,
            );
          }
          // The path is in time order: a held message is recorded when it goes out.
          const steps = path.steps;
          for (let i = 1; i < steps.length; i++) expect(Date.parse(steps[i].at)).toBeGreaterThanOrEqual(Date.parse(steps[i - 1].at));
        }
      }),
      { numRuns, seed },
    );
  });

  it(`what the analysis finds does not depend on the order of the pack's items, which export sorts (${numRuns} packs)`, () => {
    // Generated pipelines share stage keys (s0, s1…), so a deal block's stage_id names a stage of several.
    const words = (p: Pack) =>
      validatePack(p)
        .diagnostics.filter((d) => d.code.startsWith('flow/'))
        .map((d) => `${d.code} ${d.severity}: ${d.message}`)
        .sort();
    fc.assert(
      fc.property(validPack({ maxItems: 3 }), (pack) => {
        const reversed = {
          ...pack,
          pipelines: pack.pipelines && [...pack.pipelines].reverse(),
          resources: pack.resources && [...pack.resources].reverse(),
        };
        expect(words(reversed)).toEqual(words(pack));
      }),
      { numRuns, seed },
    );
  });
});

describe('the paths of a forked simulation', () => {
  // One automation of undecided conditions that add or remove a tag on each branch, and of
  // conditions on those tags, which the contact of each path decides by what that path did.
  type Op = { kind: 'fork' | 'check'; tag: number };
  function chainPack(ops: Op[]): Pack {
    const at = { x: 0, y: 0 };
    const nodes: object[] = [{ id: 't', kind: 'trigger.manual', config: {}, position: at }];
    const edges: object[] = [{ id: 'e', source: 't', target: 'c0' }];
    const join = (i: number, from: string) => i + 1 < ops.length && edges.push({ id: `j${from}`, source: from, target: `c${i + 1}` });
    ops.forEach((op, i) => {
      const [yes, no] = op.kind === 'fork' ? [`a${i}`, `r${i}`] : [`y${i}`, `n${i}`];
      const ask =
        op.kind === 'fork'
          ? { type: 'condition', field: 'budget', operator: 'greater_than', value: 5 }
          : { type: 'condition', field: 'tags', operator: 'includes', value: `x${op.tag}` };
      nodes.push({ id: `c${i}`, kind: 'control.if', config: { conditions: ask }, position: at });
      if (op.kind === 'fork')
        nodes.push(
          { id: yes, kind: 'action.add_tag', config: { tag_id: `x${op.tag}` }, position: at },
          { id: no, kind: 'action.remove_tag', config: { tag_id: `x${op.tag}` }, position: at },
        );
      else
        nodes.push(
          { id: yes, kind: 'action.add_note', config: { body: 'yes' }, position: at },
          { id: no, kind: 'action.add_note', config: { body: 'no' }, position: at },
        );
      edges.push(
        { id: `t${i}`, source: `c${i}`, target: yes, handle: 'true' },
        { id: `f${i}`, source: `c${i}`, target: no, handle: 'false' },
      );
      join(i, yes);
      join(i, no);
    });
    const document = { format: 'service.automation-template', version: 1, name: 'Chain', graph: { nodes, edges } };
    return {
      format: 'service.setup-pack',
      schemaVersion: 2,
      packId: '3a6f1b2c-5d4e-4f80-9a1b-2c3d4e5f6a71',
      name: 'Chain',
      version: '1.0.0',
      automations: [{ key: 'chain', document }],
    } as unknown as Pack;
  }
  const ops = fc
    .array(fc.record({ kind: fc.constantFrom<Op['kind']>('fork', 'check'), tag: fc.nat(2) }), { minLength: 1, maxLength: 9 })
    .filter((xs) => xs.filter((x) => x.kind === 'fork').length <= 4);

  it(`keeps each path's contact apart: a condition on a tag is decided by what that path did (${numRuns} chains)`, () => {
    fc.assert(
      fc.property(ops, (chain) => {
        const t = simulate(chainPack(chain), {
          event: 'manual',
          subject: 'chain',
          contact: { first_name: 'Rosa' },
          at: '2026-12-04T18:45:00Z',
        });
        const forks = chain.filter((x) => x.kind === 'fork').length;
        expect(t.paths).toHaveLength(2 ** forks);
        expect(new Set(t.paths.map((x) => x.choices.join('|'))).size).toBe(2 ** forks);
        for (const path of t.paths) {
          expect(path.choices).toHaveLength(forks);
          const tags = new Set<string>();
          for (const step of path.steps) {
            const i = Number(step.node.slice(1));
            if (step.node.startsWith('a')) tags.add(`x${chain[i].tag}`);
            if (step.node.startsWith('r')) tags.delete(`x${chain[i].tag}`);
            if (step.node.startsWith('c') && chain[i].kind === 'check')
              expect(step.branch?.handle).toBe(String(tags.has(`x${chain[i].tag}`)));
          }
          // Every condition is met once on each path: each block of the chain runs once.
          expect(path.steps.filter((x) => x.node.startsWith('c'))).toHaveLength(chain.length);
        }
      }),
      { numRuns, seed },
    );
  });
});

describe('analyseFlow after validatePack', () => {
  it(`gives the cascade the flow rules built for the same value, equal to one built afresh (${numRuns} packs)`, () => {
    fc.assert(
      fc.property(validPack({ maxItems: 3 }), (pack) => {
        const value = validatePack(JSON.stringify(pack)).value as Pack;
        const reused = analyseFlow(value);
        const fresh = analyseFlow(structuredClone(value));
        expect(JSON.stringify({ edges: reused.cascade.edges, loops: reused.loops, self: reused.selfStarts })).toBe(
          JSON.stringify({ edges: fresh.cascade.edges, loops: fresh.loops, self: fresh.selfStarts }),
        );
        expect(reused.flow.automations.map((a) => a.nodes.map((n) => n.id))).toEqual(
          fresh.flow.automations.map((a) => a.nodes.map((n) => n.id)),
        );
      }),
      { numRuns, seed },
    );
  });
});

describe('an automation that starts itself', () => {
  const pack = (stageType: 'CLOSED_WON' | 'OPEN', wonBranch: 'note' | 'move'): Pack => ({
    format: 'service.setup-pack',
    packId: '1f79e088-0013-1000-bfff-fff500000016',
    name: 'Deals',
    version: '1.0.0',
    schemaVersion: 1,
    pipelines: [
      {
        key: 'sales',
        name: 'Sales',
        stages: [
          { key: 'won', name: 'Won', stageType: 'CLOSED_WON' },
          { key: 'lost', name: 'Lost', stageType: 'CLOSED_LOST' },
          { key: 'deal', name: 'Deal', stageType },
        ],
      },
      // Sorts before "sales": its "deal" stage is the one a block's stage_id "deal" means, wherever it is listed.
      {
        key: 'buyers',
        name: 'Buyers',
        stages: [
          { key: 'won', name: 'Won', stageType: 'CLOSED_WON' },
          { key: 'lost', name: 'Lost', stageType: 'CLOSED_LOST' },
          { key: 'deal', name: 'Deal', stageType: 'CLOSED_WON' },
        ],
      },
    ],
    automations: [
      {
        key: 'deals',
        document: {
          format: 'service.automation-template',
          version: 1,
          name: 'Deals',
          settings: { allow_reenrollment: true, stop_on_reply: false, daily_send_limit: 100 },
          graph: {
            nodes: [
              { id: 'subscribed', kind: 'trigger.program_subscribed', config: { program_id: 'program-1' } },
              { id: 'move', kind: 'action.move_deal_stage', config: { stage_id: 'deal' } },
              { id: 'won', kind: 'trigger.deal_won', config: {} },
              wonBranch === 'move'
                ? { id: 'again', kind: 'action.move_deal_stage', config: { stage_id: 'deal' } }
                : { id: 'again', kind: 'action.add_note', config: { body: 'Won' } },
            ],
            edges: [
              { id: 'e0', source: 'subscribed', target: 'move' },
              { id: 'e1', source: 'won', target: 'again' },
            ],
          },
          references: [{ type: 'program', id: 'program-1', name: 'First-time buyers' }],
        },
      },
    ],
  });
  const selfTriggers = (p: Pack) =>
    validatePack(p)
      .diagnostics.filter((d) => d.code === 'flow/self-trigger')
      .map((d) => `${d.severity} ${d.pointer}`);

  it('reads a stage key several pipelines have as the stage of the pipeline with the lowest key, as install binds it', () => {
    // "buyers" < "sales": stage_id "deal" is Buyers' won stage, so winning the deal starts the automation's own deal_won trigger.
    expect(selfTriggers(pack('OPEN', 'move'))).toEqual(['error /automations/0/document/graph/nodes/3']);
  });

  it('is not reported when the trigger it starts leads elsewhere: that branch never comes back to the block', () => {
    expect(selfTriggers(pack('OPEN', 'note'))).toEqual([]);
  });

  it("weighs the guards of the branch it comes back by: a wait there makes it a warning, though another trigger's way to the block has none", () => {
    const p = pack('OPEN', 'note');
    const graph = p.automations![0].document.graph;
    graph.nodes[3] = { id: 'pause', kind: 'control.wait', config: { amount: 1, unit: 'days' } };
    graph.edges = [
      { id: 'e0', source: 'subscribed', target: 'move' },
      { id: 'e1', source: 'won', target: 'pause' },
      { id: 'e2', source: 'pause', target: 'move' },
    ];
    const [finding] = validatePack(p).diagnostics.filter((d) => d.code === 'flow/self-trigger');
    expect(`${finding.severity} ${finding.pointer}`).toBe('warning /automations/0/document/graph/nodes/1');
    expect(finding.message).toContain('block "pause"');
  });
});

describe('a loop through an automation with several triggers', () => {
  const settings = { allow_reenrollment: true, stop_on_reply: false, daily_send_limit: 100 };
  const tagged = (id: string, tag: string) => ({ id, kind: 'trigger.tag_added', config: { tag_id: tag } });
  const adds = (id: string, tag: string) => ({ id, kind: 'action.add_tag', config: { tag_id: tag } });
  const removes = (id: string, tag: string) => ({ id, kind: 'action.remove_tag', config: { tag_id: tag } });
  const edge = (source: string, target: string) => ({ id: `${source}-${target}`, source, target });
  /** "Two ways in" starts on tag a (adds b) or on tag c (its `second` branch); "Back" starts on tag b and adds c. */
  const pack = (second: 'note' | 'adds b'): Pack => ({
    format: 'service.setup-pack',
    packId: '1f79e088-0013-1000-bfff-fff500000017',
    name: 'Tags',
    version: '1.0.0',
    schemaVersion: 1,
    resources: ['a', 'b', 'c'].map((k) => ({ key: k, kind: 'tag' as const, name: `Tag ${k}` })),
    automations: [
      {
        key: 'two',
        document: {
          format: 'service.automation-template',
          version: 1,
          name: 'Two ways in',
          settings,
          graph: {
            nodes: [
              tagged('on a', 'a'),
              removes('untag a', 'a'),
              adds('tag b', 'b'),
              tagged('on c', 'c'),
              removes('untag c', 'c'),
              second === 'note' ? { id: 'end', kind: 'action.add_note', config: { body: 'c' } } : adds('end', 'b'),
            ],
            edges: [edge('on a', 'untag a'), edge('untag a', 'tag b'), edge('on c', 'untag c'), edge('untag c', 'end')],
          },
        },
      },
      {
        key: 'back',
        document: {
          format: 'service.automation-template',
          version: 1,
          name: 'Back',
          settings,
          graph: {
            nodes: [tagged('on b', 'b'), removes('untag b', 'b'), adds('tag c', 'c')],
            edges: [edge('on b', 'untag b'), edge('untag b', 'tag c')],
          },
        },
      },
    ],
  });
  const loops = (p: Pack) =>
    validatePack(p)
      .diagnostics.filter((d) => d.code === 'flow/cascade-loop')
      .map((d) => d.severity);

  it('is reported when the branch the loop enters by leads on round it', () => {
    expect(loops(pack('adds b'))).toEqual(['error']);
  });

  it('is not reported when it enters by a branch that ends: the contact goes once round and stops', () => {
    expect(loops(pack('note'))).toEqual([]);
  });

  it('names the blocks of the branch it goes round by, with their guards, not a less guarded block of another branch', () => {
    // Tag c enters by `on c`, whose branch waits before adding b; `on a`'s branch adds b at once but the loop never enters there.
    const p = pack('adds b');
    const two = p.automations![0].document.graph;
    two.nodes.push({ id: 'pause', kind: 'control.wait', config: { amount: 1, unit: 'days' } });
    two.edges = two.edges.filter((e) => e.source !== 'untag c').concat([edge('untag c', 'pause'), edge('pause', 'end')]);
    const [finding] = validatePack(p).diagnostics.filter((d) => d.code === 'flow/cascade-loop');
    expect(finding.severity).toBe('warning');
    expect(finding.message).toContain('block "pause" in "Two ways in" waits on each turn');
    expect(finding.message).not.toContain('"tag b"');
    expect((finding.related ?? []).map((r) => r.pointer)).toContain('/automations/0/document/graph/nodes/5');
  });
});
