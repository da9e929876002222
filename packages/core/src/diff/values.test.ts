// What diffPacks says a changed field was and is: the words `setup-pack diff` and the editor's compare view show.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { diffPacks } from './diff.js';
import { describeValueChange, linesSummary, valueChange, valueText } from './values.js';
import type { Pack } from '../types.js';

const fixture = (name: string): Pack => JSON.parse(readFileSync(new URL(`../../../../fixtures/${name}`, import.meta.url), 'utf8'));
const base = fixture('valid/buyer-lead-starter.json');
const clone = <T>(v: T): T => structuredClone(v);
type Loose = Record<string, any>;

describe('diffPacks says what a field was and is', () => {
  it("a template's subject before and after, its body by its lines", () => {
    const next = clone(base) as Loose;
    const t = next.messageTemplates.find((x: Loose) => x.key === 'tpl-follow-up');
    t.subject = 'New homes for you';
    const lines = ['<p>Hi</p>', '<p>Homes:</p>', '<ul>', '<li>One</li>', '</ul>', '<p>Bye</p>'];
    const old = clone(base) as Loose;
    old.messageTemplates.find((x: Loose) => x.key === 'tpl-follow-up').body = lines.join('\n');
    t.body = [...lines.slice(0, 3), '<li>One, now cheaper</li>', '<li>Two</li>', ...lines.slice(4)].join('\n');
    const [change] = diffPacks(old as Pack, next as Pack).items;
    expect(change.fields).toEqual(['subject', 'body']);
    expect(change.values).toEqual([
      { field: 'subject', before: 'Homes you might like, {{contact.first_name}}', after: 'New homes for you' },
      { field: 'body', summary: '1 line changed, 1 added of 7 lines (line 4: "<li>One</li>" → "<li>One, now cheaper</li>")' },
    ]);
    expect(change.values!.map(describeValueChange)).toEqual([
      'subject: "Homes you might like, {{contact.first_name}}" → "New homes for you"',
      'body: 1 line changed, 1 added of 7 lines (line 4: "<li>One</li>" → "<li>One, now cheaper</li>")',
    ]);
  });

  it("a template's richTextDoc by its text", () => {
    const doc = (...paras: string[]) => ({
      type: 'doc',
      content: paras.map((text) => ({ type: 'paragraph', content: [{ type: 'text', text }] })),
    });
    const old = clone(base) as Loose;
    const next = clone(base) as Loose;
    old.messageTemplates[1].richTextDoc = doc('Hello', 'World');
    next.messageTemplates[1].richTextDoc = doc('Hello', 'Everyone');
    expect(diffPacks(old as Pack, next as Pack).items[0].values).toEqual([
      { field: 'richTextDoc', summary: 'its text: 1 line changed of 2 lines (line 2: "World" → "Everyone")' },
    ]);
    next.messageTemplates[1].richTextDoc = { ...doc('Hello', 'World'), attrs: { textAlign: 'center' } };
    expect(diffPacks(old as Pack, next as Pack).items[0].values).toEqual([
      { field: 'richTextDoc', summary: 'the same text, formatted otherwise' },
    ]);
    delete next.messageTemplates[1].richTextDoc;
    expect(diffPacks(old as Pack, next as Pack).items[0].values![0]).toMatchObject({ field: 'richTextDoc', before: { type: 'doc' } });
    expect(describeValueChange(diffPacks(old as Pack, next as Pack).items[0].values![0])).toMatch(
      /^richTextDoc: removed \(was \{"type":"doc"/,
    );
  });

  it("an automation's references: which were added, removed and changed", () => {
    const next = clone(base) as Loose;
    const refs = next.automations[0].document.references;
    refs.splice(1, 1, { type: 'tag', id: 'tag-hot', name: 'Hot lead' });
    refs.find((r: Loose) => r.type === 'user').name = 'Jordan Leigh';
    const [change] = diffPacks(base, next as Pack).items;
    expect(change.automation!.fields).toEqual(['references']);
    expect(change.automation!.values).toEqual([
      {
        field: 'references',
        summary:
          'added tag "tag-hot" ("Hot lead"); removed tag "tag-buyer-lead"; changed user "usr_8841" name "Jordan Lee" → "Jordan Leigh"',
      },
    ]);
  });

  it("a block's config key, old and new value; a stage's field; the pack's name, description and author", () => {
    const next = clone(base) as Loose;
    next.automations[0].document.graph.nodes.find((n: Loose) => n.id === 'wait').config.duration = 3;
    next.automations[0].document.graph.nodes.find((n: Loose) => n.id === 'tag').config.tag_id = 'tag-hot';
    next.pipelines[0].stages[0].probability = 15;
    next.name = 'Buyer Lead Starter 2';
    next.description = 'Two\nlines';
    delete next.author;
    const d = diffPacks(base, next as Pack);
    expect(d.values).toEqual([
      { field: 'name', before: 'Buyer Lead Starter', after: 'Buyer Lead Starter 2' },
      {
        field: 'description',
        summary: '1 line changed, 1 added of 2 lines (line 1: "Welcome new buyer leads, nurture them, and track them throu…" → "Two")',
      },
      { field: 'author', before: 'Setup Pack Samples' },
    ]);
    expect(d.values.map(describeValueChange)[2]).toBe('author: removed (was "Setup Pack Samples")');
    const nodes = d.items.find((i) => i.kind === 'automations')!.automation!.nodes;
    expect(nodes).toEqual([
      {
        id: 'tag',
        change: 'changed',
        kind: 'action.add_tag',
        fields: ['config.tag_id'],
        values: [{ field: 'config.tag_id', before: 'tag-buyer-lead', after: 'tag-hot' }],
      },
      {
        id: 'wait',
        change: 'changed',
        kind: 'control.wait',
        fields: ['config.duration'],
        values: [{ field: 'config.duration', before: 1, after: 3 }],
      },
    ]);
    const stages = d.items.find((i) => i.kind === 'pipelines')!;
    expect(stages.values).toEqual([]);
    expect(stages.stages).toEqual([
      { key: 'new', change: 'changed', name: 'New', fields: ['probability'], values: [{ field: 'probability', before: 10, after: 15 }] },
    ]);
  });

  it("a control.if block's conditions are said as filters, not as JSON besides", () => {
    const next = clone(base) as Loose;
    next.automations[0].document.graph.nodes.find((n: Loose) => n.id === 'replied').config.conditions.operator = 'is_not_set';
    const [node] = diffPacks(base, next as Pack).items[0].automation!.nodes;
    expect(node.fields).toEqual(['config.conditions']);
    expect(node.values).toEqual([]);
    expect(node.conditions).toHaveLength(1);
  });
});

describe('valueText and linesSummary', () => {
  it('cut a long value with an ellipsis, inside the quotes of a string', () => {
    expect(valueText('x'.repeat(100))).toBe(`"${'x'.repeat(79)}…"`);
    expect(valueText(null)).toBe('null');
    expect(valueText({ a: 1 })).toBe('{"a":1}');
    expect(valueText('a\nb')).toBe('"a\\nb"');
  });
  it('say a line removed, one added, and line endings alone', () => {
    expect(linesSummary('a\nb\nc', 'a\nc')).toBe('1 line removed of 2 lines (line 2 removed: "b")');
    expect(linesSummary('a\nc', 'a\nb\nc')).toBe('1 line added of 3 lines (line 2 added: "b")');
    expect(linesSummary('a\nb', 'a\r\nb')).toBe('the same lines, with CRLF line endings');
  });
  it('count LF, CR and CR LF each as one line end, as validation does (a body saved with lone CRs)', () => {
    expect(linesSummary('a\rb\rc', 'a\rB\rc')).toBe('1 line changed of 3 lines (line 2: "b" → "B")');
    expect(linesSummary('a\r\nb\rc\nd', 'a\r\nb\rc\nD')).toBe('1 line changed of 4 lines (line 4: "d" → "D")');
    expect(linesSummary('a\rb', 'a\nb')).toBe('the same lines, with LF line endings');
    expect(linesSummary('a\nb', 'a\rb')).toBe('the same lines, with CR line endings');
    expect(linesSummary('a\nb\r\nc', 'a\rb\nc')).toBe('the same lines, with other line endings');
    expect(valueChange('body', 'a\rb', 'a\rc')).toEqual({ field: 'body', summary: '1 line changed of 2 lines (line 2: "b" → "c")' });
  });
});

// Properties: a pack diffed with itself says nothing; one edit is named exactly, with its values.
const text = fc.string({ unit: 'grapheme', maxLength: 30 });
describe('diff properties', () => {
  it('a pack diffed with a copy of itself, whatever it holds, has no changes', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }), (extra) => {
        const pack = { ...clone(base), ...extra } as Pack;
        const d = diffPacks(pack, clone(pack));
        expect(d.fields).toEqual([]);
        expect(d.values).toEqual([]);
        expect(d.items).toEqual([]);
      }),
    );
  });

  it("one edit (a template's subject, a block's config value, a stage's field, the pack's name) is the one change, named with its values", () => {
    const edit = fc.oneof(
      fc.record({ where: fc.constant('subject' as const), value: text }),
      fc.record({ where: fc.constant('config' as const), value: fc.oneof(text, fc.integer(), fc.boolean()) }),
      fc.record({ where: fc.constant('stage' as const), value: fc.integer({ min: 0, max: 99 }) }),
      fc.record({ where: fc.constant('name' as const), value: text }),
    );
    fc.assert(
      fc.property(edit, ({ where, value }) => {
        const next = clone(base) as Loose;
        const before =
          where === 'subject'
            ? next.messageTemplates[1].subject
            : where === 'config'
              ? next.automations[0].document.graph.nodes[5].config.title
              : where === 'stage'
                ? next.pipelines[0].stages[1].probability
                : next.name;
        fc.pre(before !== value);
        if (where === 'subject') next.messageTemplates[1].subject = value;
        else if (where === 'config') next.automations[0].document.graph.nodes[5].config.title = value;
        else if (where === 'stage') next.pipelines[0].stages[1].probability = value;
        else next.name = value;
        const d = diffPacks(base, next as Pack);
        const said = { field: where === 'config' ? 'config.title' : where === 'stage' ? 'probability' : where, before, after: value };
        if (where === 'name') {
          expect(d.values).toEqual([said]);
          expect(d.items).toEqual([]);
          return;
        }
        expect(d.values).toEqual([]);
        expect(d.items).toHaveLength(1);
        const [item] = d.items;
        if (where === 'subject') expect(item.values).toEqual([said]);
        if (where === 'config')
          expect(item.automation!.nodes).toEqual([
            { id: 'task', change: 'changed', kind: 'action.create_task', fields: ['config.title'], values: [said] },
          ]);
        if (where === 'stage')
          expect(item.stages).toEqual([expect.objectContaining({ change: 'changed', fields: ['probability'], values: [said] })]);
      }),
    );
  });
});
