import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Pack } from '../types.js';
import { simulate, SimulateError } from './simulate.js';

const fixture = (rel: string) => JSON.parse(readFileSync(new URL(`../../../../fixtures/${rel}`, import.meta.url), 'utf8')) as Pack;
const demo = fixture('valid/buyer-lead-starter.json');
const rosa = { first_name: 'Rosa', last_name: 'Diaz', tags: [], stage: null };
const brief = (t: ReturnType<typeof simulate>) =>
  t.steps.map((s) => [s.at, s.automation, s.node, s.message?.channel ?? '', s.branch?.handle ?? '']);

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
    expect(t.steps[3].does).toBe('waits until 2026-10-31T18:45:00-04:00');
    expect(t.steps[5].message).toEqual({ channel: 'email', heldFrom: '2026-10-31T18:45:00-04:00' });
    expect(t.steps[1].does).toBe('Add tag (Tag: Buyer lead)');
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
    expect(t.steps.at(-1)).toMatchObject({ at: '2026-11-03T09:00:00-05:00', node: 'email' });
  });

  it('a contact who replied takes the other branch, and a stage change forks on the AI branch, saying so', () => {
    const replied = simulate(demo, {
      event: 'contact_created',
      contact: { ...rosa, custom_fields: { last_reply_at: '2026-10-30T10:00:00Z' } },
      at: '2026-10-30T18:45:00-04:00',
      timeZone: 'America/New_York',
    });
    expect(replied.steps.at(-2)?.branch).toEqual({ handle: 'true', why: "the contact's fields make the condition true" });
    expect(replied.steps.at(-1)?.node).toBe('task');
    const nurture = simulate(demo, {
      event: 'stage_changed',
      subject: 'Nurture',
      contact: rosa,
      at: '2026-10-30T18:45:00-04:00',
      timeZone: 'America/New_York',
    });
    expect(nurture.start.subject).toBe('stage-nurture');
    expect(nurture.steps.map((s) => [s.node, s.assuming ?? ''])).toEqual([
      ['', ''],
      ['ai', ''],
      ['deal', 'AI in "ai" of "Stage nurture" chooses ready'],
      ['note', 'AI in "ai" of "Stage nurture" chooses later'],
    ]);
    expect(nurture.assumptions).toEqual(['AI in "ai" of "Stage nurture" chooses ready or later: both followed']);
  });

  it('stops at the loop of the cascade-loop fixture, naming it', () => {
    const t = simulate(fixture('invalid/flow-cascade-loop.json'), {
      event: 'contact_created',
      contact: rosa,
      at: '2026-12-04T18:45:00-05:00',
      timeZone: 'America/New_York',
    });
    expect(t.ended).toBe('loop');
    expect(t.loop).toMatchObject({ automations: ['warm-lead', 'hot-lead'], perTurn: { email: 1, sms: 0 } });
    expect(t.loop!.message).toContain('"Warm lead" → "Hot lead" → "Warm lead"');
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
    expect(zillow.steps[0]).toMatchObject({ automation: 'new-lead-welcome', node: '' });
    expect(zillow.assumptions).toEqual([]);
    const walkIn = simulate(demo, { ...friday, event: 'contact_created', contact: { ...rosa, lead_source: 'Walk-in' } });
    expect(walkIn.steps).toEqual([]);
    const fromNew = demoWith((p) => (nodeOf(p, 'nurture-by-stage', 't').config!.from_stage_id = 'stage-new'));
    expect(
      simulate(fromNew, { ...friday, event: 'stage_changed', subject: 'stage-nurture', contact: { ...rosa, stage: 'stage-new' } }).steps[0]
        ?.automation,
    ).toBe('nurture-by-stage');
    expect(
      simulate(fromNew, { ...friday, event: 'stage_changed', subject: 'stage-nurture', contact: { ...rosa, stage: 'stage-hot' } }).steps,
    ).toEqual([]);
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
    expect(roomy.steps.filter((s) => s.message).map((s) => s.at)).toEqual(['2026-10-30T18:45:00-04:00', '2026-10-30T18:46:00-04:00']);
    const one = simulate(oneMinute(1), { ...friday, event: 'contact_created' });
    const email = one.steps.find((s) => s.message?.channel === 'email')!;
    // Friday has had its one message; Saturday and Sunday are no send days: Monday 09:00.
    expect(email.at).toBe('2026-11-02T09:00:00-05:00');
    expect(email.does).toContain('held by the daily send limit (1 a day) from 2026-10-30T18:46:00-04:00');
    expect(email.message).toEqual({ channel: 'email', heldFrom: '2026-10-30T18:46:00-04:00' });
  });

  it('a reply ends the runs with stop on reply, and a held message is then never sent', () => {
    const t = simulate(demo, { ...friday, event: 'contact_created', replyAt: '2026-10-30T19:10:00-04:00' });
    expect(t.start.replyAt).toBe('2026-10-30T19:10:00-04:00');
    const reply = t.steps.find((s) => s.does.includes('replies'))!;
    expect(reply).toMatchObject({ at: '2026-10-30T19:10:00-04:00', automation: 'new-lead-welcome', node: 'sms' });
    expect(reply.does).toBe('Rosa Diaz replies to the SMS sent at 2026-10-30T18:45:00-04:00: "New lead welcome" ends (stop on reply)');
    expect(t.steps.filter((s) => s.message).map((s) => s.message!.channel)).toEqual(['sms']);
    const keepsGoing = simulate(
      demoWith((p) => (p.automations[0].document.settings!.stop_on_reply = false)),
      { ...friday, event: 'contact_created', replyAt: '2026-10-30T19:10:00-04:00' },
    );
    expect(keepsGoing.steps.filter((s) => s.message).map((s) => s.message!.channel)).toEqual(['sms', 'email']);
    // At the event's own moment nothing has been sent yet: the reply answers nothing.
    const first = simulate(demo, { ...friday, event: 'contact_created', replyAt: '2026-10-30T18:45:00-04:00' });
    expect(first.assumptions).toContain(
      'Rosa Diaz replies at 2026-10-30T18:45:00-04:00, before any message was sent: the reply stops and starts nothing',
    );
    expect(first.steps.filter((s) => s.message).length).toBe(2);
    expect(() => simulate(demo, { ...friday, event: 'contact_created', replyAt: '2026-10-30T18:44:00-04:00' })).toThrow(
      new SimulateError('replyAt', 'the reply (2026-10-30T18:44:00-04:00) comes before the event (2026-10-30T18:45:00-04:00)'),
    );
    expect(() => simulate(demo, { ...friday, event: 'contact_created', replyAt: 'tonight' })).toThrow(
      '"tonight" is not an RFC 3339 date and time',
    );
  });
});
