import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Pack } from '../types.js';
import { simulate, SimulateError, SIMULATION_PATH_LIMIT } from './simulate.js';

const fixture = (rel: string) => JSON.parse(readFileSync(new URL(`../../../../fixtures/${rel}`, import.meta.url), 'utf8')) as Pack;
const demo = fixture('valid/buyer-lead-starter.json');
const rosa = { first_name: 'Rosa', last_name: 'Diaz', tags: [], stage: null };
/** The steps of a timeline that has one path (and fails the test when it has more). */
const only = (t: ReturnType<typeof simulate>) => {
  expect(t.paths).toHaveLength(1);
  return t.paths[0].steps;
};
const brief = (t: ReturnType<typeof simulate>) =>
  only(t).map((s) => [s.at, s.automation, s.node, s.message?.channel ?? '', s.branch?.handle ?? '']);

describe('simulate on the demo pack (hand-worked timelines)', () => {
  it("a new lead on a Friday evening: SMS in the window, a day's wait, the condition read from the contact, the email held over the weekend into Monday after the clocks go back", () => {
    const t = simulate(demo, { event: 'contact_created', contact: rosa, at: '2026-10-30T18:45:00-04:00', timeZone: 'America/New_York' });
    expect(brief(t)).toEqual([
      ['2026-10-30T18:45:00-04:00', 'new-lead-welcome', '', '', ''],
      ['2026-10-30T18:45:00-04:00', 'new-lead-welcome', 'tag', '', ''],
      // Friday 18:45 is inside 09:00–19:00, Monday to Friday: sent at once.
      ['2026-10-30T18:45:00-04:00', 'new-lead-welcome', 'sms', 'sms', ''],
      ['2026-10-30T18:45:00-04:00', 'new-lead-welcome', 'wait', '', ''],
      // The contact has no last_reply_at: "is set" is false, decided, no fork.
      ['2026-10-31T18:45:00-04:00', 'new-lead-welcome', 'replied', '', 'false'],
      // Saturday is no send day: held to Monday 09:00, which is EST (-05:00) since Sunday 02:00.
      ['2026-11-02T09:00:00-05:00', 'new-lead-welcome', 'email', 'email', ''],
    ]);
    expect(only(t)[3].does).toBe('waits until 2026-10-31T18:45:00-04:00');
    expect(only(t)[5].message).toEqual({ channel: 'email', heldFrom: '2026-10-31T18:45:00-04:00' });
    expect(only(t)[1].does).toBe('Add tag (Tag: Buyer lead)');
    expect(t.ended).toBe('done');
    // The trigger starts for leads from Zillow only; Rosa's lead source is not given.
    expect(t.assumptions).toEqual([
      '"New lead welcome" starts only when the contact\'s lead source is Zillow, which the contact does not give: taken to hold',
    ]);
    expect(t.summary).toMatchObject({
      email: { day: 0, week: 1, total: 1 },
      sms: { day: 1, week: 1, total: 1 },
      words: 'Rosa Diaz gets 1 SMS in the first 24 h, 1 email and 1 SMS in the first 7 days',
    });
  });

  it('a holiday on the Monday holds the email to Tuesday (send_window_skip_holidays)', () => {
    const t = simulate(demo, {
      event: 'contact_created',
      contact: rosa,
      at: '2026-10-30T18:45:00-04:00',
      timeZone: 'America/New_York',
      holidays: ['2026-11-02'],
    });
    expect(only(t).at(-1)).toMatchObject({ at: '2026-11-03T09:00:00-05:00', node: 'email' });
  });

  it('a contact who replied takes the other branch, and a stage change forks on the AI branch into two paths', () => {
    const replied = simulate(demo, {
      event: 'contact_created',
      contact: { ...rosa, custom_fields: { last_reply_at: '2026-10-30T10:00:00Z' } },
      at: '2026-10-30T18:45:00-04:00',
      timeZone: 'America/New_York',
    });
    expect(only(replied).at(-2)?.branch).toEqual({ handle: 'true', why: "the contact's fields make the condition true" });
    expect(only(replied).at(-1)?.node).toBe('task');
    const nurture = simulate(demo, {
      event: 'stage_changed',
      subject: 'Nurture',
      contact: rosa,
      at: '2026-10-30T18:45:00-04:00',
      timeZone: 'America/New_York',
    });
    expect(nurture.start.subject).toBe('stage-nurture');
    const [ready, later] = nurture.paths;
    expect(nurture.paths).toHaveLength(2);
    expect(ready.steps.map((s) => [s.node, s.assuming ?? ''])).toEqual([
      ['', ''],
      ['ai', ''],
      ['deal', 'AI in "ai" of "Stage nurture" chooses ready'],
    ]);
    expect(ready.steps[1].forks).toEqual([
      { handle: 'ready', path: 0 },
      { handle: 'later', path: 1 },
    ]);
    expect(ready).toMatchObject({ choices: ['AI in "ai" of "Stage nurture" chooses ready'], ended: 'done' });
    expect(ready.forkOf).toBeUndefined();
    expect(later).toMatchObject({ choices: ['AI in "ai" of "Stage nurture" chooses later'], forkOf: { path: 0, steps: 2 }, ended: 'done' });
    expect(later.steps.map((s) => s.node)).toEqual(['', 'ai', 'note']);
    // The fork step is the same on both paths: it says where each output is followed.
    expect(later.steps[1]).toEqual(ready.steps[1]);
    expect(nurture.assumptions).toEqual([]);
    expect(nurture.summary.words).toBe('Rosa Diaz gets no message in the first 24 h, no message in the first 7 days, on 2 paths');
  });

  it('keeps the contact of each path apart: what one branch does is not seen by the other', () => {
    // "ready" adds the tag Hot, "later" adds a note; both then ask whether the contact is tagged Hot.
    const pack = structuredClone(demo) as unknown as {
      automations: { key: string; document: { graph: { nodes: object[]; edges: object[] } } }[];
    };
    const graph = pack.automations.find((a) => a.key === 'nurture-by-stage')!.document.graph;
    const at = { x: 0, y: 0 };
    graph.nodes.splice(2, 1, { id: 'deal', kind: 'action.add_tag', config: { tag_id: 'tag-hot' }, position: at });
    graph.nodes.push(
      {
        id: 'hot',
        kind: 'control.if',
        config: { conditions: { type: 'condition', field: 'tags', operator: 'includes', value: 'tag-hot' } },
        position: at,
      },
      { id: 'yes', kind: 'action.add_note', config: { body: 'Hot' }, position: at },
      { id: 'no', kind: 'action.add_note', config: { body: 'Not hot' }, position: at },
    );
    graph.edges.push(
      { id: 'e4', source: 'deal', target: 'hot' },
      { id: 'e5', source: 'note', target: 'hot' },
      { id: 'e6', source: 'hot', target: 'yes', handle: 'true' },
      { id: 'e7', source: 'hot', target: 'no', handle: 'false' },
    );
    const t = simulate(pack as unknown as Pack, { ...friday, event: 'stage_changed', subject: 'stage-nurture' });
    expect(t.paths.map((x) => x.steps.map((s) => [s.node, s.branch?.handle ?? '']))).toEqual([
      [
        ['', ''],
        ['ai', ''],
        ['deal', ''],
        ['hot', 'true'],
        ['yes', ''],
      ],
      [
        ['', ''],
        ['ai', ''],
        ['note', ''],
        ['hot', 'false'],
        ['no', ''],
      ],
    ]);
  });

  it('keeps at most SIMULATION_PATH_LIMIT paths apart, then follows both outputs on one path and says so', () => {
    // A chain of 6 undecided conditions: 64 ways through, of which 16 are kept apart.
    const pack = structuredClone(demo) as unknown as {
      automations: { key: string; document: { graph: { nodes: object[]; edges: object[] } } }[];
    };
    const graph = pack.automations.find((a) => a.key === 'old-reminder')!.document.graph;
    const at = { x: 0, y: 0 };
    const ask = { type: 'condition', field: 'budget', operator: 'greater_than', value: 5 };
    graph.edges = [{ id: 'e0', source: 't', target: 'c0' }];
    graph.nodes = graph.nodes.filter((n) => (n as { id: string }).id === 't');
    for (let i = 0; i < 6; i++) {
      graph.nodes.push({ id: `c${i}`, kind: 'control.if', config: { conditions: ask }, position: at });
      graph.nodes.push({ id: `n${i}`, kind: 'action.add_note', config: { body: `${i}` }, position: at });
      graph.edges.push({ id: `t${i}`, source: `c${i}`, target: `n${i}`, handle: 'true' });
      graph.edges.push({ id: `f${i}`, source: `c${i}`, target: i < 5 ? `c${i + 1}` : `n${i}`, handle: 'false' });
      if (i < 5) graph.edges.push({ id: `x${i}`, source: `n${i}`, target: `c${i + 1}` });
    }
    const t = simulate(pack as unknown as Pack, { ...friday, event: 'manual', subject: 'old-reminder' });
    expect(t.paths).toHaveLength(SIMULATION_PATH_LIMIT);
    expect(
      t.assumptions.some((a) => a.endsWith(`both followed on one path, past the ${SIMULATION_PATH_LIMIT} paths a simulation keeps apart`)),
    ).toBe(true);
    expect(new Set(t.paths.map((x) => x.choices.join('|'))).size).toBe(SIMULATION_PATH_LIMIT);
  });

  it('stops at the loop of the cascade-loop fixture, naming it', () => {
    const t = simulate(fixture('invalid/flow-cascade-loop.json'), {
      event: 'contact_created',
      contact: rosa,
      at: '2026-12-04T18:45:00-05:00',
      timeZone: 'America/New_York',
    });
    expect(t.ended).toBe('loop');
    expect(t.paths[0].loop).toMatchObject({ automations: ['warm-lead', 'hot-lead'], perTurn: { email: 1, sms: 0 } });
    expect(t.paths[0].loop!.message).toContain('"Warm lead" → "Hot lead" → "Warm lead"');
  });

  it('names what it cannot read: the event, the subject, the date, the zone, the contact', () => {
    const at = '2026-10-30T18:45:00-04:00';
    const error = (input: Partial<Parameters<typeof simulate>[1]>) => {
      try {
        simulate(demo, { event: 'contact_created', contact: rosa, at, ...input });
      } catch (e) {
        return e instanceof SimulateError ? [e.field, e.message] : e;
      }
      return undefined;
    };
    expect(error({ event: 'tag_add' })).toEqual([
      'event',
      expect.stringMatching(/^"tag_add" is not an event the simulator knows; did you mean tag_added\? \(one of: /),
    ]);
    expect(error({ event: 'tag_added', subject: 'Buyer leed' })).toEqual([
      'subject',
      'tag "Buyer leed" is not in the pack; did you mean "Buyer lead"? (it has: tag-buyer-lead ("Buyer lead"), tag-hot ("Hot lead"))',
    ]);
    expect(error({ at: '2026-10-30 18:45' })).toEqual([
      'at',
      '"2026-10-30 18:45" is not an RFC 3339 date and time with its offset (e.g. 2026-12-04T18:45:00-05:00)',
    ]);
    expect(error({ timeZone: 'Mars/Olympus' })).toEqual(['timeZone', expect.stringContaining('"Mars/Olympus" is not a time zone')]);
    expect(error({ contact: [1] })).toEqual(['contact', expect.stringContaining('a contact is a JSON object')]);
    expect(error({ contact: { tags: 'hot', first_name: 'R' } })).toEqual(['contact.tags', expect.stringContaining('tags must be a list')]);
  });
});

/** The demo pack with `edit` applied to a copy. */
function demoWith(
  edit: (p: {
    automations: {
      key: string;
      document: { settings: Record<string, unknown> | null; graph: { nodes: { id: string; config?: Record<string, unknown> }[] } };
    }[];
  }) => void,
): Pack {
  const copy = structuredClone(demo) as unknown as Parameters<typeof edit>[0];
  edit(copy);
  return copy as unknown as Pack;
}
const nodeOf = (p: Parameters<Parameters<typeof demoWith>[0]>[0], automation: string, id: string) =>
  p.automations.find((a) => a.key === automation)!.document.graph.nodes.find((n) => n.id === id)!;
const friday = { contact: rosa, at: '2026-10-30T18:45:00-04:00', timeZone: 'America/New_York' };

describe('simulate: trigger conditions, the daily send limit and replies', () => {
  it("reads a trigger's conditions beyond its subject: the contact's lead source, the stage a contact leaves", () => {
    const zillow = simulate(demo, {
      ...friday,
      event: 'contact_created',
      contact: { ...rosa, lead_source: { id: 'lsr_1', name: 'Zillow' } },
    });
    expect(only(zillow)[0]).toMatchObject({ automation: 'new-lead-welcome', node: '' });
    expect(zillow.assumptions).toEqual([]);
    const walkIn = simulate(demo, { ...friday, event: 'contact_created', contact: { ...rosa, lead_source: 'Walk-in' } });
    expect(only(walkIn)).toEqual([]);
    const fromNew = demoWith((p) => (nodeOf(p, 'nurture-by-stage', 't').config!.from_stage_id = 'stage-new'));
    expect(
      simulate(fromNew, { ...friday, event: 'stage_changed', subject: 'stage-nurture', contact: { ...rosa, stage: 'stage-new' } }).paths[0]
        .steps[0]?.automation,
    ).toBe('nurture-by-stage');
    expect(
      simulate(fromNew, { ...friday, event: 'stage_changed', subject: 'stage-nurture', contact: { ...rosa, stage: 'stage-hot' } }).paths,
    ).toMatchObject([{ steps: [] }]);
    const unknown = simulate(fromNew, { ...friday, event: 'stage_changed', subject: 'stage-nurture' });
    expect(unknown.assumptions[0]).toBe(
      '"Stage nurture" starts only when the previous stage is stage-new, which the contact does not give: taken to hold',
    );
  });

  it('holds a message the daily send limit has no room for to the next day with room, in the send window', () => {
    const oneMinute = (limit: number) =>
      demoWith((p) => {
        nodeOf(p, 'new-lead-welcome', 'wait').config = { duration: 1, unit: 'minutes' };
        p.automations[0].document.settings!.daily_send_limit = limit;
      });
    const roomy = simulate(oneMinute(500), { ...friday, event: 'contact_created' });
    expect(
      only(roomy)
        .filter((s) => s.message)
        .map((s) => s.at),
    ).toEqual(['2026-10-30T18:45:00-04:00', '2026-10-30T18:46:00-04:00']);
    const one = simulate(oneMinute(1), { ...friday, event: 'contact_created' });
    const email = only(one).find((s) => s.message?.channel === 'email')!;
    // Friday has had its one message; Saturday and Sunday are no send days: Monday 09:00.
    expect(email.at).toBe('2026-11-02T09:00:00-05:00');
    expect(email.does).toContain('held by the daily send limit (1 a day) from 2026-10-30T18:46:00-04:00');
    expect(email.message).toEqual({ channel: 'email', heldFrom: '2026-10-30T18:46:00-04:00' });
  });

  it('a reply ends the runs with stop on reply, and a held message is then never sent', () => {
    const t = simulate(demo, { ...friday, event: 'contact_created', replyAt: '2026-10-30T19:10:00-04:00' });
    expect(t.start.replyAt).toBe('2026-10-30T19:10:00-04:00');
    const reply = only(t).find((s) => s.does.includes('replies'))!;
    expect(reply).toMatchObject({ at: '2026-10-30T19:10:00-04:00', automation: 'new-lead-welcome', node: 'sms' });
    expect(reply.does).toBe('Rosa Diaz replies to the SMS sent at 2026-10-30T18:45:00-04:00: "New lead welcome" ends (stop on reply)');
    expect(
      only(t)
        .filter((s) => s.message)
        .map((s) => s.message!.channel),
    ).toEqual(['sms']);
    const keepsGoing = simulate(
      demoWith((p) => (p.automations[0].document.settings!.stop_on_reply = false)),
      { ...friday, event: 'contact_created', replyAt: '2026-10-30T19:10:00-04:00' },
    );
    expect(
      only(keepsGoing)
        .filter((s) => s.message)
        .map((s) => s.message!.channel),
    ).toEqual(['sms', 'email']);
    // At the event's own moment nothing has been sent yet: the reply answers nothing.
    const first = simulate(demo, { ...friday, event: 'contact_created', replyAt: '2026-10-30T18:45:00-04:00' });
    expect(first.assumptions).toContain(
      'Rosa Diaz replies at 2026-10-30T18:45:00-04:00, before any message was sent: the reply stops and starts nothing',
    );
    expect(only(first).filter((s) => s.message).length).toBe(2);
    expect(() => simulate(demo, { ...friday, event: 'contact_created', replyAt: '2026-10-30T18:44:00-04:00' })).toThrow(
      new SimulateError('replyAt', 'the reply (2026-10-30T18:44:00-04:00) comes before the event (2026-10-30T18:45:00-04:00)'),
    );
    expect(() => simulate(demo, { ...friday, event: 'contact_created', replyAt: 'tonight' })).toThrow(
      '"tonight" is not an RFC 3339 date and time',
    );
  });
});
