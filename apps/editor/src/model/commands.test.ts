import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { validatePack } from '@setup-pack/core';
import { commandsFor, searchCommands, type CommandContext } from './commands.js';

const starter = JSON.parse(readFileSync(new URL('../../../../fixtures/valid/buyer-lead-starter.json', import.meta.url), 'utf8'));
const ctx = (over: Partial<CommandContext> = {}): CommandContext => ({
  pack: starter,
  target: { kind: 'automations', index: 0 },
  diagnostics: [],
  connected: false,
  ...over,
});

describe('the command palette', () => {
  it('offers Plan when connected and Connect otherwise; Simulate and Export always', () => {
    const titles = (c: CommandContext) =>
      commandsFor(c)
        .filter((x) => x.section === 'Actions')
        .map((x) => x.title);
    expect(titles(ctx())).toEqual(expect.arrayContaining(['Connect to workspace…', 'Simulate', 'Export']));
    expect(titles(ctx())).not.toContain('Plan');
    expect(titles(ctx({ connected: true }))).toEqual(expect.arrayContaining(['Plan', 'Simulate', 'Export']));
  });

  it('adds a block by its name, only where blocks go (an automation shown)', () => {
    const found = searchCommands(commandsFor(ctx()), 'add tag');
    expect(found[0]).toMatchObject({ title: 'Add tag', section: 'Add a block', action: { type: 'add', kind: 'action.add_tag' } });
    expect(searchCommands(commandsFor(ctx()), 'wait')[0]).toMatchObject({ action: { type: 'add', kind: 'control.wait' } });
    expect(searchCommands(commandsFor(ctx()), 'add wait')[0]).toMatchObject({ action: { type: 'add', kind: 'control.wait' } });
    // Words are matched from their start: "tag" is not found in "stage".
    expect(searchCommands(commandsFor(ctx()), 'tag').map((c) => c.title)).not.toContain('Stage changed');
    expect(commandsFor(ctx({ target: { kind: 'pack' } })).some((c) => c.section === 'Add a block')).toBe(false);
  });

  it('goes to an automation or a template by its name', () => {
    const all = commandsFor(ctx());
    expect(searchCommands(all, 'welcome text')[0]).toMatchObject({
      section: 'Go to',
      detail: 'Message templates',
      action: { type: 'open', target: { kind: 'messageTemplates' } },
    });
    const nurture = searchCommands(all, 'stage nurture')[0]!;
    expect(nurture).toMatchObject({ section: 'Go to', detail: 'Automations' });
  });

  it('jumps to a finding by its words or its code', () => {
    const broken = structuredClone(starter);
    broken.name = '';
    const { diagnostics } = validatePack(broken);
    const all = commandsFor(ctx({ pack: broken, diagnostics }));
    const hit = searchCommands(all, 'name must have')[0]!;
    expect(hit.section).toBe('Findings');
    expect(hit.action).toMatchObject({ type: 'finding', finding: { code: 'schema/too-short' } });
    expect(searchCommands(all, 'schema/too-short')[0]!.section).toBe('Findings');
  });

  it('lists the actions and the items before anything is typed, and nothing for a search that matches nothing', () => {
    const first = searchCommands(commandsFor(ctx()), '');
    expect(new Set(first.map((c) => c.section))).toEqual(new Set(['Actions', 'Go to']));
    expect(searchCommands(commandsFor(ctx()), 'zzz nothing like this')).toEqual([]);
  });
});
