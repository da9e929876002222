// The compare view's words for what changed: core's (describeValueChange), after the block, stage or item they belong to.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { comparePacks, describeItemChange, describePackFields, describeUnpaired, mayBeUnpaired } from './diffview.js';
import type { PackValue } from './pack.js';

const starter = () => JSON.parse(readFileSync(new URL('../../../../fixtures/valid/buyer-lead-starter.json', import.meta.url), 'utf8'));

describe('compare view: what a changed field was and is', () => {
  it("says a template's subject and body, an automation's references and a block's config value before and after, not only their names", () => {
    const oldPack = starter();
    const newPack = starter();
    const template = newPack.messageTemplates.find((t: { key: string }) => t.key === 'tpl-follow-up');
    oldPack.messageTemplates.find((t: { key: string }) => t.key === 'tpl-follow-up').body = 'Hi\nHomes\nBye';
    template.subject = 'New homes for you';
    template.body = 'Hi\nHomes near you\nBye';
    const doc = newPack.automations[0].document;
    doc.references.push({ type: 'tag', id: 'tag-hot', name: 'Hot lead' });
    doc.graph.nodes.find((n: { id: string }) => n.id === 'wait').config.unit = 'hours';
    newPack.pipelines[0].stages[0].probability = 12;
    newPack.author = 'Ann';
    const diff = comparePacks(oldPack as PackValue, newPack as PackValue);
    const lines = (kind: string) => describeItemChange(diff.items.find((i) => i.kind === kind)!);
    expect(lines('messageTemplates')).toEqual([
      'changed: subject, body',
      'subject: "Homes you might like, {{contact.first_name}}" → "New homes for you"',
      'body: 1 line changed of 3 lines (line 2: "Homes" → "Homes near you")',
    ]);
    expect(lines('automations')).toEqual([
      'block wait changed: config.unit',
      'block wait config.unit: "days" → "hours"',
      'changed: references',
      'references: added tag "tag-hot" ("Hot lead")',
    ]);
    expect(lines('pipelines')).toEqual(['stage new "New" changed: probability', 'stage new probability: 10 → 12']);
    expect(describePackFields(diff)).toEqual(['author: "Setup Pack Samples" → "Ann"']);
  });
});

describe('compare view: items that cannot be paired by key', () => {
  it('names each, by side, where it is and why, and marks the additions and removals of their kinds that may be one of them', () => {
    const oldPack = starter();
    const newPack = starter();
    newPack.automations[1].key = 'new-lead-welcome'; // now repeats automations[0]'s key
    delete newPack.messageTemplates[0].key;
    const diff = comparePacks(oldPack as PackValue, newPack as PackValue);
    expect(describeUnpaired(diff, oldPack as PackValue, newPack as PackValue)).toEqual([
      { side: 'old', lines: ['automations[0] “New lead welcome” has key "new-lead-welcome", which the other release repeats'] },
      {
        side: 'new',
        lines: [
          'automations[0] “New lead welcome”, automations[1] “Stage nurture” share key "new-lead-welcome"',
          'messageTemplates[0] “Welcome text” has no string key',
        ],
      },
    ]);
    // The old automation and template said removed may be the new ones whose keys went wrong; nothing else is in doubt.
    const doubtful = diff.items.filter((c) => mayBeUnpaired(diff, c)).map((c) => `${c.change} ${c.kind}/${c.key}`);
    expect(doubtful).toEqual(['removed automations/nurture-by-stage', 'removed messageTemplates/tpl-welcome-sms']);
    // Valid packs: nothing unpaired, nothing in doubt.
    const clean = comparePacks(starter() as PackValue, starter() as PackValue);
    expect(describeUnpaired(clean, starter() as PackValue, starter() as PackValue)).toEqual([]);
  });

  it("says nodes of a changed automation that share an id in core's words, with no doubt cast on other items", () => {
    const oldPack = starter();
    const newPack = starter();
    const nodes = newPack.automations[0].document.graph.nodes;
    nodes[2].id = nodes[1].id; // two blocks of one id in the new release
    const diff = comparePacks(oldPack as PackValue, newPack as PackValue);
    const id = JSON.stringify(nodes[1].id);
    expect(describeUnpaired(diff, oldPack as PackValue, newPack as PackValue)).toEqual([
      { side: 'old', lines: [`automations[0].document.graph.nodes[1] has id ${id}, which the other release repeats`] },
      { side: 'new', lines: [`automations[0].document.graph.nodes[1], automations[0].document.graph.nodes[2] share id ${id}`] },
    ]);
    expect(diff.items.filter((c) => mayBeUnpaired(diff, c))).toEqual([]);
  });
});
