import { describe, expect, it } from 'vitest';
import { nodeKindInfo, NODE_CATALOG } from '@setup-pack/core';
import { fieldAsk, fieldHelp } from './fieldWords.js';

const field = (kind: string, name: string) => nodeKindInfo(kind)!.fields.find((f) => f.name === name)!;

describe('fieldAsk', () => {
  it("says a whole number in the unit the block counts in: a wait's own unit, else the label's", () => {
    expect(fieldAsk(field('control.wait', 'duration'), { unit: 'days' })).toBe('Enter a whole number of days');
    expect(fieldAsk(field('control.wait', 'duration'), { unit: 'hours' })).toBe('Enter a whole number of hours');
    expect(fieldAsk(field('control.wait', 'duration'), {})).toBe('Enter a whole number');
    expect(fieldAsk(field('action.create_task', 'due_in_days'), {})).toBe('Enter a whole number of days');
    expect(fieldAsk(field('trigger.appointment_upcoming', 'minutes_before'), {})).toBe('Enter a whole number of minutes');
  });
  it('names choices and references in words, never JSON types', () => {
    expect(fieldAsk(field('action.mark_do_not_contact', 'channel'), {})).toBe('Choose one of: sms, email, call, all');
    expect(fieldAsk(field('action.add_tag', 'tag_id'), {})).toBe('Choose a tag, or enter its id');
    expect(fieldAsk(field('action.assign_owner', 'user_id'), {})).toBe('Choose a user, or enter its id');
    expect(fieldAsk(field('action.stop_automations', 'automation_ids'), {})).toBe('Enter automation ids, separated by commas');
    for (const info of NODE_CATALOG.values())
      for (const f of info.fields) expect(fieldAsk(f, {})).not.toMatch(/\b(integer|string|config\.)/);
  });
  it('gives help only where the input does not say it already', () => {
    expect(fieldHelp(field('action.create_task', 'title'), {})).toBeUndefined();
    expect(fieldHelp(field('control.wait', 'duration'), { unit: 'days' })).toBe('Enter a whole number of days.');
    expect(fieldHelp(field('control.ai_branch', 'outcomes'), {})).toBe(
      'Each outcome is an output of the block. Enter the values, separated by commas.',
    );
  });
});
