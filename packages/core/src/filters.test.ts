import { describe, expect, it } from 'vitest';
import { describeConfig, summarizeConfig } from './catalog/nodes.js';
import { describeFilter } from './filters.js';
import { packItemsByReferenceType } from './references.js';

const text = (parts: ReturnType<typeof describeFilter>, names: Record<string, string> = {}) =>
  parts.map((p) => (typeof p === 'string' ? p : (names[p.id] ?? `<${p.ref}:${p.id}>`))).join('');

describe('filters and block configs in words', () => {
  it('says a control.if condition as a sentence, with tag ids as references', () => {
    const parts = describeConfig('control.if', {
      conditions: { type: 'condition', field: 'tags', operator: 'includes', value: 'tag-buyer-lead' },
    });
    expect(parts).toEqual(['If ', 'contact has tag ', { ref: 'tag', id: 'tag-buyer-lead' }]);
    expect(
      summarizeConfig(
        'control.if',
        { conditions: { type: 'condition', field: 'tags', operator: 'includes', value: 'tag-buyer-lead' } },
        (t, id) => (t === 'tag' && id === 'tag-buyer-lead' ? 'Buyer lead' : undefined),
      ),
    ).toBe('If contact has tag Buyer lead');
  });

  it('joins groups with and/or, brackets a mixed group and says not', () => {
    const root = {
      type: 'and',
      children: [
        { type: 'condition', field: 'stage', operator: 'equals', value: 'stage-new' },
        {
          type: 'or',
          children: [
            { field: 'last_reply_at', operator: 'is_set' },
            { type: 'condition', field: 'score', operator: 'greater_than', value: 50 },
          ],
        },
        { type: 'not', children: [{ type: 'condition', field: 'do_not_contact', operator: 'is_true' }] },
        { type: 'condition', field: 'created_at', operator: 'within_last_days', value: 7 },
      ],
    };
    expect(text(describeFilter(root), { 'stage-new': 'New' })).toBe(
      'stage is New and (last reply at is set or score is more than 50) and not (do not contact is true) and created at is within the last 7 days',
    );
  });

  it('never says raw JSON for a control, and keeps unknown shapes and operators readable', () => {
    expect(summarizeConfig('control.wait', { duration: 1, unit: 'days' })).toBe('Wait 1 day');
    expect(summarizeConfig('control.wait', { duration: 3, unit: 'hours' })).toBe('Wait 3 hours');
    expect(summarizeConfig('control.ai_branch', { outcomes: ['ready', 'later', 'never'] })).toBe('AI picks ready, later or never');
    expect(summarizeConfig('control.loop', { items: 'contacts', max_iterations: 5 })).toBe('For each of contacts, at most 5 times');
    expect(summarizeConfig('control.wait', { duration: 1440, unit: 'minutes' })).toBe('Wait 1,440 minutes');
    expect(summarizeConfig('control.loop', { max_iterations: 1 })).toBe('Repeat at most 1 time');
    expect(summarizeConfig('control.if', {})).toBe('If … (no conditions yet)');
    expect(summarizeConfig('control.if', { conditions: 'x' })).toBe('If (conditions in a shape we do not read)');
    expect(
      summarizeConfig('control.if', { conditions: { type: 'condition', field: 'city', operator: 'sounds_like', value: 'Paris' } }),
    ).toBe('If city sounds like Paris');
    expect(summarizeConfig('control.if', { conditions: { type: 'and', children: [] } })).toBe('If always');
  });

  it('names other blocks by their catalog field labels, references as parts', () => {
    expect(describeConfig('action.send_sms', { template_id: 'tpl-welcome-sms' })).toEqual([
      'Template: ',
      { ref: 'email_template', id: 'tpl-welcome-sms' },
    ]);
    expect(summarizeConfig('action.create_task', { title: 'Call', due_in_days: 1 })).toBe('Title: Call · Due in (days): 1');
    expect(summarizeConfig('action.add_note', { body: 'x'.repeat(20000) })).toBe(`Note: ${'x'.repeat(73)}…`);
    expect((describeConfig('action.add_note', { body: 'x'.repeat(20000) })[1] as string).length).toBe(120);
    expect(describeConfig('action.stop_automations', { automation_ids: ['a', 'b'] })).toEqual([
      'Automations: ',
      { ref: 'automation', id: 'a' },
      ', ',
      { ref: 'automation', id: 'b' },
    ]);
  });

  it('finds the item a reference resolves to, with its name', () => {
    const pack = {
      resources: [{ key: 'tag-b', kind: 'tag', name: 'Buyer' }],
      messageTemplates: [{ key: 'tpl', name: 'Welcome' }],
      automations: [{ key: 'a1', document: { name: 'First' } }],
      pipelines: [
        {
          key: 'pl',
          name: 'Buyers',
          stages: [
            { key: 's1', name: 'New' },
            { key: 's2', name: 'Won' },
          ],
        },
      ],
    };
    const items = packItemsByReferenceType(pack);
    expect(items.get('tag')?.get('tag-b')).toEqual({ kind: 'resources', index: 0, name: 'Buyer' });
    expect(items.get('email_template')?.get('tpl')).toEqual({ kind: 'messageTemplates', index: 0, name: 'Welcome' });
    expect(items.get('automation')?.get('a1')).toEqual({ kind: 'automations', index: 0, name: 'First' });
    expect(items.get('deal_stage')?.get('s2')).toEqual({ kind: 'pipelines', index: 0, stage: 1, name: 'Won' });
  });
});
