import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { diffPacks } from './diff.js';
import { cannotPairReason } from './unpaired.js';
import { compareSemver } from '../plan/version.js';
import type { Pack } from '../types.js';

const fixture = (name: string): Pack => JSON.parse(readFileSync(new URL(`../../../../fixtures/${name}`, import.meta.url), 'utf8'));
const clone = <T>(v: T): T => structuredClone(v);

describe('diffPacks', () => {
  const base = fixture('valid/buyer-lead-starter.json');

  it('reports nothing for identical packs', () => {
    const d = diffPacks(base, clone(base));
    expect(d).toMatchObject({ packIdMatches: true, versionChange: 'same', fields: [], items: [] });
  });

  it('does not call an item changed for what the service stores back another way (an export of an unedited install)', () => {
    const pipeline = base.pipelines![0];
    const template = base.messageTemplates!.find((t) => t.channel === 'email')!;
    expect(pipeline.stages.some((s) => s.stageType === 'OPEN')).toBe(true);
    expect(template.richTextDoc).toBeNull();
    const exported = clone(base);
    const stages = exported.pipelines![0].stages;
    for (const s of stages) if (s.stageType === 'OPEN') delete s.stageType;
    delete exported.messageTemplates!.find((t) => t.key === template.key)!.richTextDoc;
    expect(diffPacks(base, exported).items).toEqual([]);
    expect(diffPacks(exported, base).items).toEqual([]);
    // A won stage is stored at 100 whatever the pack says (the format's rule).
    const won = clone(base);
    const wonStage = won.pipelines![0].stages.find((s) => s.stageType === 'CLOSED_WON')!;
    wonStage.probability = 90;
    expect(diffPacks(won, base).items).toEqual([]);
    // A real change of a stage still shows, and the packs given are not changed.
    stages[0].name = 'Brand new';
    expect(diffPacks(base, exported).items).toEqual([
      expect.objectContaining({ kind: 'pipelines', key: pipeline.key, change: 'changed', fields: ['stages'] }),
    ]);
    expect(wonStage.probability).toBe(90);
    expect(template.richTextDoc).toBeNull();
  });

  it("names a pipeline's stages that were added, removed or changed, by key, and a new order of the stages both have", () => {
    const next = clone(base);
    const stages = next.pipelines![0].stages;
    const [first, second] = stages;
    second.name = 'Touring homes';
    second.probability = (second.probability ?? 0) + 5;
    stages.splice(2, 0, { ...stages[2], key: 'pre-offer', name: 'Pre-offer' });
    const gone = stages.pop()!;
    const [change] = diffPacks(base, next).items;
    expect(change).toMatchObject({ kind: 'pipelines', change: 'changed', fields: ['stages'] });
    expect(change.stages).toEqual([
      {
        key: second.key,
        change: 'changed',
        name: 'Touring homes',
        fields: ['name', 'probability'],
        values: [
          { field: 'name', before: base.pipelines![0].stages[1].name, after: 'Touring homes' },
          { field: 'probability', before: base.pipelines![0].stages[1].probability, after: second.probability },
        ],
      },
      { key: 'pre-offer', change: 'added', name: 'Pre-offer' },
      { key: gone.key, change: 'removed', name: gone.name },
    ]);
    // Added and removed stages move no other: no new order.
    expect(change.stageOrder).toBeUndefined();
    // Two stages swapped: the order, and no stage changed.
    const swapped = clone(base);
    const s2 = swapped.pipelines![0].stages;
    [s2[0], s2[1]] = [s2[1], s2[0]];
    const [moved] = diffPacks(base, swapped).items;
    expect(moved.stages).toBeUndefined();
    expect(moved.stageOrder).toEqual(s2.map((s) => s.key));
    expect(moved.stageOrder!.slice(0, 2)).toEqual([second.key, first.key]);
    // What the service stores back another way is no stage change either (an OPEN type left out).
    const stored = clone(next);
    for (const s of stored.pipelines![0].stages) if (s.stageType === 'OPEN') delete s.stageType;
    expect(diffPacks(base, stored).items[0].stages).toEqual(change.stages);
  });

  it('ignores moved nodes but reports config, kind, edge and item changes', () => {
    const next = clone(base);
    const doc = next.automations![0].document;
    for (const n of doc.graph.nodes) n.position = { x: (n.position?.x ?? 0) + 500, y: 7 };
    expect(diffPacks(base, next).items).toEqual([]);

    doc.graph.nodes[0].config = { ...doc.graph.nodes[0].config, extra: 1 };
    doc.graph.nodes.push({ id: 'new-node', kind: 'action.add_note', config: { body: 'x' } });
    const removedEdge = doc.graph.edges!.shift()!;
    doc.graph.edges!.push({ id: 'e-new', source: 'new-node', target: removedEdge.target });
    next.version = '9.0.0';
    next.smartLists = [];
    const d = diffPacks(base, next);
    expect(d.versionChange).toBe('up');
    const a = d.items.find((i) => i.kind === 'automations')!;
    expect(a).toMatchObject({ key: base.automations![0].key, change: 'changed', fields: ['document'] });
    expect(a.automation!.nodes).toEqual([
      {
        id: doc.graph.nodes[0].id,
        change: 'changed',
        kind: doc.graph.nodes[0].kind,
        fields: ['config.extra'],
        values: [{ field: 'config.extra', after: 1 }],
      },
      { id: 'new-node', change: 'added', kind: 'action.add_note' },
    ]);
    expect(a.automation!.edges.map((e) => [e.id, e.change])).toEqual([
      ['e-new', 'added'],
      [removedEdge.id, 'removed'],
    ]);
    expect(a.automation!.edges[0].handle).toBe('next');
    const removedLists = d.items.filter((i) => i.kind === 'smartLists');
    expect(removedLists.length).toBe(base.smartLists!.length);
    expect(removedLists.every((i) => i.change === 'removed' && i.name)).toBe(true);
  });

  it("names the keys that changed in a pack's brand, a resource's data and an automation's settings, and what changed in a control.if block's conditions", () => {
    const old = clone(base);
    const next = clone(base);
    (old as Record<string, unknown>).brand = { primaryColor: '#112233', logoAssetKey: 'logo' };
    (next as Record<string, unknown>).brand = { primaryColor: '#445566', logoAssetKey: 'logo', accentColor: '#000000' };
    const tag = next.resources!.find((r) => r.key === 'tag-buyer-lead')!;
    tag.data = { ...tag.data, color: '#ef4444' };
    const doc = next.automations![0].document;
    doc.settings = { ...doc.settings!, daily_send_limit: 250 };
    const node = doc.graph.nodes.find((n) => n.kind === 'control.if')!;
    const before = node.config!.conditions;
    node.config = {
      conditions: { type: 'or', children: [before, { type: 'condition', field: 'tags', operator: 'includes', value: 'tag-hot' }] },
    };
    const d = diffPacks(old, next);
    expect(d.fields).toEqual(['brand.primaryColor', 'brand.accentColor']);
    expect(d.values).toEqual([
      { field: 'brand.primaryColor', before: '#112233', after: '#445566' },
      { field: 'brand.accentColor', after: '#000000' },
    ]);
    expect(d.items.find((i) => i.kind === 'resources')).toMatchObject({ key: 'tag-buyer-lead', change: 'changed', fields: ['data.color'] });
    const a = d.items.find((i) => i.kind === 'automations')!.automation!;
    expect(a.fields).toEqual(['settings.daily_send_limit']);
    expect(a.values).toEqual([
      { field: 'settings.daily_send_limit', before: base.automations![0].document.settings?.daily_send_limit, after: 250 },
    ]);
    expect(a.nodes).toEqual([
      {
        id: node.id,
        change: 'changed',
        kind: 'control.if',
        fields: ['config.conditions'],
        values: [],
        conditions: [
          {
            path: [],
            change: 'changed',
            node: 'group',
            before: 'last reply at is set',
            after: 'last reply at is set or contact has tag tag-hot',
          },
        ],
      },
    ]);
    // A brand added whole, or a condition changed inside a group: the field itself, and the condition by its place.
    const grouped = clone(next);
    const conditions = grouped.automations![0].document.graph.nodes.find((n) => n.id === node.id)!.config!.conditions as {
      children: { value?: unknown }[];
    };
    conditions.children[1].value = 'tag-buyer-lead';
    expect(diffPacks(base, next).fields).toEqual(['brand']);
    expect(diffPacks(next, grouped).items[0].automation!.nodes[0].conditions).toEqual([
      {
        path: [1],
        change: 'changed',
        node: 'condition',
        fields: ['value'],
        before: 'contact has tag tag-hot',
        after: 'contact has tag tag-buyer-lead',
      },
    ]);
  });

  it('treats a missing edge handle as "next"', () => {
    const next = clone(base);
    for (const e of next.automations![0].document.graph.edges ?? []) if (e.handle === undefined) e.handle = 'next';
    expect(diffPacks(base, next).items).toEqual([]);
  });

  it('compares the release pair: packId matches and the version goes up', () => {
    const d = diffPacks(fixture('releases/buyer-lead-1.0.0.json'), fixture('releases/buyer-lead-1.1.0.json'));
    expect(d.packIdMatches).toBe(true);
    expect(d).toMatchObject({ oldVersion: '1.0.0', newVersion: '1.1.0', versionChange: 'up' });
    expect(d.items.length).toBeGreaterThan(0);
    expect(diffPacks(fixture('releases/buyer-lead-1.1.0.json'), fixture('releases/buyer-lead-1.0.0.json')).versionChange).toBe('down');
  });

  it('pairs no item it cannot pair by key, and names each (an item without a string key, every item of a repeated key)', () => {
    expect(diffPacks(base, clone(base)).unpaired).toEqual([]);
    const [first, second] = base.messageTemplates!;
    // The old pack repeats a key (the first an old draft); the new one has that key once, and an item whose key is not a string.
    const old = clone(base);
    old.messageTemplates!.push({ ...clone(second), subject: 'other' });
    const next = clone(base);
    (next.messageTemplates![0] as Record<string, unknown>).key = 7;
    const d = diffPacks(old, next);
    const n = base.messageTemplates!.length;
    expect(d.unpaired).toEqual([
      { side: 'old', kind: 'messageTemplates', index: 1, reason: 'duplicate-key', key: second.key },
      { side: 'old', kind: 'messageTemplates', index: n, reason: 'duplicate-key', key: second.key },
      { side: 'new', kind: 'messageTemplates', index: 0, reason: 'no-key' },
      { side: 'new', kind: 'messageTemplates', index: 1, reason: 'key-repeats-on-other-side', key: second.key },
    ]);
    // The repeated key's items are said neither changed nor removed; the item whose key went bad
    // can only be said removed (it may be the unpaired one: a caller says so or refuses, as the CLI does).
    expect(d.items).toEqual([{ kind: 'messageTemplates', key: first.key, change: 'removed', name: first.name }]);
  });

  it("pairs no stage of a repeated key, and no node or edge of a repeated id, of a changed item: each is said in unpaired, as the item's", () => {
    // Before: the first of a repeated stage key or node id was paired, so a change to the second said nothing.
    const pipeline = base.pipelines!.findIndex((p) => (p.stages?.length ?? 0) >= 2);
    const old = clone(base);
    const next = clone(base);
    const stages = next.pipelines![pipeline].stages as Record<string, unknown>[];
    const stageKey = stages[0].key as string;
    stages.push({ ...clone(stages[0]), name: 'A second copy' });
    const nodes = next.automations![0].document.graph.nodes as unknown as Record<string, unknown>[];
    const nodeId = nodes[0].id as string;
    nodes.push({ ...clone(nodes[0]), position: { x: 5, y: 5 } });
    delete (next.automations![0].document.graph.edges[0] as unknown as Record<string, unknown>).id;
    const d = diffPacks(old, next);
    const pkey = base.pipelines![pipeline].key;
    const akey = base.automations![0].key;
    expect(d.unpaired).toEqual([
      {
        side: 'old',
        kind: 'automations',
        index: 0,
        reason: 'key-repeats-on-other-side',
        key: akey,
        within: { list: 'nodes', index: 0, key: nodeId },
      },
      { side: 'new', kind: 'automations', index: 0, reason: 'duplicate-key', key: akey, within: { list: 'nodes', index: 0, key: nodeId } },
      {
        side: 'new',
        kind: 'automations',
        index: 0,
        reason: 'duplicate-key',
        key: akey,
        within: { list: 'nodes', index: nodes.length - 1, key: nodeId },
      },
      { side: 'new', kind: 'automations', index: 0, reason: 'no-key', key: akey, within: { list: 'edges', index: 0 } },
      {
        side: 'old',
        kind: 'pipelines',
        index: pipeline,
        reason: 'key-repeats-on-other-side',
        key: pkey,
        within: { list: 'stages', index: 0, key: stageKey },
      },
      {
        side: 'new',
        kind: 'pipelines',
        index: pipeline,
        reason: 'duplicate-key',
        key: pkey,
        within: { list: 'stages', index: 0, key: stageKey },
      },
      {
        side: 'new',
        kind: 'pipelines',
        index: pipeline,
        reason: 'duplicate-key',
        key: pkey,
        within: { list: 'stages', index: stages.length - 1, key: stageKey },
      },
    ]);
    // None of them is said added, removed or changed.
    const automation = d.items.find((i) => i.kind === 'automations' && i.key === akey)!;
    expect(automation.automation!.nodes.map((n) => n.id)).not.toContain(nodeId);
    const pipe = d.items.find((i) => i.kind === 'pipelines' && i.key === pkey);
    expect(pipe?.stages?.map((s) => s.key) ?? []).not.toContain(stageKey);
    // In words, one side's: core's, which the CLI prints.
    expect(cannotPairReason(d.unpaired.filter((u) => u.side === 'new' && u.reason !== 'key-repeats-on-other-side'))).toBe(
      `has pipeline stages, automation nodes and automation edges diff cannot pair by key or id, so it cannot say which were added, removed or changed: automations[0].document.graph.nodes[0], automations[0].document.graph.nodes[${nodes.length - 1}] share id ${JSON.stringify(nodeId)}; automations[0].document.graph.edges[0] has no string id; pipelines[${pipeline}].stages[0], pipelines[${pipeline}].stages[${stages.length - 1}] share key ${JSON.stringify(stageKey)}; give each stage, node or edge a key or id of its own`,
    );
  });

  it('notices a different packId and top-level field changes', () => {
    const d = diffPacks(base, { ...clone(base), packId: '00000000-0000-4000-8000-000000000000', description: 'other' });
    expect(d.packIdMatches).toBe(false);
    expect(d.fields).toEqual(expect.arrayContaining(['packId', 'description']));
  });
});

describe('the release direction', () => {
  const base = fixture('valid/buyer-lead-starter.json');
  const direction = (from: string, to: string) =>
    diffPacks({ ...clone(base), version: from }, { ...clone(base), version: to }).versionChange;
  it('follows semver precedence, including pre-releases and build metadata', () => {
    expect(direction('1.0.0', '1.0.1')).toBe('up');
    expect(direction('1.10.0', '1.9.0')).toBe('down');
    expect(direction('1.0.0-beta', '1.0.0')).toBe('up');
    expect(direction('1.0.0-alpha.2', '1.0.0-alpha.10')).toBe('up');
    expect(direction('v1.2.0', '1.2.0+build.7')).toBe('same');
    expect(direction('2024-01', '1.0.0')).toBe('unknown');
    expect(direction('banana', 'banana')).toBe('same');
  });
  it('reads versions as the planner does: an empty pre-release identifier is not semver in either', () => {
    // The diff once had its own looser pattern and called 1.0.0-a..b older than 1.0.0.
    expect(direction('1.0.0-a..b', '1.0.0')).toBe('unknown');
    expect(compareSemver('1.0.0-a..b', '1.0.0')).toBeNull();
    expect(direction('1.0.0-01', '1.0.0')).toBe('unknown');
  });
});

import fc from 'fast-check';

describe('diffPacks properties', () => {
  const bases = ['valid/buyer-lead-starter.json', 'valid/listing-marketing.json', 'releases/buyer-lead-1.1.0.json'].map(fixture);

  it('moving nodes and reordering items, nodes and edges is never a change', () => {
    fc.assert(
      fc.property(fc.constantFrom(...bases), fc.integer(), fc.integer({ min: -500, max: 500 }), (base, seed, dx) => {
        const next = clone(base);
        const shuffle = <T>(list: T[] | undefined) =>
          list?.sort((a, b) => ((JSON.stringify(a).length * 31 + seed) % 7) - ((JSON.stringify(b).length * 31 + seed) % 7));
        for (const a of next.automations ?? []) {
          for (const n of a.document.graph.nodes) n.position = { x: (n.position?.x ?? 0) + dx, y: (n.position?.y ?? 0) - dx };
          shuffle(a.document.graph.nodes);
          shuffle(a.document.graph.edges);
        }
        for (const kind of ['automations', 'smartLists', 'messageTemplates', 'pipelines', 'resources', 'assets'] as const)
          shuffle(next[kind] as unknown[] | undefined);
        const d = diffPacks(base, next);
        expect(d.items).toEqual([]);
        expect(d.fields).toEqual([]);
      }),
      { numRuns: 50 },
    );
  });

  it('every removed item is added back by the reverse diff', () => {
    const [a, b] = [fixture('releases/buyer-lead-1.0.0.json'), fixture('releases/buyer-lead-1.1.0.json')];
    const forward = diffPacks(a, b).items;
    const backward = diffPacks(b, a).items;
    const flip = { added: 'removed', removed: 'added', changed: 'changed' } as const;
    expect(backward.map((i) => `${i.kind}/${i.key}/${i.change}`).sort()).toEqual(
      forward.map((i) => `${i.kind}/${i.key}/${flip[i.change]}`).sort(),
    );
  });
});
