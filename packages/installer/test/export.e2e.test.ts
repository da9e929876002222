// Export over real HTTP against the real server: install(P) then export(P.packId) gives back P
// (up to the documented normalisations); an export installed back plans zero writes; a snapshot
// (--all) of A installed into a fresh B exports equal to A's up to workspace ids.
import { describe, expect, it } from 'vitest';
import { canonicalize, roundTripForm, type Pack } from '@setup-pack/core';
import { exportWorkspace, install, LedgerLock, planInstall, readLedger, type WorkspaceClient } from '../src/index.js';
import { clientFor, loadPack, upToWorkspaceIds, useServer } from './harness.js';

const server = useServer();
const FIXTURES = [
  'releases/buyer-lead-1.0.0.json',
  'releases/buyer-lead-1.1.0.json',
  'valid/buyer-lead-starter.json',
  'valid/listing-marketing.json',
];
const STAMP = '2026-11-22T12:00:00Z';

async function fresh(): Promise<WorkspaceClient> {
  const ws = await server().workspace();
  return clientFor(server(), ws.key);
}

const errorsOf = (d: { severity: string }[]) => d.filter((x) => x.severity === 'error');

describe('export --pack-id: the round trip install → export', () => {
  for (const file of FIXTURES) {
    it(`${file}: export(install(P)) equals P in canonical form, validates, and installs back with zero writes`, async () => {
      const pack = loadPack(file);
      const c = await fresh();
      await install(c, pack);
      const r = await exportWorkspace(c, { packId: pack.packId, exportedAt: STAMP });
      expect(errorsOf(r.diagnostics)).toEqual([]);
      expect(r.notes).toEqual([]);
      const { exportedAt, ...exported } = r.pack;
      expect(exportedAt).toBe(STAMP);
      expect(canonicalize(exported)).toEqual(roundTripForm(pack));
      const { plan } = await planInstall(c, r.pack);
      expect(plan.ok).toBe(true);
      expect(plan.writes).toBe(0);
      expect(r.requests).toBe(r.minimumRequests);
    });
  }

  it('maps two reference ids bound to one member back to the id each automation wrote', async () => {
    const pack = structuredClone(loadPack('releases/buyer-lead-1.0.0.json'));
    const old = pack.automations!.find((a) => a.key === 'old-reminder')!.document;
    old.graph.nodes[1].config = { ...old.graph.nodes[1].config, user_id: 'usr_jordan_again' };
    old.references = [...(old.references ?? []), { type: 'user', id: 'usr_jordan_again', name: 'Jordan Lee' }];
    const c = await fresh();
    await install(c, pack);
    const r = await exportWorkspace(c, { packId: pack.packId, exportedAt: STAMP });
    const { exportedAt: _at, ...exported } = r.pack;
    expect(canonicalize(exported)).toEqual(roundTripForm(pack));
  });

  describe('two references of one automation bound to one workspace object', () => {
    // Each block names its tag, template, stage or member by its own id: the pack's key, or another
    // reference bound to the same object by name or by --bind. The install writes one workspace id
    // in both places; the export gives each place back the id the pack wrote there.
    const pack: Pack = {
      format: 'service.setup-pack',
      schemaVersion: 2,
      packId: 'c0ffee00-1a2b-4c3d-9e4f-0000000000e1',
      name: 'Two ids, one object',
      version: '1.0.0',
      resources: [{ key: 'tag-hot', kind: 'tag', name: 'Hot' }],
      messageTemplates: [{ key: 'tpl-welcome', name: 'Welcome text', channel: 'sms', body: 'Hi {{contact.first_name}}' }],
      pipelines: [
        {
          key: 'pipe',
          name: 'Buyers',
          stages: [
            { key: 'new', name: 'New', probability: 10 },
            { key: 'won', name: 'Won', stageType: 'CLOSED_WON', probability: 100 },
            { key: 'lost', name: 'Lost', stageType: 'CLOSED_LOST', probability: 0 },
          ],
        },
      ],
      automations: [
        {
          key: 'main',
          document: {
            format: 'service.automation-template',
            version: 1,
            name: 'Main',
            graph: {
              nodes: [
                { id: 't', kind: 'trigger.contact_created', config: {} },
                { id: 'tag-1', kind: 'action.add_tag', config: { tag_id: 'hot' } },
                { id: 'tag-2', kind: 'action.add_tag', config: { tag_id: 'tag-hot' } },
                { id: 'sms-1', kind: 'action.send_sms', config: { template_id: 'welcome' } },
                { id: 'sms-2', kind: 'action.send_sms', config: { template_id: 'tpl-welcome' } },
                { id: 'deal-1', kind: 'action.create_deal', config: { pipeline_id: 'pipe', stage_id: 'first', name: 'Deal' } },
                { id: 'deal-2', kind: 'action.create_deal', config: { pipeline_id: 'pipe', stage_id: 'new', name: 'Deal' } },
                { id: 'task-1', kind: 'action.create_task', config: { title: 'Call', due_in_days: 1, assignee_id: 'agent' } },
                { id: 'task-2', kind: 'action.create_task', config: { title: 'Call again', due_in_days: 2, assignee_id: 'usr_jordan' } },
              ],
              edges: ['tag-1', 'tag-2', 'sms-1', 'sms-2', 'deal-1', 'deal-2', 'task-1', 'task-2'].map((id, i, all) => ({
                id: `e${i}`,
                source: i ? all[i - 1] : 't',
                target: id,
              })),
            },
            references: [
              { type: 'tag', id: 'hot', name: 'Hot' },
              { type: 'tag', id: 'tag-hot' },
              { type: 'email_template', id: 'welcome', name: 'Welcome text' },
              { type: 'email_template', id: 'tpl-welcome' },
              { type: 'pipeline', id: 'pipe' },
              { type: 'deal_stage', id: 'first', name: 'New' },
              { type: 'deal_stage', id: 'new' },
              { type: 'user', id: 'agent', name: 'Jordan Lee' },
              { type: 'user', id: 'usr_jordan', name: 'Jordan Lee' },
            ],
          },
        },
      ],
    };

    it('export gives each block the id the pack wrote there (bound by name, and by --bind), equal to the pack; re-plans to nothing', async () => {
      const ws = await server().workspace();
      const c = clientFor(server(), ws.key);
      const jordan = (await c.listAll<any>('/v1/members')).find((m) => m.name === 'Jordan Lee');
      // One member reference is bound by --bind, the other by name: both to Jordan Lee.
      const r0 = await install(c, pack, { bindings: { 'user:agent': jordan.id } });
      expect(r0.plan.ok).toBe(true);
      const [auto] = await c.listAll<any>('/v1/automations');
      const got = await c.get<any>(`/v1/automations/${auto.id}`);
      const cfg = (n: string) => (got.draft_document ?? got.document).graph.nodes.find((x: any) => x.id === n).config;
      // One workspace object behind each pair.
      expect(cfg('tag-1').tag_id).toBe(cfg('tag-2').tag_id);
      expect(cfg('sms-1').template_id).toBe(cfg('sms-2').template_id);
      expect(cfg('deal-1').stage_id).toBe(cfg('deal-2').stage_id);
      expect(cfg('task-1').assignee_id).toBe(jordan.id);
      expect(cfg('task-2').assignee_id).toBe(jordan.id);

      const r = await exportWorkspace(c, { packId: pack.packId, exportedAt: STAMP });
      expect(errorsOf(r.diagnostics)).toEqual([]);
      const { exportedAt: _at, ...exported } = r.pack;
      expect(canonicalize(exported)).toEqual(roundTripForm(pack));
      expect((await planInstall(c, r.pack)).plan.writes).toBe(0);
    });

    it('a ledger written before the places were recorded: its graph cannot tell which place had which id, so export gives one id to both; installing the same release again records them (the ledger alone, no item write), and the export equals the pack', async () => {
      const ws = await server().workspace();
      const c = clientFor(server(), ws.key);
      await install(c, pack);
      // The ledger as an install made before source.referencePlaces wrote it.
      const { ledger } = (await readLedger(c, pack.packId))!;
      const { referencePlaces, ...oldSource } = ledger.source!;
      expect(referencePlaces).toBeDefined();
      const lock = await LedgerLock.acquire(c, pack.packId, 'old-installer', 60);
      await lock.write({ ...ledger, source: oldSource });
      await lock.release();
      const before = await exportWorkspace(c, { packId: pack.packId, exportedAt: STAMP });
      const nodes = before.pack.automations![0].document.graph.nodes;
      const tagOf = (n: string) => nodes.find((x) => x.id === n)!.config!.tag_id;
      expect(tagOf('tag-1')).toBe(tagOf('tag-2'));

      const again = await install(c, pack);
      expect(again.written).toBe(0);
      expect(again.plan.hasChanges).toBe(true);
      expect((await readLedger(c, pack.packId))!.ledger.source!.referencePlaces).toEqual(referencePlaces);
      const r = await exportWorkspace(c, { packId: pack.packId, exportedAt: STAMP });
      const { exportedAt: _at, ...exported } = r.pack;
      expect(canonicalize(exported)).toEqual(roundTripForm(pack));
      // And from then on the same release plans nothing.
      expect((await planInstall(c, pack)).plan.hasChanges).toBe(false);
    });

    it('a block the user re-pointed in the workspace is exported as the workspace has it now', async () => {
      const ws = await server().workspace();
      const c = clientFor(server(), ws.key);
      await install(c, pack);
      const other = await c.post<any>('/v1/tags', { name: 'Cold' });
      const [auto] = await c.listAll<any>('/v1/automations');
      const got = await c.get<any>(`/v1/automations/${auto.id}`);
      const doc = structuredClone(got.draft_document ?? got.document);
      doc.graph.nodes.find((x: any) => x.id === 'tag-1').config.tag_id = other.id;
      await c.patch(`/v1/automations/${auto.id}`, { document: doc });
      const r = await exportWorkspace(c, { packId: pack.packId, exportedAt: STAMP });
      expect(errorsOf(r.diagnostics)).toEqual([]);
      const out = r.pack.automations![0].document;
      const tagOf = (n: string) => out.graph.nodes.find((x) => x.id === n)!.config!.tag_id;
      // tag-1 now names a tag the pack does not carry: a reference named as the workspace names it.
      expect(tagOf('tag-1')).not.toBe('hot');
      expect(out.references).toContainEqual({ type: 'tag', id: tagOf('tag-1') as string, name: 'Cold' });
      expect(tagOf('tag-2')).toBe('tag-hot');
      // The rest is as the pack wrote it.
      expect(out.graph.nodes.find((x) => x.id === 'sms-1')!.config!.template_id).toBe('welcome');
      expect(out.graph.nodes.find((x) => x.id === 'task-1')!.config!.assignee_id).toBe('agent');
    });
  });

  it('a ledger of an install made before created resources had ids of their own (resource:@ref/tag/hot) exports the created tag as the reference it was made for', async () => {
    const pack: Pack = {
      format: 'service.setup-pack',
      schemaVersion: 2,
      packId: 'c0ffee00-1a2b-4c3d-9e4f-0000000000e2',
      name: 'Old ledger',
      version: '1.0.0',
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
    const c = await fresh();
    await install(c, pack);
    // The ledger as such an install wrote it, through the API: the tag under the pack key namespace.
    const { ledger } = (await readLedger(c, pack.packId))!;
    const { 'reference:tag:hot': created, ...rest } = ledger.items;
    expect(created).toBeDefined();
    const old = { ...ledger, items: { ...rest, 'resource:@ref/tag/hot': { ...created, key: '@ref/tag/hot' } } };
    const lock = await LedgerLock.acquire(c, pack.packId, 'old-installer', 60);
    await lock.write(old);
    await lock.release();

    const r = await exportWorkspace(c, { packId: pack.packId, exportedAt: STAMP });
    expect(errorsOf(r.diagnostics)).toEqual([]);
    const { exportedAt: _at, ...exported } = r.pack;
    expect(canonicalize(exported)).toEqual(roundTripForm(pack));
    // The next install moves the entry, with no write, and exports the same.
    expect((await install(c, pack)).written).toBe(0);
    expect(Object.keys((await readLedger(c, pack.packId))!.ledger.items)).toContain('reference:tag:hot');
    const again = await exportWorkspace(c, { packId: pack.packId, exportedAt: STAMP });
    expect(again.pack).toEqual(r.pack);
  });

  it('exports edits made in the workspace as they are now, with the ids mapped back to keys', async () => {
    const pack = loadPack('releases/buyer-lead-1.0.0.json');
    const c = await fresh();
    await install(c, pack);
    const templates = await c.listAll<any>('/v1/message-templates');
    const tpl = templates.find((t) => t.name === 'Welcome text');
    await c.patch(`/v1/message-templates/${tpl.id}`, { body: 'Tuned in the workspace {{contact.first_name}}' });
    const r = await exportWorkspace(c, { packId: pack.packId, version: '1.0.1', exportedAt: STAMP });
    expect(r.pack.version).toBe('1.0.1');
    const exported = r.pack.messageTemplates!.find((t) => t.name === 'Welcome text')!;
    expect(exported.key).toBe(pack.messageTemplates!.find((t) => t.name === 'Welcome text')!.key);
    expect(exported.body).toBe('Tuned in the workspace {{contact.first_name}}');
    expect(JSON.stringify(r.pack.automations)).not.toMatch(/"[a-z]{2,5}_[0-9a-f]{24}"/);
  });

  it('names what the user added in the workspace: a stage gets a key, a member an automation now uses is listed by name', async () => {
    const pack = loadPack('releases/buyer-lead-1.0.0.json');
    const c = await fresh();
    await install(c, pack);
    const avery = (await c.listAll<any>('/v1/members')).find((m) => m.name === 'Avery Brooks');
    const auto = (await c.listAll<any>('/v1/automations')).find((a) => a.name === 'Old reminder');
    const doc = structuredClone(auto.document);
    doc.graph.nodes[1].config = { ...doc.graph.nodes[1].config, user_id: avery.id };
    await c.patch(`/v1/automations/${auto.id}`, { document: doc });
    const pipeline = (await c.listAll<any>('/v1/pipeline-details')).find((p) => p.name === pack.pipelines![0].name);
    const stages = pipeline.stages.map((st: any) => ({
      id: st.id,
      name: st.name,
      type: st.type,
      color: st.color,
      probability: st.probability,
    }));
    stages.splice(1, 0, { name: 'Pre-approved', type: 'OPEN' });
    await c.patch(`/v1/pipelines/${pipeline.id}`, { stages });

    const r = await exportWorkspace(c, { packId: pack.packId, exportedAt: STAMP });
    expect(errorsOf(r.diagnostics)).toEqual([]);
    const old = r.pack.automations!.find((a) => a.key === 'old-reminder')!.document;
    expect(old.graph.nodes[1].config!.user_id).toBe('user-avery-brooks');
    expect(old.references).toContainEqual({ type: 'user', id: 'user-avery-brooks', name: 'Avery Brooks' });
    const p = r.pack.pipelines![0];
    expect(p.stages.map((st) => st.key)).toEqual(['new', 'buyer-pipeline-pre-approved', 'showing', 'offer', 'won', 'lost']);
    // Installed back: nothing to write (the user's edits are the workspace's already).
    const { plan } = await planInstall(c, r.pack);
    expect(plan.ok).toBe(true);
    expect(plan.writes).toBe(0);
  });

  it('paces its reads by the rate limit: no 429s, every page read once', async () => {
    const ws = await server().workspace({ rateLimit: 10 });
    let status429 = 0;
    const c = clientFor(server(), ws.key, {
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (res.status === 429) status429++;
        return res;
      },
    });
    const pack = loadPack('valid/listing-marketing.json');
    await install(c, pack);
    const before = server().clock.now().getTime();
    const r = await exportWorkspace(c, { packId: pack.packId, exportedAt: STAMP });
    expect(status429).toBe(0);
    expect(r.requests).toBe(r.minimumRequests);
    expect(r.requests).toBeGreaterThan(10);
    // More requests than one window allows: the client waited for the next window instead of being refused.
    expect(server().clock.now().getTime() - before).toBeGreaterThan(0);
  });

  it('says which pack is not installed', async () => {
    const c = await fresh();
    await expect(exportWorkspace(c, { packId: '11111111-2222-4333-8444-555555555555' })).rejects.toMatchObject({
      status: 404,
      param: 'pack_id',
    });
  });
});

/** A snapshot with the workspace's own addresses and the fresh packId set aside. */
describe('export --all: a workspace set up by hand', () => {
  it('twins (a template, a smart list, a pipeline of one name and one content) keep their keys between workspaces: the one an automation uses is the same in every snapshot', async () => {
    // Export tells objects of one name apart by content; these are the same in content, so which
    // gets `-2` was the order the workspace lists them in (its random ids). Two workspaces listing
    // them in other orders gave the automation's template, list and stage other keys.
    const stages = [
      { key: 'new', name: 'New', probability: 10 },
      { key: 'won', name: 'Won', stageType: 'CLOSED_WON' as const, probability: 100 },
      { key: 'lost', name: 'Lost', stageType: 'CLOSED_LOST' as const, probability: 0 },
    ];
    const filters = { version: 2, root: { type: 'condition', field: 'do_not_contact', operator: 'is_true' } };
    const pack: Pack = {
      format: 'service.setup-pack',
      schemaVersion: 2,
      packId: 'c0ffee00-1a2b-4c3d-9e4f-0000000000e3',
      name: 'Twins',
      version: '1.0.0',
      messageTemplates: ['tpl-a', 'tpl-b'].map((key) => ({ key, name: 'Welcome', channel: 'sms' as const, body: 'Hi' })),
      smartLists: ['list-a', 'list-b'].map((key) => ({ key, name: 'Buyers', filters })),
      pipelines: ['pipe-a', 'pipe-b'].map((key) => ({
        key,
        name: 'Deals',
        stages: stages.map((st) => ({ ...st, key: `${key}-${st.key}` })),
      })),
      automations: [
        {
          key: 'main',
          document: {
            format: 'service.automation-template',
            version: 1,
            name: 'Main',
            graph: {
              nodes: [
                { id: 't', kind: 'trigger.listing_match', config: { smart_list_id: 'list-b' } },
                { id: 'sms', kind: 'action.send_sms', config: { template_id: 'tpl-b' } },
                { id: 'deal', kind: 'action.create_deal', config: { pipeline_id: 'pipe-b', stage_id: 'pipe-b-new', name: 'Deal' } },
              ],
              edges: [
                { id: 'e1', source: 't', target: 'sms' },
                { id: 'e2', source: 'sms', target: 'deal' },
              ],
            },
            references: [
              { type: 'smart_list', id: 'list-b' },
              { type: 'email_template', id: 'tpl-b' },
              { type: 'pipeline', id: 'pipe-b' },
              { type: 'deal_stage', id: 'pipe-b-new' },
            ],
          },
        },
      ],
    };
    // Whether the object the automation uses is listed first of its twins, per kind: what the order of the workspace's ids decided.
    const usedFirst = async (c: WorkspaceClient) => {
      const [auto] = await c.listAll<any>('/v1/automations');
      const nodes = (auto.draft_document ?? auto.document).graph.nodes as { id: string; config: Record<string, string> }[];
      const cfg = (id: string) => nodes.find((n) => n.id === id)!.config;
      const first = async (path: string, id: string) => (await c.listAll<{ id: string }>(path))[0].id === id;
      return [
        await first('/v1/message-templates', cfg('sms').template_id),
        await first('/v1/smart-lists', cfg('t').smart_list_id),
        await first('/v1/pipeline-details', cfg('deal').pipeline_id),
      ];
    };
    const a = await fresh();
    await install(a, pack);
    const first = await exportWorkspace(a, { all: true, exportedAt: STAMP });
    expect(errorsOf(first.diagnostics)).toEqual([]);
    const inA = await usedFirst(a);
    // Snapshots of workspaces made from A's until, for each kind, one lists the twins the other way round.
    const swapped = [false, false, false];
    for (let i = 0; i < 20 && swapped.includes(false); i++) {
      const b = await fresh();
      await install(b, first.pack);
      (await usedFirst(b)).forEach((f, k) => (swapped[k] ||= f !== inA[k]));
      const second = await exportWorkspace(b, { all: true, exportedAt: STAMP });
      expect(upToWorkspaceIds(second.pack)).toEqual(upToWorkspaceIds(first.pack));
    }
    expect(swapped).toEqual([true, true, true]);
  });

  it('snapshot of A installed into a fresh B exports the same pack up to workspace ids; it validates and installs back into A with zero writes', async () => {
    const a = await fresh();
    await install(a, loadPack('valid/buyer-lead-starter.json'));
    await install(a, loadPack('valid/listing-marketing.json'));
    const first = await exportWorkspace(a, { all: true, exportedAt: STAMP });
    expect(errorsOf(first.diagnostics)).toEqual([]);
    expect(first.requests).toBe(first.minimumRequests);
    // Keys are derived from names, the same in every export of the same workspace.
    const again = await exportWorkspace(a, { all: true, exportedAt: STAMP, newPackId: first.pack.packId });
    expect(again.pack).toEqual(first.pack);
    expect(JSON.stringify(first.pack)).not.toMatch(/"[a-z]{2,5}_[0-9a-f]{24}"/);
    // Images: downloaded and embedded; the templates' address is the email image's sourceUrl; the brand keeps its logo.
    const listing = loadPack('valid/listing-marketing.json');
    const hero = first.pack.assets!.find((x) => x.role === 'email_image')!;
    expect(hero).toMatchObject({
      key: 'image-open-house-hero-png',
      data: listing.assets![1].data,
      sha256: listing.assets![1].sha256,
      byteSize: listing.assets![1].byteSize,
    });
    expect(JSON.stringify(first.pack.messageTemplates)).toContain(hero.sourceUrl!);
    expect(first.pack.assets!.find((x) => x.key === 'logo')).toMatchObject({ role: 'logo', data: listing.assets![0].data });
    expect(first.pack.brand).toEqual(listing.brand);

    const b = await fresh();
    await install(b, first.pack);
    const second = await exportWorkspace(b, { all: true, exportedAt: STAMP });
    expect(upToWorkspaceIds(second.pack)).toEqual(upToWorkspaceIds(first.pack));

    // Installed back into A, the snapshot finds every item already there: no writes, no duplicates.
    const { plan } = await planInstall(a, first.pack);
    expect(plan.ok).toBe(true);
    expect(plan.steps.filter((s) => s.write).map((s) => `${s.itemId} ${s.action}`)).toEqual([]);
  });
});
