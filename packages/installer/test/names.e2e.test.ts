// Names, keys and references of two items (or two packs) that could be taken for one another,
// against the real server: each workspace object is adopted once; the keys the installer makes
// for what it creates never meet a pack's own keys.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Pack } from '@setup-pack/core';
import { exportWorkspace, install, planInstall, readLedger, uninstall, type WorkspaceClient } from '../src/index.js';
import { cli, clientFor, useServer } from './harness.js';

const server = useServer();
const STAMP = '2026-11-22T12:00:00Z';

async function fresh(): Promise<{ c: WorkspaceClient; env: Record<string, string> }> {
  const ws = await server().workspace();
  return { c: clientFor(server(), ws.key), env: { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key } };
}

function files(packs: Record<string, Pack>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sp-names-'));
  for (const [name, pack] of Object.entries(packs)) writeFileSync(join(dir, name), JSON.stringify(pack, null, 2));
  return dir;
}

const all = (c: WorkspaceClient, path: string) => c.listAll<any>(path);

const packOf = (packId: string, extra: Partial<Pack>): Pack => ({
  format: 'service.setup-pack',
  schemaVersion: 2,
  packId,
  name: `Pack ${packId.slice(-2)}`,
  version: '1.0.0',
  ...extra,
});

describe('two pack items whose names differ only in case or spacing', () => {
  const pack = packOf('c0ffee00-1a2b-4c3d-9e4f-0000000000a1', {
    resources: [
      { key: 'hot-a', kind: 'tag', name: 'Hot' },
      { key: 'hot-b', kind: 'tag', name: 'hot ' },
    ],
  });

  it('installed where the workspace has "HOT": the first (by key) adopts it, the second is created; re-plans to nothing; uninstall leaves HOT', async () => {
    const { c, env } = await fresh();
    const hot = await c.post<any>('/v1/tags', { name: 'HOT' });
    const dir = files({ 'pack.json': pack });

    const plan = await cli(['plan', 'pack.json'], env, dir);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/^ {2}= resource hot-a "Hot" \(existing workspace object with the same name\)$/m);
    expect(plan.stdout).toMatch(/^ {2}\+ resource hot-b "hot " \(new\)$/m);

    expect((await cli(['install', 'pack.json'], env, dir)).code).toBe(0);
    const tags = await all(c, '/v1/tags');
    expect(tags.map((t) => t.name).sort()).toEqual(['HOT', 'hot ']);
    const ledger = (await readLedger(c, pack.packId))!.ledger;
    expect(ledger.items['resource:hot-a']).toMatchObject({ workspaceId: hot.id, owned: false });
    const b = ledger.items['resource:hot-b'];
    expect(b.owned).toBe(true);
    expect(b.workspaceId).not.toBe(hot.id);

    const again = await cli(['plan', 'pack.json', '--detailed-exitcode'], env, dir);
    expect(again.code).toBe(0);

    expect((await cli(['uninstall', pack.packId], env, dir)).code).toBe(0);
    expect((await all(c, '/v1/tags')).map((t) => t.id)).toEqual([hot.id]);
  });

  it('the order of the items in the pack does not change which one adopts', async () => {
    const { c } = await fresh();
    const hot = await c.post<any>('/v1/tags', { name: 'HOT' });
    const flipped = { ...pack, resources: [...pack.resources!].reverse() };
    const { plan } = await planInstall(c, flipped);
    expect(plan.steps.map((s) => `${s.key} ${s.action} ${s.workspaceId ?? ''}`.trim())).toEqual([`hot-a adopt ${hot.id}`, 'hot-b create']);
  });
});

describe('two smart lists of one name and content', () => {
  it('where the workspace has one such list: the first (by key) adopts it, the second is created', async () => {
    const { c } = await fresh();
    const filters = { version: 2, root: { type: 'and', children: [] } } as const;
    const theirs = await c.post<any>('/v1/smart-lists', { name: 'Hot', filters });
    const pack = packOf('c0ffee00-1a2b-4c3d-9e4f-0000000000a2', {
      smartLists: [
        { key: 'list-b', name: 'Hot', filters },
        { key: 'list-a', name: 'Hot', filters },
      ],
    });
    const r = await install(c, pack);
    expect(r.plan.steps.map((s) => `${s.key} ${s.action}`)).toEqual(['list-a adopt', 'list-b create']);
    const lists = await all(c, '/v1/smart-lists');
    expect(lists).toHaveLength(2);
    const ledger = (await readLedger(c, pack.packId))!.ledger;
    expect(ledger.items['smartList:list-a']).toMatchObject({ workspaceId: theirs.id, owned: false });
    expect(ledger.items['smartList:list-b'].workspaceId).not.toBe(theirs.id);
    expect((await planInstall(c, pack)).plan.hasChanges).toBe(false);
  });
});

describe('a pack resource keyed like the resource the installer creates for a reference', () => {
  // The pack carries a tag keyed "@ref/tag/hot"; its automation also uses tag "hot", which it does
  // not carry, so the installer creates that tag. Two items, two tags, whatever the keys look like.
  const pack = packOf('c0ffee00-1a2b-4c3d-9e4f-0000000000a3', {
    resources: [{ key: '@ref/tag/hot', kind: 'tag', name: 'Pack hot' }],
    automations: [
      {
        key: 'tagger',
        document: {
          format: 'service.automation-template',
          version: 1,
          name: 'Tagger',
          graph: {
            nodes: [
              { id: 't', kind: 'trigger.contact_created', config: {} },
              { id: 'a', kind: 'action.add_tag', config: { tag_id: 'hot' } },
              { id: 'b', kind: 'action.add_tag', config: { tag_id: '@ref/tag/hot' } },
            ],
            edges: [
              { id: 'e1', source: 't', target: 'a' },
              { id: 'e2', source: 'a', target: 'b' },
            ],
          },
          references: [
            { type: 'tag', id: 'hot', name: 'Hot' },
            { type: 'tag', id: '@ref/tag/hot' },
          ],
        },
      },
    ],
  });

  it('installs both tags, binds each block to its own, re-plans to nothing, exports back and uninstalls both', async () => {
    const { c, env } = await fresh();
    const dir = files({ 'pack.json': pack });
    const plan = await cli(['plan', 'pack.json'], env, dir);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/Plan: 3 to create/);

    expect((await cli(['install', 'pack.json'], env, dir)).code).toBe(0);
    const tags = await all(c, '/v1/tags');
    expect(tags.map((t) => t.name).sort()).toEqual(['Hot', 'Pack hot']);
    const id = (name: string) => tags.find((t) => t.name === name).id;
    const [auto] = await all(c, '/v1/automations');
    const got = await c.get<any>(`/v1/automations/${auto.id}`);
    const doc = got.draft_document ?? got.document;
    const config = (n: string) => doc.graph.nodes.find((x: any) => x.id === n).config.tag_id;
    expect([config('a'), config('b')]).toEqual([id('Hot'), id('Pack hot')]);

    const ledger = (await readLedger(c, pack.packId))!.ledger;
    expect(
      Object.values(ledger.items)
        .filter((it) => it.collection === 'tags')
        .map((it) => it.workspaceId)
        .sort(),
    ).toEqual([id('Hot'), id('Pack hot')].sort());
    expect((await cli(['plan', 'pack.json', '--detailed-exitcode'], env, dir)).code).toBe(0);

    const r = await exportWorkspace(c, { packId: pack.packId, exportedAt: STAMP });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(r.pack.resources!.map((x) => `${x.key} ${x.name}`)).toEqual(['@ref/tag/hot Pack hot']);
    expect(r.pack.automations![0].document.references).toEqual(pack.automations![0].document.references);

    await uninstall(c, pack.packId);
    expect(await all(c, '/v1/tags')).toEqual([]);
  });
});

describe('a reference named like a resource the install carries or creates', () => {
  const auto = (refs: { id: string; name: string }[]) => ({
    key: 'tagger',
    document: {
      format: 'service.automation-template' as const,
      version: 1 as const,
      name: 'Tagger',
      graph: {
        nodes: [
          { id: 't', kind: 'trigger.contact_created', config: {} },
          ...refs.map((r, i) => ({ id: `a${i}`, kind: 'action.add_tag', config: { tag_id: r.id } })),
        ],
        edges: refs.map((_, i) => ({ id: `e${i}`, source: i ? `a${i - 1}` : 't', target: `a${i}` })),
      },
      references: refs.map((r) => ({ type: 'tag' as const, ...r })),
    },
  });
  const blockTags = async (c: WorkspaceClient) => {
    const [a] = await all(c, '/v1/automations');
    const got = await c.get<any>(`/v1/automations/${a.id}`);
    return (got.draft_document ?? got.document).graph.nodes
      .filter((n: any) => n.kind === 'action.add_tag')
      .map((n: any) => n.config.tag_id);
  };
  // Another pack whose automation names tag "Hot": it binds by name only while the workspace has one.
  const reader = packOf('c0ffee00-1a2b-4c3d-9e4f-0000000000b9', { automations: [{ ...auto([{ id: 'x', name: 'Hot' }]), key: 'reader' }] });

  it('a pack that carries tag "Hot" and uses tag "hot" ("Hot") it does not carry makes one tag, as an upgrade that adds the automation does', async () => {
    const pack = packOf('c0ffee00-1a2b-4c3d-9e4f-0000000000b1', {
      resources: [{ key: 'tag-hot', kind: 'tag', name: 'Hot' }],
      automations: [auto([{ id: 'hot', name: 'Hot' }])],
    });
    const { c, env } = await fresh();
    const dir = files({ 'pack.json': pack, 'reader.json': reader });
    expect((await cli(['install', 'pack.json'], env, dir)).code).toBe(0);
    const tags = await all(c, '/v1/tags');
    expect(tags.map((t) => t.name)).toEqual(['Hot']);
    expect(await blockTags(c)).toEqual([tags[0].id]);
    expect((await cli(['plan', 'pack.json', '--detailed-exitcode'], env, dir)).code).toBe(0);
    const other = await cli(['plan', 'reader.json'], env, dir);
    expect(other.stderr + other.stdout).not.toMatch(/matches 2 workspace objects/);
    expect(other.code).toBe(0);
    // The block gets back the id its automation wrote, not the key of the pack's tag it is bound to.
    const r = await exportWorkspace(c, { packId: pack.packId, exportedAt: STAMP });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(r.pack.resources).toEqual(pack.resources);
    const doc = r.pack.automations![0].document;
    expect(doc.references).toEqual([{ type: 'tag', id: 'hot', name: 'Hot' }]);
    expect(doc.graph.nodes.filter((n) => n.kind === 'action.add_tag').map((n) => n.config!.tag_id)).toEqual(['hot']);
    await uninstall(c, pack.packId);
    expect(await all(c, '/v1/tags')).toEqual([]);
  });

  it('two references "Hot" and "hot" of one pack, neither in the workspace, make one tag that both blocks use', async () => {
    const pack = packOf('c0ffee00-1a2b-4c3d-9e4f-0000000000b2', {
      automations: [
        auto([
          { id: 'hot', name: 'Hot' },
          { id: 'hot-2', name: 'hot' },
        ]),
      ],
    });
    const { c, env } = await fresh();
    const dir = files({ 'pack.json': pack, 'reader.json': reader });
    expect((await cli(['install', 'pack.json'], env, dir)).code).toBe(0);
    const tags = await all(c, '/v1/tags');
    expect(tags.map((t) => t.name)).toEqual(['Hot']);
    expect(await blockTags(c)).toEqual([tags[0].id, tags[0].id]);
    expect((await cli(['plan', 'pack.json', '--detailed-exitcode'], env, dir)).code).toBe(0);
    expect((await cli(['plan', 'reader.json'], env, dir)).code).toBe(0);
    // One object, one id in the stored graph: the export gives each block back the id the pack
    // wrote there, and both references, named as the workspace names the tag (docs/export.md).
    const r = await exportWorkspace(c, { packId: pack.packId, exportedAt: STAMP });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const doc = r.pack.automations![0].document;
    expect(doc.references).toEqual([
      { type: 'tag', id: 'hot', name: 'Hot' },
      { type: 'tag', id: 'hot-2', name: 'Hot' },
    ]);
    expect(doc.graph.nodes.filter((n) => n.kind === 'action.add_tag').map((n) => n.config!.tag_id)).toEqual(['hot', 'hot-2']);
    await uninstall(c, pack.packId);
    expect(await all(c, '/v1/tags')).toEqual([]);
  });
});

describe('an object a release drops that its own references are bound to', () => {
  it('install --prune keeps the tag 1.0.0 carried when 1.1.0 uses it by name instead, and says why', async () => {
    const v1 = packOf('c0ffee00-1a2b-4c3d-9e4f-0000000000c1', { resources: [{ key: 'tag-hot', kind: 'tag', name: 'Hot' }] });
    const v2: Pack = {
      ...v1,
      version: '1.1.0',
      resources: [],
      automations: [
        {
          key: 'tagger',
          document: {
            format: 'service.automation-template',
            version: 1,
            name: 'Tagger',
            graph: {
              nodes: [
                { id: 't', kind: 'trigger.contact_created', config: {} },
                { id: 'a', kind: 'action.add_tag', config: { tag_id: 'hot' } },
              ],
              edges: [{ id: 'e', source: 't', target: 'a' }],
            },
            references: [{ type: 'tag', id: 'hot', name: 'Hot' }],
          },
        },
      ],
    };
    const { c, env } = await fresh();
    const dir = files({ 'v1.json': v1, 'v2.json': v2 });
    expect((await cli(['install', 'v1.json'], env, dir)).code).toBe(0);
    const [hot] = await all(c, '/v1/tags');

    const plan = await cli(['plan', 'v2.json', '--prune'], env, dir);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/^ {2}= resource tag-hot "Hot" \(gone from the release; used by tag hot of this release: kept\)$/m);
    // --prune was asked to remove it: the warning says why it stays.
    expect(plan.stdout.split('\n')).toContain(
      'warning: resource tag-hot "Hot" is gone from the release and --prune keeps it: tag hot ("Hot"), a reference of this release, is bound to it (by name), so the release still uses it [plan/prune-kept]',
    );
    expect((await cli(['install', 'v2.json', '--prune'], env, dir)).code).toBe(0);
    expect((await all(c, '/v1/tags')).map((t) => t.id)).toEqual([hot.id]);
    const [a] = await all(c, '/v1/automations');
    const got = await c.get<any>(`/v1/automations/${a.id}`);
    expect((got.draft_document ?? got.document).graph.nodes.find((n: any) => n.id === 'a').config.tag_id).toBe(hot.id);
    expect((await cli(['plan', 'v2.json', '--prune', '--detailed-exitcode'], env, dir)).code).toBe(0);

    await uninstall(c, v1.packId);
    expect(await all(c, '/v1/tags')).toEqual([]);
  });
});

describe('a reference by another id named like an item the pack carries (template, smart list, automation, pipeline, deal stage)', () => {
  // The pack's own items, and one automation naming each of them by an id the pack does not use.
  const pack = packOf('c0ffee00-1a2b-4c3d-9e4f-0000000000d1', {
    messageTemplates: [{ key: 'tpl-welcome', name: 'Welcome text', channel: 'sms', body: 'Hi {{contact.first_name}}' }],
    smartLists: [
      {
        key: 'list-buyers',
        name: 'Buyers',
        filters: { version: 2, root: { type: 'condition', field: 'created_at', operator: 'within_last_days', value: 7 } },
      },
    ],
    pipelines: [
      {
        key: 'pipe',
        name: 'Sales',
        stages: [
          { key: 'new', name: 'New', probability: 10 },
          { key: 'won', name: 'Won', stageType: 'CLOSED_WON', probability: 100 },
          { key: 'lost', name: 'Lost', stageType: 'CLOSED_LOST', probability: 0 },
        ],
      },
    ],
    automations: [
      {
        key: 'helper',
        document: {
          format: 'service.automation-template',
          version: 1,
          name: 'Helper',
          graph: {
            nodes: [
              { id: 't', kind: 'trigger.manual' },
              { id: 'n', kind: 'action.notify', config: { message: 'hi' } },
            ],
            edges: [{ id: 'e', source: 't', target: 'n' }],
          },
        },
      },
      {
        key: 'main',
        document: {
          format: 'service.automation-template',
          version: 1,
          name: 'Main',
          graph: {
            nodes: [
              { id: 't', kind: 'trigger.schedule', config: { cron: '0 9 * * 1', smart_list_id: 'old-list' } },
              { id: 's', kind: 'action.send_sms', config: { template_id: 'old-welcome' } },
              { id: 'd', kind: 'action.create_deal', config: { pipeline_id: 'old-pipe', stage_id: 'old-new', name: 'Deal' } },
              { id: 'r', kind: 'action.run_automation', config: { automation_id: 'old-helper' } },
            ],
            edges: [
              { id: 'e1', source: 't', target: 's' },
              { id: 'e2', source: 's', target: 'd' },
              { id: 'e3', source: 'd', target: 'r' },
            ],
          },
          references: [
            { type: 'smart_list', id: 'old-list', name: 'buyers' },
            { type: 'email_template', id: 'old-welcome', name: 'Welcome Text' },
            { type: 'pipeline', id: 'old-pipe', name: 'Sales' },
            { type: 'deal_stage', id: 'old-new', name: 'New' },
            { type: 'automation', id: 'old-helper', name: 'Helper' },
          ],
        },
      },
    ],
  });

  it('installs into an empty workspace bound to those items, as a re-plan after the install binds them; re-plans to nothing and exports back the same', async () => {
    const { c, env } = await fresh();
    const dir = files({ 'pack.json': pack });
    const first = await cli(['install', 'pack.json'], env, dir);
    expect(first.stderr + first.stdout).not.toMatch(/not in the pack/);
    expect(first.code).toBe(0);
    const [tpl] = await all(c, '/v1/message-templates');
    const [list] = await all(c, '/v1/smart-lists');
    const [pipe] = await all(c, '/v1/pipeline-details');
    const autos = await all(c, '/v1/automations');
    const helper = autos.find((a) => a.name === 'Helper');
    const main = await c.get<any>(`/v1/automations/${autos.find((a) => a.name === 'Main').id}`);
    const cfg = (id: string) => (main.draft_document ?? main.document).graph.nodes.find((n: any) => n.id === id).config;
    expect(cfg('t').smart_list_id).toBe(list.id);
    expect(cfg('s').template_id).toBe(tpl.id);
    expect(cfg('d').pipeline_id).toBe(pipe.id);
    expect(cfg('d').stage_id).toBe(pipe.stages.find((s: any) => s.name === 'New').id);
    expect(cfg('r').automation_id).toBe(helper.id);
    expect((await cli(['plan', 'pack.json', '--detailed-exitcode'], env, dir)).code).toBe(0);
    const r = await exportWorkspace(c, { packId: pack.packId, exportedAt: STAMP });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const doc = r.pack.automations!.find((a) => a.key === 'main')!.document;
    expect(doc.graph).toEqual(pack.automations![1].document.graph);
    await uninstall(c, pack.packId);
    expect(await all(c, '/v1/automations')).toEqual([]);
  });

  it('two items of the pack with that name: the plan says the reference is ambiguous, naming both', async () => {
    const two: Pack = {
      ...pack,
      packId: 'c0ffee00-1a2b-4c3d-9e4f-0000000000d2',
      messageTemplates: [...pack.messageTemplates!, { key: 'tpl-welcome-2', name: 'welcome text', channel: 'sms', body: 'Hello' }],
    };
    const { env } = await fresh();
    const dir = files({ 'pack.json': two });
    const p = await cli(['plan', 'pack.json'], env, dir);
    expect(p.code).toBe(1);
    expect(p.stdout + p.stderr).toMatch(
      /email_template "Welcome Text" \(old-welcome\) matches 2 items of the pack by name \(tpl-welcome, tpl-welcome-2\)/,
    );
  });
});
