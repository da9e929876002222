import { describe, expect, it } from 'vitest';
import type { Pack } from '@setup-pack/core';
import { install, InvalidPackError, planInstall, PlanFailedError, readLedger, uninstall, WorkspaceClient } from '../src/index.js';
import { clientFor, countingFetch, loadPack, useServer } from './harness.js';

const v100 = loadPack('releases/buyer-lead-1.0.0.json');
const v110 = loadPack('releases/buyer-lead-1.1.0.json');
const listing = loadPack('valid/listing-marketing.json');

const server = useServer();

const all = (c: WorkspaceClient, path: string) => c.listAll<any>(path);

describe('install against the real workspace server()', () => {
  it('installs both fixture packs: every item present, automations off, references bound, images rewritten', async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    const r1 = await install(c, v100);
    const r2 = await install(c, listing);
    expect(r1.plan.summary.create + r1.plan.summary.adopt).toBe(r1.plan.steps.length);
    expect(r2.plan.summary.create).toBeGreaterThan(0);

    const autos = await all(c, '/v1/automations');
    expect(autos.map((a) => a.name).sort()).toEqual([
      'New lead welcome',
      'Old reminder',
      'Open house invitations',
      'Stage nurture',
      'Weekly seller update',
    ]);
    for (const a of autos) expect(a).toMatchObject({ enabled: false, status: 'off' });

    const members = await all(c, '/v1/members');
    const jordan = members.find((m) => m.name === 'Jordan Lee').id;
    const avery = members.find((m) => m.name === 'Avery Brooks').id;
    const welcome = autos.find((a) => a.name === 'New lead welcome');
    const cfg = (a: any, id: string) => a.document.graph.nodes.find((n: any) => n.id === id).config;
    expect(cfg(welcome, 'task').assignee_id).toBe(jordan);
    const tags = await all(c, '/v1/tags');
    expect(cfg(welcome, 'tag').tag_id).toBe(tags.find((t) => t.name === 'Buyer lead').id);
    // "Zillow" is one of a new workspace's lead sources: adopted, not duplicated.
    const sources = await all(c, '/v1/lead-sources');
    expect(sources.filter((s) => s.name === 'Zillow')).toHaveLength(1);
    expect(cfg(welcome, 'start').lead_source_id).toBe(sources.find((s) => s.name === 'Zillow').id);
    const templates = await all(c, '/v1/message-templates');
    expect(cfg(welcome, 'sms').template_id).toBe(templates.find((t) => t.name === 'Welcome text').id);
    const invite = autos.find((a) => a.name === 'Open house invitations');
    expect(cfg(invite, 'notify').user_id).toBe(avery);
    const lists = await all(c, '/v1/smart-lists');
    expect(cfg(invite, 'match').smart_list_id).toBe(lists.find((l) => l.name === 'Active buyers').id);
    const nurture = autos.find((a) => a.name === 'Stage nurture');
    const pipelines = await all(c, '/v1/pipelines');
    const buyers = pipelines.find((p) => p.name === 'Buyers');
    expect(cfg(nurture, 'deal').pipeline_id).toBe(buyers.id);
    expect(cfg(nurture, 'deal').stage_id).toBe(buyers.stages.find((s: any) => s.name === 'Showing homes').id);

    const media = await all(c, '/v1/media');
    const hero = media.find((m) => m.file_name === 'open-house-hero.png');
    expect(hero.sha256).toBe(listing.assets!.find((a) => a.key === 'open-house-hero')!.sha256);
    const tpl = templates.find((t) => t.name === 'Open house invitation');
    const text = JSON.stringify(tpl);
    expect(text).not.toContain('cdn.example-brokerage.com');
    expect(text.split(hero.url).length - 1).toBe(4);
    const brand = await c.get('/v1/brand');
    expect(brand.fields.name).toBe('Harbor Realty');
    expect(brand.asset_urls.logo).toBe(media.find((m) => m.file_name === 'harbor-logo.png').url);

    const ledger = (await readLedger(c, v100.packId))!.ledger;
    expect(ledger).toMatchObject({ version: '1.0.0', state: 'installed' });
    expect(ledger.bindings['user:usr_8841']).toBe(jordan);
  });

  it('re-installing the same release makes zero write requests', async () => {
    const ws = await server().workspace();
    await install(clientFor(server(), ws.key), v100);
    await install(clientFor(server(), ws.key), listing);
    const counting = countingFetch();
    const c = clientFor(server(), ws.key, { fetch: counting.fetch });
    const r = await install(c, v100);
    const r2 = await install(c, listing);
    expect(r.plan.hasChanges).toBe(false);
    expect(r2.plan.hasChanges).toBe(false);
    expect(counting.writes()).toBe(0);
    expect(counting.counts.GET).toBeGreaterThan(0);
  });

  it('upgrades across the release pair writing only changed items', async () => {
    const ws = await server().workspace();
    await install(clientFor(server(), ws.key), v100);
    const counting = countingFetch();
    const c = clientFor(server(), ws.key, { fetch: counting.fetch });
    const r = await install(c, v110);
    const changed = r.plan.steps
      .filter((s) => s.write)
      .map((s) => `${s.action} ${s.itemId}`)
      .sort();
    expect(changed).toEqual([
      'create automation:deal-won-thanks',
      'create resource:cf-budget',
      'update automation:new-lead-welcome',
      'update automation:nurture-by-stage',
      'update pipeline:buyer-pipeline',
      'update smartList:new-buyer-leads',
      'update template:tpl-follow-up',
    ]);
    // Item writes plus the lock, the ledger at the start and at the end, and the unlock: nothing else.
    expect(counting.writes()).toBe(changed.length + 4);
    const autos = await all(c, '/v1/automations');
    expect(autos.map((a) => a.name).sort()).toEqual(['Deal won thank-you', 'New lead welcome', 'Nurture by stage', 'Old reminder']);
    const ledger = (await readLedger(c, v110.packId))!.ledger;
    expect(ledger.version).toBe('1.1.0');
    expect(ledger.items['automation:old-reminder']).toBeDefined();
    // And the upgraded workspace re-plans to nothing.
    expect((await planInstall(c, v110)).plan.hasChanges).toBe(false);
  });

  it("warns that a tag adopted by name differs from the pack's (its color), and keeps warning while it does", async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    const mine = await c.post<any>('/v1/tags', { name: 'buyer lead', color: '#111111' });
    const r = await install(c, v100);
    const warning = {
      code: 'plan/adopted-differs',
      item: { itemId: 'resource:tag-buyer-lead', kind: 'resource', key: 'tag-buyer-lead', name: 'Buyer lead' },
      message: `resource tag-buyer-lead "Buyer lead" is the workspace's own "buyer lead" (${mine.id}), adopted by name, and differs from the pack's (color): the pack never writes an object it adopted, so the workspace's copy is kept as it is`,
      fields: ['color'],
    };
    expect(r.plan.warnings).toEqual([warning]);
    expect((await all(c, '/v1/tags')).find((t) => t.id === mine.id).color).toBe('#111111');
    expect((await planInstall(c, v100)).plan.warnings).toEqual([
      { ...warning, message: warning.message.replace('adopted by name', 'adopted when the pack was installed') },
    ]);
    // The same color: nothing to say.
    await c.patch(`/v1/tags/${mine.id}`, { color: v100.resources!.find((x) => x.key === 'tag-buyer-lead')!.data!.color });
    expect((await planInstall(c, v100)).plan.warnings).toEqual([]);
  });

  it('reports an item the user edited as a conflict and keeps it', async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    await install(c, v100);
    const templates = await all(c, '/v1/message-templates');
    const follow = templates.find((t) => t.name === 'Follow-up email');
    await c.patch(`/v1/message-templates/${follow.id}`, { body: '<p>My own follow-up</p>' });
    // The user also switched an automation on and edited it: the live version keeps running.
    const autos = await all(c, '/v1/automations');
    const welcome = autos.find((a) => a.name === 'New lead welcome');
    await c.post(`/v1/automations/${welcome.id}/activate`);

    const r = await install(c, v110);
    const step = r.plan.steps.find((s) => s.itemId === 'template:tpl-follow-up')!;
    expect(step).toMatchObject({ action: 'conflict', resolution: 'keep', write: false });
    expect((await c.get(`/v1/message-templates/${follow.id}`)).body).toBe('<p>My own follow-up</p>');
    // An automation that is on gets a staged draft; its live version is untouched.
    const after = await c.get(`/v1/automations/${welcome.id}`);
    expect(after.enabled).toBe(true);
    expect(after.document.graph.nodes.find((n: any) => n.id === 'wait').config.duration).toBe(1);
    expect(after.draft_document.graph.nodes.find((n: any) => n.id === 'wait').config.duration).toBe(2);

    const over = await install(c, v110, { overwrite: true });
    expect(over.plan.steps.find((s) => s.itemId === 'template:tpl-follow-up')).toMatchObject({
      action: 'conflict',
      resolution: 'overwrite',
    });
    expect((await c.get(`/v1/message-templates/${follow.id}`)).name).toBe('Follow-up email (buyers)');
  });

  describe("an upgrade whose automation moves deals to a stage the workspace's copy of the pipeline lacks", () => {
    const stages = [
      { key: 'new', name: 'New' },
      { key: 'won', name: 'Won', stageType: 'CLOSED_WON' as const },
      { key: 'lost', name: 'Lost', stageType: 'CLOSED_LOST' as const },
    ];
    const mover = (stage: string) => ({
      key: 'move',
      document: {
        format: 'service.automation-template' as const,
        version: 1 as const,
        name: 'Move deal',
        graph: {
          nodes: [
            { id: 't', kind: 'trigger.deal_created', config: { pipeline_id: 'deals' } },
            { id: 'm', kind: 'action.move_deal_stage', config: { stage_id: stage } },
          ],
          edges: [{ id: 'e', source: 't', target: 'm' }],
        },
        references: [
          { type: 'pipeline' as const, id: 'deals' },
          { type: 'deal_stage' as const, id: stage },
        ],
      },
    });
    const releases = (packId: string, name: string) => {
      const v1: Pack = {
        format: 'service.setup-pack',
        schemaVersion: 2,
        packId,
        name: 'Stages',
        version: '1.0.0',
        pipelines: [{ key: 'deals', name, stages }],
        automations: [mover('new')],
      };
      // 1.1.0 adds "Under contract" and moves deals there.
      const v2: Pack = {
        ...v1,
        version: '1.1.0',
        pipelines: [{ key: 'deals', name, stages: [stages[0], { key: 'contract', name: 'Under contract' }, ...stages.slice(1)] }],
        automations: [mover('contract')],
      };
      return { v1, v2 };
    };
    const stageOf = async (c: WorkspaceClient, name: string, stage: string) =>
      (await all(c, '/v1/pipeline-details')).find((p) => p.name === name).stages.find((s: any) => s.name === stage)?.id;

    it('kept as edited (a stage added by hand): the plan names the stage and --overwrite, writing nothing; --overwrite installs it', async () => {
      const { v1, v2 } = releases('c0ffee00-1a2b-4c3d-9e4f-000000000041', 'Deals');
      const c = clientFor(server(), (await server().workspace()).key);
      await install(c, v1);
      const pipeline = (await all(c, '/v1/pipeline-details')).find((p) => p.name === 'Deals');
      await c.patch(`/v1/pipelines/${pipeline.id}`, {
        stages: [{ name: 'Inspection', type: 'OPEN' }, ...pipeline.stages.map(({ id, name, type }: any) => ({ id, name, type }))],
      });
      const { plan } = await planInstall(c, v2);
      expect(plan.errors).toEqual([
        {
          code: 'plan/unresolved-reference',
          message:
            'deal_stage contract used by move: pipeline deals ("Deals") has no such stage in the workspace, where it was edited since it was installed and is kept; --overwrite replaces it with the release\'s pipeline, stages included',
          reference: { type: 'deal_stage', id: 'contract', usedBy: ['move'] },
        },
      ]);
      // Before: the install failed with an internal error after recording the run, and every rerun failed alike.
      await expect(install(c, v2)).rejects.toBeInstanceOf(PlanFailedError);
      expect((await readLedger(c, v1.packId))!.ledger).toMatchObject({ version: '1.0.0', state: 'installed' });
      await install(c, v2, { overwrite: true });
      expect((await all(c, '/v1/automations'))[0].document.graph.nodes[1].config.stage_id).toBe(
        await stageOf(c, 'Deals', 'Under contract'),
      );
      expect((await planInstall(c, v2)).plan.writes).toBe(0);
    });

    it('kept as edited (a stage the automation uses removed by hand): a warning, the upgrade goes through leaving the automation as it is; --overwrite puts the stage back and moves deals there', async () => {
      // Found by the hand-edits property (edits.fuzz.test.ts): the overwrite addressed the removed
      // stage by the id the ledger kept for it, and the workspace refused the whole pipeline (400).
      const { v1 } = releases('c0ffee00-1a2b-4c3d-9e4f-000000000047', 'Deals');
      const v2 = { ...v1, version: '1.0.1' };
      const c = clientFor(server(), (await server().workspace()).key);
      await install(c, v1);
      const pipeline = (await all(c, '/v1/pipeline-details')).find((p) => p.name === 'Deals');
      const removed = pipeline.stages.find((s: any) => s.name === 'New').id;
      await c.patch(`/v1/pipelines/${pipeline.id}`, {
        stages: pipeline.stages.filter((s: any) => s.name !== 'New').map(({ id, name, type }: any) => ({ id, name, type })),
      });
      // The automation is not rewritten (unchanged): it still moves deals to the removed stage's id.
      // The upgrade does not make it worse, so it is not refused (before: the plan failed, blocking
      // an upgrade the user may want), but the plan says which automation, which stage, and what
      // --overwrite would do.
      const { plan } = await planInstall(c, v2);
      expect(plan.errors).toEqual([]);
      expect(plan.ok).toBe(true);
      const warning = {
        code: 'plan/missing-stage',
        item: { itemId: 'automation:move', kind: 'automation', key: 'move', name: 'Move deal' },
        message:
          'deal_stage new used by move: pipeline deals ("Deals") has no such stage in the workspace, where it was edited since it was installed and is kept; automation move "Move deal" is left as it is, still naming the removed stage: --overwrite replaces the pipeline with the release\'s, stages included, and points move at its stage new',
        reference: { type: 'deal_stage', id: 'new' },
      };
      expect(plan.warnings).toEqual([warning]);
      expect(plan.steps.find((s) => s.kind === 'automation')).toMatchObject({ action: 'unchanged', write: false });
      const kept = await install(c, v2);
      expect(kept.written).toBe(0);
      expect(kept.plan.warnings).toEqual([warning]);
      expect((await readLedger(c, v1.packId))!.ledger).toMatchObject({ version: '1.0.1', state: 'installed' });
      expect((await all(c, '/v1/automations'))[0].document.graph.nodes[1].config.stage_id).toBe(removed);
      // Re-planned: nothing to do, and still the warning, until the user acts on it.
      const again = (await planInstall(c, v2)).plan;
      expect({ hasChanges: again.hasChanges, warnings: again.warnings }).toEqual({ hasChanges: false, warnings: [warning] });
      // An automation the user edited is theirs, kept as it is: the missing stage is not the plan's to name.
      const auto = (await all(c, '/v1/automations'))[0];
      const edited = { ...auto.document, name: 'Move deal (mine)' };
      await c.patch(`/v1/automations/${auto.id}`, { document: edited });
      const mine = (await planInstall(c, v2)).plan;
      expect(mine.errors).toEqual([]);
      expect(mine.warnings).toEqual([]);
      expect(mine.steps.find((s) => s.kind === 'automation')).toMatchObject({ action: 'conflict', resolution: 'keep', write: false });
      await c.patch(`/v1/automations/${auto.id}`, { document: auto.document });
      const over = (await planInstall(c, v2, { overwrite: true })).plan;
      expect(over.steps.find((s) => s.kind === 'pipeline')).toMatchObject({ action: 'conflict', resolution: 'overwrite', write: true });
      expect(over.warnings).toEqual([]);
      const r = await install(c, v2, { overwrite: true });
      expect(r.plan.steps.find((s) => s.kind === 'pipeline')).toMatchObject({ action: 'conflict', resolution: 'overwrite' });
      const after = (await all(c, '/v1/pipeline-details')).find((p) => p.name === 'Deals');
      expect(after.id).toBe(pipeline.id);
      expect(after.stages.map((s: any) => s.name)).toEqual(['New', 'Won', 'Lost']);
      expect(after.stages.slice(1).map((s: any) => s.id)).toEqual(pipeline.stages.slice(1).map((s: any) => s.id));
      expect((await all(c, '/v1/automations'))[0].document.graph.nodes[1].config.stage_id).toBe(await stageOf(c, 'Deals', 'New'));
      const fixed = (await planInstall(c, v2)).plan;
      expect({ writes: fixed.writes, warnings: fixed.warnings }).toEqual({ writes: 0, warnings: [] });
    });

    it('kept as edited (a stage removed by hand) and an upgrade that writes an automation naming it: the plan fails before any write', async () => {
      const { v1 } = releases('c0ffee00-1a2b-4c3d-9e4f-000000000049', 'Deals');
      // 1.0.1 renames the automation, still moving deals to stage new: the upgrade itself writes it.
      const v2: Pack = {
        ...v1,
        version: '1.0.1',
        automations: [{ ...v1.automations![0], document: { ...v1.automations![0].document, name: 'Move deal along' } }],
      };
      const { key } = await server().workspace();
      const c = clientFor(server(), key);
      await install(c, v1);
      const pipeline = (await all(c, '/v1/pipeline-details')).find((p) => p.name === 'Deals');
      await c.patch(`/v1/pipelines/${pipeline.id}`, {
        stages: pipeline.stages.filter((s: any) => s.name !== 'New').map(({ id, name, type }: any) => ({ id, name, type })),
      });
      const counting = countingFetch();
      const cc = clientFor(server(), key, { fetch: counting.fetch });
      const err = await install(cc, v2).catch((e) => e);
      expect(err).toBeInstanceOf(PlanFailedError);
      expect((err as PlanFailedError).plan.errors).toEqual([
        {
          code: 'plan/unresolved-reference',
          message:
            'deal_stage new used by move: pipeline deals ("Deals") has no such stage in the workspace, where it was edited since it was installed and is kept; --overwrite replaces it with the release\'s pipeline, stages included',
          reference: { type: 'deal_stage', id: 'new', usedBy: ['move'] },
        },
      ]);
      expect((err as PlanFailedError).plan.warnings).toEqual([]);
      expect(counting.writes()).toBe(0);
      expect((await readLedger(c, v1.packId))!.ledger).toMatchObject({ version: '1.0.0', state: 'installed' });
    });

    it("adopted (the workspace's own pipeline, never written), a stage removed by hand: the unchanged automation is a warning, and so is the pipeline that no longer is the pack's", async () => {
      const c = clientFor(server(), (await server().workspace()).key);
      const sales = (await all(c, '/v1/pipeline-details')).find((p) => p.name === 'Sales');
      const own = sales.stages.map((s: any, i: number) => ({
        key: `s${i}`,
        name: s.name,
        ...(s.type === 'OPEN' ? {} : { stageType: s.type }),
      }));
      const { v1 } = releases('c0ffee00-1a2b-4c3d-9e4f-000000000050', 'Sales');
      v1.pipelines = [{ key: 'deals', name: 'Sales', stages: own }];
      v1.automations = [mover('s0')];
      expect((await install(c, v1)).plan.steps.find((s) => s.kind === 'pipeline')).toMatchObject({ action: 'adopt' });
      await c.patch(`/v1/pipelines/${sales.id}`, { stages: sales.stages.slice(1).map(({ id, name, type }: any) => ({ id, name, type })) });
      const { plan } = await planInstall(c, { ...v1, version: '1.0.1' });
      expect(plan.errors).toEqual([]);
      expect(plan.warnings.map((w) => `${w.code} ${w.item.itemId}: ${w.message}`)).toEqual([
        `plan/adopted-differs pipeline:deals: pipeline deals "Sales" is the workspace's own "Sales" (${sales.id}), adopted when the pack was installed, and differs from the pack's (stages): the pack never writes an object it adopted, so the workspace's copy is kept as it is`,
        `plan/missing-stage automation:move: deal_stage s0 used by move: pipeline deals ("Sales") has no such stage in the workspace, where it is the workspace's own pipeline, adopted by name and never written by this pack; automation move "Move deal" is left as it is, still naming the removed stage: --overwrite does not change it (the pack never writes a pipeline it adopted): choose another stage for move in the workspace`,
      ]);
    });

    it("adopted (the workspace's own pipeline, never written): the plan says so, writing nothing", async () => {
      // A new workspace's default pipeline, "Sales", with these very stages: 1.0.0 adopts it.
      const c = clientFor(server(), (await server().workspace()).key);
      const sales = (await all(c, '/v1/pipeline-details')).find((p) => p.name === 'Sales');
      const own = sales.stages.map((s: any, i: number) => ({
        key: `s${i}`,
        name: s.name,
        ...(s.type === 'OPEN' ? {} : { stageType: s.type }),
      }));
      const { v1, v2 } = releases('c0ffee00-1a2b-4c3d-9e4f-000000000042', 'Sales');
      v1.pipelines = [{ key: 'deals', name: 'Sales', stages: own }];
      v1.automations = [mover('s0')];
      v2.pipelines = [{ key: 'deals', name: 'Sales', stages: [...own, { key: 'contract', name: 'Under contract' }] }];
      const first = await install(c, v1);
      expect(first.plan.steps.find((s) => s.kind === 'pipeline')).toMatchObject({ action: 'adopt' });
      const { plan } = await planInstall(c, v2);
      expect(plan.errors.map((e) => e.message)).toEqual([
        'deal_stage contract used by move: pipeline deals ("Sales") has no such stage in the workspace, where it is the workspace\'s own pipeline, adopted by name and never written by this pack',
      ]);
      await expect(install(c, v2)).rejects.toBeInstanceOf(PlanFailedError);
      expect((await readLedger(c, v1.packId))!.ledger).toMatchObject({ version: '1.0.0', state: 'installed' });
    });
  });

  it('fails the plan listing every unresolved member reference, writing nothing', async () => {
    const ws = await server().workspace({ members: ['Someone Else'] });
    const counting = countingFetch();
    const c = clientFor(server(), ws.key, { fetch: counting.fetch });
    const merged = structuredClone(listing);
    merged.automations!.push(structuredClone(v100.automations![0]));
    merged.resources!.push(...structuredClone(v100.resources!));
    merged.messageTemplates!.push(...structuredClone(v100.messageTemplates!));
    const err = await install(c, merged).catch((e) => e);
    expect(err).toBeInstanceOf(PlanFailedError);
    const unresolved = (err as PlanFailedError).plan.errors;
    expect(unresolved.map((e) => `${e.code} ${e.reference?.name}`).sort()).toEqual([
      'plan/unresolved-reference Avery Brooks',
      'plan/unresolved-reference Jordan Lee',
    ]);
    expect(err.message).toMatch(/Jordan Lee[\s\S]*--bind user:usr_8841=/);
    expect(counting.writes()).toBe(0);
    // Binding them explicitly makes the same install succeed.
    const someone = (await all(c, '/v1/members'))[0].id;
    const ok = await install(c, merged, { bindings: { 'user:usr_8841': someone, 'user:usr_listing_coord': someone } });
    expect(ok.plan.ok).toBe(true);
  });

  it('refuses a pack that does not validate before any request, naming its first error', async () => {
    const ws = await server().workspace();
    const counting = countingFetch();
    const c = clientFor(server(), ws.key, { fetch: counting.fetch });
    const noDocument = { ...structuredClone(v100), automations: [{ key: 'x' }] } as unknown as typeof v100;
    // Before: "TypeError: Cannot read properties of undefined (reading 'references')"; and {} planned
    // (ok, no changes) a ledger for the packId undefined.
    for (const pack of [noDocument, {} as typeof v100]) {
      for (const call of [() => planInstall(c, pack), () => install(c, pack)]) {
        const err = await call().catch((e) => e);
        expect(err).toBeInstanceOf(InvalidPackError);
        expect(err.message).toMatch(/^The pack is not valid \(\d+ errors?; first: .+ at \/.*\); validate it with setup-pack validate$/);
      }
    }
    expect(counting.counts.GET + counting.writes()).toBe(0);
  });

  it('lets only one of two concurrent installs of a pack run', async () => {
    const ws = await server().workspace();
    const results = await Promise.allSettled([install(clientFor(server(), ws.key), v100), install(clientFor(server(), ws.key), v100)]);
    const failed = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(failed).toHaveLength(1);
    expect(failed[0].reason).toMatchObject({ status: 409, param: 'lock' });
    const c = clientFor(server(), ws.key);
    expect((await all(c, '/v1/automations')).length).toBe(3);
    expect((await planInstall(c, v100)).plan.hasChanges).toBe(false);
  });

  it('uninstalls what the pack owns and the user did not edit', async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    await install(c, v100);
    const tags = await all(c, '/v1/tags');
    const hot = tags.find((t) => t.name === 'Hot lead');
    await c.patch(`/v1/tags/${hot.id}`, { color: '#111111' });
    const r = await uninstall(c, v100.packId);
    expect(r.kept.map((s) => s.itemId)).toEqual(['resource:tag-hot']);
    expect(await all(c, '/v1/automations')).toEqual([]);
    expect((await all(c, '/v1/tags')).map((t) => t.name)).toEqual(['Hot lead']);
    // Zillow was the workspace's own lead source: adopted, so it stays.
    expect((await all(c, '/v1/lead-sources')).some((s) => s.name === 'Zillow')).toBe(true);
    expect(await readLedger(c, v100.packId)).toBeNull();
  });

  it('uninstalling a pack leaves what another installed pack adopted from it or bound to, so that pack keeps working', async () => {
    // Pack B adopts pack A's tag and template (same name and content) and binds A's lead source
    // reference by name; A owns them. Before, uninstalling A removed all three under B.
    const shared = (packId: string, name: string, tagKey: string): Pack => ({
      format: 'service.setup-pack',
      schemaVersion: 2,
      packId,
      name,
      version: '1.0.0',
      resources: [{ key: tagKey, kind: 'tag', name: 'Hot lead' }],
      messageTemplates: [{ key: 'welcome', name: 'Welcome', channel: 'sms', body: 'Hi' }],
      automations: [
        {
          key: 'a',
          document: {
            format: 'service.automation-template',
            version: 1,
            name: `${name} welcome`,
            graph: {
              nodes: [
                { id: 't', kind: 'trigger.tag_added', config: { tag_id: tagKey } },
                { id: 'u', kind: 'trigger.contact_created', config: { lead_source_id: 'src-open' } },
                { id: 's', kind: 'action.send_sms', config: { template_id: 'welcome' } },
              ],
              edges: [
                { id: 'e', source: 't', target: 's' },
                { id: 'e2', source: 'u', target: 's' },
              ],
            },
            references: [
              { type: 'tag', id: tagKey },
              { type: 'email_template', id: 'welcome' },
              { type: 'lead_source', id: 'src-open', name: 'First showing' },
            ],
          },
        },
      ],
    });
    const a = shared('c0ffee00-1a2b-4c3d-9e4f-000000000043', 'Pack A', 'hot');
    const b = shared('c0ffee00-1a2b-4c3d-9e4f-000000000044', 'Pack B', 'hot-lead');
    const c = clientFor(server(), (await server().workspace()).key);
    await install(c, a);
    const fromB = await install(c, b);
    expect(fromB.plan.steps.filter((s) => s.action === 'adopt').map((s) => s.itemId)).toEqual(['resource:hot-lead', 'template:welcome']);
    const r = await uninstall(c, a.packId);
    expect(r.kept.map((s) => `${s.itemId}: ${s.reason}`)).toEqual([
      'template:welcome: used by the installed pack "Pack B" (c0ffee00-1a2b-4c3d-9e4f-000000000044): kept',
      'reference:lead_source:src-open: used by the installed pack "Pack B" (c0ffee00-1a2b-4c3d-9e4f-000000000044): kept',
      'resource:hot: used by the installed pack "Pack B" (c0ffee00-1a2b-4c3d-9e4f-000000000044): kept',
    ]);
    expect((await all(c, '/v1/automations')).map((x) => x.name)).toEqual(['Pack B welcome']);
    expect((await all(c, '/v1/tags')).map((x) => x.name)).toEqual(['Hot lead']);
    expect((await all(c, '/v1/message-templates')).map((x) => x.name)).toEqual(['Welcome']);
    expect((await all(c, '/v1/lead-sources')).map((x) => x.name)).toContain('First showing');
    expect(await readLedger(c, a.packId)).toBeNull();
    expect((await planInstall(c, b)).plan.writes).toBe(0);
  });

  it('an upgrade with prune keeps what another installed pack adopted from the release it drops, and says which pack holds it', async () => {
    // Pack A 1.0.0 owns a tag and a template; pack B adopts both by name. A 1.1.0 drops them: before,
    // `install --prune` removed them under B, as uninstall did.
    const withItems = (packId: string, name: string, version: string, items: boolean): Pack => ({
      format: 'service.setup-pack',
      schemaVersion: 2,
      packId,
      name,
      version,
      resources: items ? [{ key: 'hot', kind: 'tag', name: 'Hot lead' }] : [],
      messageTemplates: items ? [{ key: 'welcome', name: 'Welcome', channel: 'sms', body: 'Hi' }] : [],
      smartLists: [{ key: 'all', name: `${name} contacts`, filters: { version: 2, root: { type: 'and', children: [] } } }],
    });
    const a1 = withItems('c0ffee00-1a2b-4c3d-9e4f-000000000045', 'Pack A', '1.0.0', true);
    const a2 = withItems(a1.packId, 'Pack A', '1.1.0', false);
    const b = withItems('c0ffee00-1a2b-4c3d-9e4f-000000000046', 'Pack B', '1.0.0', true);
    const c = clientFor(server(), (await server().workspace()).key);
    await install(c, a1);
    expect((await install(c, b)).plan.steps.filter((s) => s.action === 'adopt').map((s) => s.itemId)).toEqual([
      'resource:hot',
      'template:welcome',
    ]);
    const held = 'gone from the release; used by the installed pack "Pack B" (c0ffee00-1a2b-4c3d-9e4f-000000000046): kept';
    const up = await install(c, a2, { prune: true });
    expect(up.plan.steps.filter((s) => s.action === 'orphan').map((s) => `${s.itemId}: ${s.reason}`)).toEqual([
      `template:welcome: ${held}`,
      `resource:hot: ${held}`,
    ]);
    // --prune was asked to remove them and did not: each is a warning, saying why.
    const why =
      'is gone from the release and --prune keeps it: it is used by the installed pack "Pack B" (c0ffee00-1a2b-4c3d-9e4f-000000000046), which adopted it or binds a reference to it; removing it would break that pack';
    expect(up.plan.warnings.map((w) => [w.code, w.item.itemId, w.message])).toEqual([
      ['plan/prune-kept', 'template:welcome', `template welcome "Welcome" ${why}`],
      ['plan/prune-kept', 'resource:hot', `resource hot "Hot lead" ${why}`],
    ]);
    // Without --prune nothing was asked to be removed: the orphans are kept, as the plan's lines say, and nothing is warned.
    expect((await planInstall(c, a2)).plan.warnings).toEqual([]);
    expect(up.plan.steps.some((s) => s.action === 'remove')).toBe(false);
    expect((await all(c, '/v1/tags')).map((x) => x.name)).toEqual(['Hot lead']);
    expect((await all(c, '/v1/message-templates')).map((x) => x.name)).toEqual(['Welcome']);
    expect((await planInstall(c, b)).plan.writes).toBe(0);
    // Once B is gone, nothing holds them: prune removes them.
    await uninstall(c, b.packId);
    const later = await install(c, a2, { prune: true });
    expect(
      later.plan.steps
        .filter((s) => s.action === 'remove')
        .map((s) => s.itemId)
        .sort(),
    ).toEqual(['resource:hot', 'template:welcome']);
    expect(await all(c, '/v1/tags')).toEqual([]);
  });

  it('keeps the image an edited template shows when uninstalling: the kept template never points at a removed file', async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    await install(c, listing);
    const media = await all(c, '/v1/media');
    const templates = await all(c, '/v1/message-templates');
    const showing = templates.find((t) => media.some((m) => JSON.stringify(t).includes(m.url)));
    expect(showing).toBeDefined();
    const image = media.find((m) => JSON.stringify(showing).includes(m.url));
    await c.patch(`/v1/message-templates/${showing.id}`, { subject: 'Edited in the workspace' });
    const r = await uninstall(c, listing.packId);
    expect(r.kept.map((s) => s.kind).sort()).toEqual(['asset', 'template']);
    const left = await all(c, '/v1/media');
    expect(left.map((m) => m.id)).toContain(image.id);
    // Images no kept item shows are removed as before.
    expect(left).toHaveLength(media.filter((m) => templates.some((t) => t.id === showing.id && JSON.stringify(t).includes(m.url))).length);
  });
});
