import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Pack } from '../types.js';
import { simulate, SimulateError } from './simulate.js';

const fixture = (rel: string) => JSON.parse(readFileSync(new URL(`../../../../fixtures/${rel}`, import.meta.url), 'utf8')) as Pack;
const demo = fixture('valid/buyer-lead-starter.json');
const rosa = { first_name: 'Rosa', last_name: 'Diaz', tags: [], stage: null };
const brief = (t: ReturnType<typeof simulate>) => t.steps.map((s) => [s.at, s.automation, s.node, s.message?.channel ?? '', s.branch?.handle ?? '']);

describe('simulate on the demo pack (hand-worked timelines)', () => {
  it('a new lead on a Friday evening: SMS in the window, a day\'s wait, the condition read from the contact, the email held over the weekend into Monday after the clocks go back', () => {
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
    expect(t.assumptions).toEqual([]);
    expect(t.summary).toMatchObject({ email: { day: 0, week: 1, total: 1 }, sms: { day: 1, week: 1, total: 1 }, words: 'Rosa Diaz gets 1 SMS in the first 24 h, 1 email and 1 SMS in the first 7 days' });
  });

  it('a holiday on the Monday holds the email to Tuesday (send_window_skip_holidays)', () => {
    const t = simulate(demo, { event: 'contact_created', contact: rosa, at: '2026-10-30T18:45:00-04:00', timeZone: 'America/New_York', holidays: ['2026-11-02'] });
    expect(t.steps.at(-1)).toMatchObject({ at: '2026-11-03T09:00:00-05:00', node: 'email' });
  });

  it('a contact who replied takes the other branch, and a stage change forks on the AI branch, saying so', () => {
    const replied = simulate(demo, { event: 'contact_created', contact: { ...rosa, custom_fields: { last_reply_at: '2026-10-30T10:00:00Z' } }, at: '2026-10-30T18:45:00-04:00', timeZone: 'America/New_York' });
    expect(replied.steps.at(-2)?.branch).toEqual({ handle: 'true', why: "the contact's fields make the condition true" });
    expect(replied.steps.at(-1)?.node).toBe('task');
    const nurture = simulate(demo, { event: 'stage_changed', subject: 'Nurture', contact: rosa, at: '2026-10-30T18:45:00-04:00', timeZone: 'America/New_York' });
    expect(nurture.start.subject).toBe('stage-nurture');
    expect(nurture.steps.map((s) => [s.node, s.assuming ?? ''])).toEqual([
      ['', ''], ['ai', ''],
      ['deal', 'AI in "ai" of "Stage nurture" chooses ready'], ['note', 'AI in "ai" of "Stage nurture" chooses later'],
    ]);
    expect(nurture.assumptions).toEqual(['AI in "ai" of "Stage nurture" chooses ready or later: both followed']);
  });

  it('stops at the loop of the cascade-loop fixture, naming it', () => {
    const t = simulate(fixture('invalid/flow-cascade-loop.json'), { event: 'contact_created', contact: rosa, at: '2026-12-04T18:45:00-05:00', timeZone: 'America/New_York' });
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
    expect(error({ event: 'tag_add' })).toEqual(['event', expect.stringMatching(/^"tag_add" is not an event the simulator knows; did you mean tag_added\? \(one of: /)]);
    expect(error({ event: 'tag_added', subject: 'Buyer leed' })).toEqual(['subject', 'tag "Buyer leed" is not in the pack; did you mean "Buyer lead"? (it has: tag-buyer-lead ("Buyer lead"), tag-hot ("Hot lead"))']);
    expect(error({ at: '2026-10-30 18:45' })).toEqual(['at', '"2026-10-30 18:45" is not an RFC 3339 date and time with its offset (e.g. 2026-12-04T18:45:00-05:00)']);
    expect(error({ timeZone: 'Mars/Olympus' })).toEqual(['timeZone', expect.stringContaining('"Mars/Olympus" is not a time zone')]);
    expect(error({ contact: [1] })).toEqual(['contact', expect.stringContaining('a contact is a JSON object')]);
    expect(error({ contact: { tags: 'hot', first_name: 'R' } })).toEqual(['contact.tags', expect.stringContaining('tags must be a list')]);
  });
});
