import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Pack } from '../types.js';
import { decodeBase64, sha256Hex } from '../hash.js';
import {
  bindReferences,
  bindingKey,
  canonicalJson,
  contentHash,
  itemId,
  ledgerItemAfterWrite,
  markReferences,
  pickedReferenceId,
  plan,
  planUninstall,
  projectWorkspaceObject,
  requiredCollections,
  resolveStep,
  workspaceObjectHash,
  type InstallLedger,
  type LedgerItem,
  type PlanItemKind,
  type PlanOptions,
  type PlanResult,
  type WorkspaceCollection,
  type WorkspaceObject,
  type WorkspaceSnapshot,
} from './index.js';
import { compareSemver } from './version.js';
import { validatePack } from '../validate.js';

const FIXTURES = fileURLToPath(new URL('../../../../fixtures/', import.meta.url));
const load = (rel: string): Pack => JSON.parse(readFileSync(FIXTURES + rel, 'utf8'));
const v100 = load('releases/buyer-lead-1.0.0.json');
const v110 = load('releases/buyer-lead-1.1.0.json');
const listing = load('valid/listing-marketing.json');

/**
 * An in-memory workspace data model: collections of objects stored as written, pipeline stages
 * with ids, media with addresses. It stands for the workspace's data, not for our server.
 */
class WorkspaceModel {
  collections: Record<string, WorkspaceObject[]> = {};
  ledgers: Record<string, InstallLedger> = {};
  /** Idempotency key → id of the object created with it (what the server remembers). */
  keys: Record<string, string> = {};
  private seq = 0;
  writes = 0;
  constructor(members: { name: string }[] = [{ name: 'Jordan Lee' }, { name: 'Avery Brooks' }]) {
    this.collections.members = members.map((m) => ({ id: this.id('mem'), name: m.name }));
  }
  id(prefix: string) {
    return `${prefix}_${++this.seq}`;
  }
  list(c: WorkspaceCollection) {
    return (this.collections[c] ??= []);
  }
  snapshot(pack: Pack): WorkspaceSnapshot {
    const collections: WorkspaceSnapshot['collections'] = {};
    const ledger = this.ledgers[pack.packId] ?? null;
    for (const c of requiredCollections(pack, ledger)) collections[c] = structuredClone(this.list(c));
    return ledger?.state === 'in_progress' ? { collections, createdByKey: { ...this.keys } } : { collections };
  }
  store(c: WorkspaceCollection, body: Record<string, unknown>, id?: string): WorkspaceObject {
    const obj: WorkspaceObject = { ...structuredClone(body), id: id ?? this.id(c) };
    if (c === 'pipelines') {
      const old = new Map(((this.list(c).find((o) => o.id === id)?.stages ?? []) as WorkspaceObject[]).map((s) => [s.id, s]));
      obj.stages = (body.stages as Record<string, unknown>[]).map((s) => ({
        ...s,
        id: typeof s.id === 'string' && old.has(s.id) ? s.id : this.id('stg'),
      }));
    }
    if (c === 'media') {
      obj.url = `https://media.test/${obj.id}/${String(body.file_name)}`;
      obj.sha256 = sha256Hex(decodeBase64(String(body.data)));
      delete obj.data;
    }
    if (c === 'brand') obj.id = 'brand';
    const list = this.list(c);
    const i = list.findIndex((o) => o.id === obj.id);
    if (i >= 0) list[i] = obj;
    else list.push(obj);
    return obj;
  }
  remove(c: WorkspaceCollection, id: string) {
    this.collections[c] = this.list(c).filter((o) => o.id !== id);
  }
  edit(c: WorkspaceCollection, id: string, patch: Record<string, unknown>) {
    Object.assign(
      this.list(c).find((o) => o.id === id)!,
      patch,
    );
  }
}

/** Executes a plan the way the installer does, against the model; `stopAfter` simulates a killed run. */
function apply(ws: WorkspaceModel, pack: Pack, p: PlanResult, stopAfter = Infinity, checkpoints = true): InstallLedger {
  const prev = ws.ledgers[pack.packId];
  const items: Record<string, LedgerItem> = { ...(prev?.items ?? {}) };
  const ledger: InstallLedger = {
    packId: pack.packId,
    packName: pack.name,
    version: prev?.version ?? null,
    state: 'in_progress',
    targetVersion: pack.version,
    items,
    bindings: p.ledgerBindings,
  };
  for (const [id, item] of Object.entries(p.ledgerUpdates)) {
    if (item) items[id] = item;
    else delete items[id];
  }
  ws.ledgers[pack.packId] = structuredClone(ledger);
  let done = 0;
  for (const step of p.steps) {
    if (!step.write) continue;
    if (done++ >= stopAfter) return ws.ledgers[pack.packId];
    ws.writes++;
    if (step.action === 'remove') {
      ws.remove(step.collection, step.workspaceId!);
      delete items[step.itemId];
    } else {
      const r = resolveStep(
        pack.packId,
        step,
        (id) => items[id] && { workspaceId: items[id].workspaceId, url: items[id].url, stages: items[id].stages },
      );
      if (!r) throw new Error(`unresolved ${step.itemId}`);
      const again = step.action === 'create' ? ws.keys[r.idempotencyKey] : undefined;
      const written =
        again && ws.list(step.collection).find((o) => o.id === again)
          ? ws.list(step.collection).find((o) => o.id === again)!
          : ws.store(
              step.collection,
              r.body,
              step.collection === 'brand' ? 'brand' : step.action === 'create' ? undefined : step.workspaceId,
            );
      if (step.action === 'create') ws.keys[r.idempotencyKey] = written.id;
      items[step.itemId] = ledgerItemAfterWrite(step, r, written);
    }
    if (checkpoints) ws.ledgers[pack.packId] = structuredClone({ ...ledger, items });
  }
  ws.ledgers[pack.packId] = structuredClone({ ...ledger, items, version: pack.version, state: 'installed', targetVersion: null });
  return ws.ledgers[pack.packId];
}

function install(ws: WorkspaceModel, pack: Pack, options: PlanOptions = {}) {
  const p = plan(pack, ws.ledgers[pack.packId] ?? null, ws.snapshot(pack), options);
  expect(p.errors).toEqual([]);
  apply(ws, pack, p);
  return p;
}

const actions = (p: PlanResult) => Object.fromEntries(p.steps.map((s) => [s.itemId, s.action]));

describe('plan: fresh install', () => {
  it('creates every item in dependency order and binds the member by name', () => {
    const ws = new WorkspaceModel();
    const p = plan(v100, null, ws.snapshot(v100));
    expect(p.ok).toBe(true);
    expect(p.versionChange).toBe('install');
    expect(p.steps.every((s) => s.action === 'create')).toBe(true);
    expect(p.summary.create).toBe(4 + 1 + 2 + 1 + 3);
    const phases = p.steps.map((s) => s.phase);
    expect([...phases].sort((a, b) => a - b)).toEqual(phases);
    const user = p.bindings.find((b) => b.type === 'user')!;
    expect(user.source).toBe('name');
    expect(user.target).toEqual({ workspaceId: ws.collections.members[0].id });
    expect(p.ledgerBindings).toEqual({ 'user:usr_8841': ws.collections.members[0].id });
  });

  it('rewrites graph references to workspace ids after apply', () => {
    const ws = new WorkspaceModel();
    install(ws, v100);
    const auto = ws.list('automations').find((a) => (a.document as { name: string }).name === 'New lead welcome')!;
    const nodes = (auto.document as { graph: { nodes: { id: string; config?: Record<string, unknown> }[] } }).graph.nodes;
    const cfg = (id: string) => nodes.find((n) => n.id === id)!.config!;
    const ledger = ws.ledgers[v100.packId];
    expect(cfg('tag').tag_id).toBe(ledger.items['resource:tag-buyer-lead'].workspaceId);
    expect(cfg('start').lead_source_id).toBe(ledger.items['resource:src-zillow'].workspaceId);
    expect(cfg('sms').template_id).toBe(ledger.items['template:tpl-welcome-sms'].workspaceId);
    expect(cfg('task').assignee_id).toBe(ws.collections.members[0].id);
    const nurture = ws.list('automations').find((a) => (a.document as { name: string }).name === 'Stage nurture')!;
    const deal = (nurture.document as { graph: { nodes: { id: string; config: Record<string, unknown> }[] } }).graph.nodes.find(
      (n) => n.id === 'deal',
    )!.config;
    expect(deal.pipeline_id).toBe(ledger.items['pipeline:buyer-pipeline'].workspaceId);
    expect(deal.stage_id).toBe(ledger.items['pipeline:buyer-pipeline'].stages!.showing);
    const list = ws.list('smart_lists')[0];
    expect(JSON.stringify(list.filters)).toContain(ledger.items['resource:tag-buyer-lead'].workspaceId);
  });

  it('uploads email images and rewrites their address in templates', () => {
    const ws = new WorkspaceModel();
    install(ws, listing);
    const media = ws.list('media').find((m) => m.file_name === 'open-house-hero.png')!;
    const tpl = ws.list('message_templates').find((t) => t.name === 'Open house invitation')!;
    const text = JSON.stringify(tpl);
    expect(text).not.toContain('cdn.example-brokerage.com');
    expect(text.split(String(media.url)).length - 1).toBe(4);
    const brand = ws.list('brand')[0];
    expect((brand.asset_urls as Record<string, string>).logo).toMatch(/^https:\/\/media\.test\//);
  });

  it('adopts an existing tag with the same name instead of duplicating it', () => {
    const ws = new WorkspaceModel();
    ws.list('tags').push({ id: 'tag_mine', name: '  buyer LEAD ', color: null });
    const p = install(ws, v100);
    expect(actions(p)['resource:tag-buyer-lead']).toBe('adopt');
    expect(ws.list('tags').filter((t) => /buyer lead/i.test(String(t.name)))).toHaveLength(1);
    expect(ws.ledgers[v100.packId].items['resource:tag-buyer-lead']).toMatchObject({ workspaceId: 'tag_mine', owned: false });
    const un = planUninstall(ws.ledgers[v100.packId], ws.snapshot(v100));
    expect(un.steps.find((s) => s.itemId === 'resource:tag-buyer-lead')!.write).toBe(false);
  });

  it('adopts a pipeline the workspace already holds with the same name and content, not one that differs', () => {
    const pipeline = v100.pipelines![0];
    const stored = (name: string, extra: Record<string, unknown> = {}) => ({
      name,
      description: pipeline.description ?? null,
      ...extra,
      // Won/lost stages stored with a null probability (a new workspace's default) still count as 100/0.
      stages: pipeline.stages.map((st, i) => ({
        id: `stg_${name}_${i}`,
        name: st.name,
        type: st.stageType ?? 'OPEN',
        color: st.color ?? null,
        probability: st.stageType && st.stageType !== 'OPEN' ? null : (st.probability ?? null),
      })),
    });
    const ws = new WorkspaceModel();
    ws.list('pipelines').push({ id: 'pip_b', ...stored(pipeline.name.toUpperCase()) }, { id: 'pip_a', ...stored(pipeline.name) });
    const p = install(ws, v100);
    expect(actions(p)[`pipeline:${pipeline.key}`]).toBe('adopt');
    expect(ws.ledgers[v100.packId].items[`pipeline:${pipeline.key}`]).toMatchObject({ workspaceId: 'pip_a', owned: false });
    expect(ws.list('pipelines')).toHaveLength(2);

    const other = new WorkspaceModel();
    other.list('pipelines').push({ id: 'pip_c', ...stored(pipeline.name), description: 'Another one' });
    expect(actions(install(other, v100))[`pipeline:${pipeline.key}`]).toBe('create');
  });
});

describe('plan: references', () => {
  it('fails listing every unresolved reference at once', () => {
    const ws = new WorkspaceModel([{ name: 'Someone Else' }]);
    const pack = structuredClone(listing);
    pack.automations!.push({ ...structuredClone(v100.automations![0]), key: 'extra' });
    const p = plan(pack, null, ws.snapshot(pack));
    expect(p.ok).toBe(false);
    const unresolved = p.errors.filter((e) => e.code === 'plan/unresolved-reference');
    // Both members, and every reference of the copied automation the listing pack does not carry.
    expect(
      unresolved
        .filter((e) => e.reference!.type === 'user')
        .map((e) => e.reference!.name)
        .sort(),
    ).toEqual(['Avery Brooks', 'Jordan Lee']);
    expect(unresolved.map((e) => e.reference!.id).sort()).toEqual([
      'src-zillow',
      'tag-buyer-lead',
      'tpl-follow-up',
      'tpl-welcome-sms',
      'usr_8841',
      'usr_listing_coord',
    ]);
    expect(unresolved.find((e) => e.reference!.id === 'usr_8841')!.message).toMatch(/"Jordan Lee".*--bind user:usr_8841=/);
    // The workspace's one member is listed with each unresolved user, its id ready to bind.
    const member = ws.collections.members[0];
    for (const e of unresolved.filter((e) => e.reference!.type === 'user'))
      expect(e.candidates).toEqual([{ id: member.id, name: 'Someone Else' }]);
    expect(p.steps).toEqual([]);
  });

  it("lists the workspace objects of an unresolved reference's type only when there are few, by name", () => {
    const names = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `Member ${String.fromCharCode(90 - i)}` }));
    const few = new WorkspaceModel(names(10));
    const listed = plan(v100, null, few.snapshot(v100)).errors.find((e) => e.reference?.id === 'usr_8841')!;
    expect(listed.candidates!.map((c) => c.name)).toEqual(
      names(10)
        .map((m) => m.name)
        .sort(),
    );
    expect(new Set(listed.candidates!.map((c) => c.id))).toEqual(new Set(few.collections.members.map((m) => m.id)));
    const many = new WorkspaceModel(names(11));
    expect(plan(v100, null, many.snapshot(v100)).errors.find((e) => e.reference?.id === 'usr_8841')!.candidates).toBeUndefined();
  });

  it('accepts explicit bindings and checks they exist', () => {
    const ws = new WorkspaceModel([{ name: 'Someone Else' }]);
    const id = ws.collections.members[0].id;
    expect(plan(v100, null, ws.snapshot(v100), { bindings: { 'user:usr_8841': id } }).ok).toBe(true);
    const bad = plan(v100, null, ws.snapshot(v100), { bindings: { 'user:usr_8841': 'mem_nope' } });
    expect(bad.errors.map((e) => e.code)).toEqual(['plan/unknown-binding']);
    expect(bad.errors[0].candidates).toEqual([{ id, name: 'Someone Else' }]);
  });

  it('reports several name matches as ambiguous', () => {
    const ws = new WorkspaceModel([{ name: 'Jordan Lee' }, { name: 'jordan lee' }]);
    const p = plan(v100, null, ws.snapshot(v100));
    expect(p.errors.map((e) => e.code)).toEqual(['plan/ambiguous-reference']);
    expect(p.errors[0].candidates).toHaveLength(2);
  });

  it('binds a deal stage key to the pipeline with the lowest key that has it, and a stage by another id to the pack stages of its name', () => {
    const pack = structuredClone(v100);
    const stage = (key: string, name: string) => ({ key, name, probability: 10 });
    pack.pipelines = [
      { key: 'p-b', name: 'B', stages: [stage('won', 'Won'), stage('lost', 'Lost')] },
      { key: 'p-a', name: 'A', stages: [stage('won', 'Won'), stage('open', 'Open')] },
    ] as unknown as Pack['pipelines'];
    pack.automations![0].document.references = [
      { type: 'deal_stage', id: 'won' },
      { type: 'deal_stage', id: 'old-lost', name: ' LOST ' },
      { type: 'deal_stage', id: 'old-won', name: 'won' },
    ];
    const ws = new WorkspaceModel();
    const bound = bindReferences(pack, null, ws.snapshot(pack), {});
    const target = (id: string) => bound.bindings.find((b) => b.id === id)?.target;
    expect(target('won')).toEqual({ itemId: itemId('pipeline', 'p-a'), stageKey: 'won' });
    expect(target('old-lost')).toEqual({ itemId: itemId('pipeline', 'p-b'), stageKey: 'lost' });
    // (The fixture's other automations name its own pipeline, which this pack no longer has.)
    expect(bound.errors.filter((e) => e.reference?.usedBy.includes(pack.automations![0].key)).map((e) => e.message)).toEqual([
      'deal_stage "won" (old-won) matches 2 items of the pack by name (won of pipeline p-a, won of pipeline p-b); give the reference the key of the one it means',
    ]);
  });

  it('creates a creatable reference the pack does not carry and keeps owning it', () => {
    const ws = new WorkspaceModel();
    const pack = structuredClone(v100);
    pack.automations![0].document.references!.push({ type: 'tag', id: 'tag-vip', name: 'VIP' });
    pack.automations![0].document.graph.nodes[1].config = { tag_id: 'tag-vip' };
    const p = install(ws, pack);
    expect(p.bindings.find((b) => b.id === 'tag-vip')!.source).toBe('create');
    expect(ws.list('tags').filter((t) => t.name === 'VIP')).toHaveLength(1);
    const again = plan(pack, ws.ledgers[pack.packId], ws.snapshot(pack));
    expect(again.hasChanges).toBe(false);
  });

  it('a created reference recorded by an older install as resource:@ref/<type>/<id> moves to its own item id, no write; a pack resource of that key keeps such an entry', () => {
    const ws = new WorkspaceModel();
    const pack = structuredClone(v100);
    pack.automations![0].document.references!.push({ type: 'tag', id: 'tag-vip', name: 'VIP' });
    pack.automations![0].document.graph.nodes[1].config = { tag_id: 'tag-vip' };
    install(ws, pack);
    const ledger = ws.ledgers[pack.packId];
    expect(Object.keys(ledger.items)).toContain('reference:tag:tag-vip');
    // The ledger as an install before created resources had ids of their own wrote it.
    const { ['reference:tag:tag-vip']: entry, ...rest } = ledger.items;
    ws.ledgers[pack.packId] = { ...ledger, items: { ...rest, 'resource:@ref/tag/tag-vip': entry } };
    const p = plan(pack, ws.ledgers[pack.packId], ws.snapshot(pack), { prune: true });
    expect(p.errors).toEqual([]);
    expect(p.writes).toBe(0);
    expect(p.steps.find((s) => s.itemId === 'reference:tag:tag-vip')).toMatchObject({
      action: 'unchanged',
      workspaceId: entry.workspaceId,
    });
    expect(p.steps.some((s) => s.itemId === 'resource:@ref/tag/tag-vip')).toBe(false);
    expect(p.ledgerUpdates['resource:@ref/tag/tag-vip']).toBeNull();
    expect(p.ledgerUpdates['reference:tag:tag-vip']).toMatchObject({ workspaceId: entry.workspaceId, owned: true });
    apply(ws, pack, p);
    expect(plan(pack, ws.ledgers[pack.packId], ws.snapshot(pack)).hasChanges).toBe(false);
    expect(ws.list('tags').filter((t) => t.name === 'VIP')).toHaveLength(1);

    // A release that carries a resource keyed "@ref/tag/tag-vip" itself: the old entry is that resource's.
    ws.ledgers[pack.packId] = { ...ledger, items: { ...rest, 'resource:@ref/tag/tag-vip': entry } };
    const next = structuredClone(pack);
    next.version = '1.0.1';
    next.resources!.push({ key: '@ref/tag/tag-vip', kind: 'tag', name: 'VIP' });
    const q = plan(next, ws.ledgers[pack.packId], ws.snapshot(next));
    expect(q.errors).toEqual([]);
    expect(q.steps.find((s) => s.itemId === 'resource:@ref/tag/tag-vip')).toMatchObject({
      action: 'unchanged',
      workspaceId: entry.workspaceId,
    });
    // The reference, no longer created by the pack, binds to the pack's tag of its name.
    expect(q.steps.some((s) => s.itemId === 'reference:tag:tag-vip')).toBe(false);
    expect(q.bindings.find((b) => b.id === 'tag-vip')).toMatchObject({ source: 'pack', target: { itemId: 'resource:@ref/tag/tag-vip' } });
  });
});

describe('plan: upgrades', () => {
  it('re-planning the same release changes nothing', () => {
    const ws = new WorkspaceModel();
    install(ws, v100);
    const p = plan(v100, ws.ledgers[v100.packId], ws.snapshot(v100));
    expect(p.versionChange).toBe('same');
    expect(p.hasChanges).toBe(false);
    expect(p.writes).toBe(0);
  });

  it('upgrades across the release pair writing only changed items', () => {
    const ws = new WorkspaceModel();
    install(ws, v100);
    const p = plan(v110, ws.ledgers[v110.packId], ws.snapshot(v110));
    expect(p.versionChange).toBe('upgrade');
    expect(actions(p)).toMatchObject({
      'automation:new-lead-welcome': 'update',
      'automation:nurture-by-stage': 'update',
      'automation:deal-won-thanks': 'create',
      'automation:old-reminder': 'orphan',
      'smartList:new-buyer-leads': 'update',
      'template:tpl-follow-up': 'update',
      'template:tpl-welcome-sms': 'unchanged',
      'pipeline:buyer-pipeline': 'update',
      'resource:cf-budget': 'create',
      'resource:tag-hot': 'orphan',
      'resource:tag-buyer-lead': 'unchanged',
    });
    const stagesBefore = ws.ledgers[v100.packId].items['pipeline:buyer-pipeline'].stages!;
    apply(ws, v110, p);
    const stagesAfter = ws.ledgers[v110.packId].items['pipeline:buyer-pipeline'].stages!;
    for (const k of Object.keys(stagesBefore)) expect(stagesAfter[k]).toBe(stagesBefore[k]);
    expect(stagesAfter.contract).toBeDefined();
    expect(plan(v110, ws.ledgers[v110.packId], ws.snapshot(v110)).hasChanges).toBe(false);
  });

  it('prunes only unedited orphans', () => {
    const ws = new WorkspaceModel();
    install(ws, v100);
    const l = ws.ledgers[v100.packId];
    ws.edit('tags', l.items['resource:tag-hot'].workspaceId, { color: '#000000' });
    const p = plan(v110, l, ws.snapshot(v110), { prune: true });
    expect(actions(p)['automation:old-reminder']).toBe('remove');
    expect(actions(p)['resource:tag-hot']).toBe('orphan');
    // Asked to remove it, prune keeps it: a warning says so and why.
    expect(p.warnings).toEqual([
      {
        code: 'plan/prune-kept',
        item: { itemId: 'resource:tag-hot', kind: 'resource', key: 'tag-hot', name: 'Hot lead' },
        message:
          'resource tag-hot "Hot lead" is gone from the release and --prune keeps it: it was edited in the workspace since it was installed, and an edited item is never removed (remove it by hand if it is not wanted)',
      },
    ]);
    // Without prune nothing was asked: the plan's line says it is kept, no warning.
    expect(plan(v110, l, ws.snapshot(v110)).warnings).toEqual([]);
    apply(ws, v110, p);
    expect(ws.list('tags').some((t) => t.name === 'Hot lead')).toBe(true);
    expect(ws.list('automations').some((a) => (a.document as { name: string }).name === 'Old reminder')).toBe(false);
  });

  it('keeps an edited item as a conflict unless overwrite', () => {
    const ws = new WorkspaceModel();
    install(ws, v100);
    const l = ws.ledgers[v100.packId];
    const id = l.items['template:tpl-follow-up'].workspaceId;
    ws.edit('message_templates', id, { body: '<p>My own words</p>' });
    const keep = plan(v110, l, ws.snapshot(v110));
    const step = keep.steps.find((s) => s.itemId === 'template:tpl-follow-up')!;
    expect(step).toMatchObject({ action: 'conflict', resolution: 'keep', write: false });
    apply(ws, v110, keep);
    expect(ws.list('message_templates').find((t) => t.id === id)!.body).toBe('<p>My own words</p>');
    const over = plan(v110, ws.ledgers[v110.packId], ws.snapshot(v110), { overwrite: true });
    expect(over.steps.find((s) => s.itemId === 'template:tpl-follow-up')).toMatchObject({
      action: 'conflict',
      resolution: 'overwrite',
      write: true,
    });
    apply(ws, v110, over);
    expect(ws.list('message_templates').find((t) => t.id === id)!.name).toBe('Follow-up email (buyers)');
  });

  it('refuses a downgrade unless allowed and a different packId always', () => {
    const ws = new WorkspaceModel();
    install(ws, v110);
    expect(plan(v100, ws.ledgers[v100.packId], ws.snapshot(v100)).errors.map((e) => e.code)).toEqual(['plan/downgrade']);
    expect(plan(v100, ws.ledgers[v100.packId], ws.snapshot(v100), { allowDowngrade: true }).ok).toBe(true);
    expect(plan(listing, ws.ledgers[v100.packId], ws.snapshot(listing)).errors.map((e) => e.code)).toEqual(['plan/pack-id-mismatch']);
  });

  it('resumes an interrupted run without duplicates', () => {
    const ws = new WorkspaceModel();
    apply(ws, v100, plan(v100, null, ws.snapshot(v100)), 5);
    const resumed = plan(v100, ws.ledgers[v100.packId], ws.snapshot(v100));
    expect(resumed.summary.create).toBe(11 - 5);
    apply(ws, v100, resumed);
    const clean = new WorkspaceModel();
    install(clean, v100);
    for (const c of ['tags', 'automations', 'message_templates', 'pipelines', 'smart_lists'] as const)
      expect(ws.list(c).length).toBe(clean.list(c).length);
  });

  it('owns what an interrupted run created before its checkpoint, instead of adopting it', () => {
    const ws = new WorkspaceModel();
    apply(ws, v100, plan(v100, null, ws.snapshot(v100)), 6, false);
    expect(Object.keys(ws.ledgers[v100.packId].items)).toEqual([]);
    const resumed = plan(v100, ws.ledgers[v100.packId], ws.snapshot(v100));
    const recovered = resumed.steps.filter((s) => s.reason === 'created by the interrupted run');
    expect(recovered.map((s) => s.itemId)).toEqual([
      'resource:src-zillow',
      'resource:stage-nurture',
      'resource:tag-buyer-lead',
      'resource:tag-hot',
      'pipeline:buyer-pipeline',
      'template:tpl-follow-up',
    ]);
    expect(resumed.summary.adopt).toBe(0);
    apply(ws, v100, resumed);
    const items = ws.ledgers[v100.packId].items;
    expect(Object.values(items).every((i) => i.owned)).toBe(true);
    expect(Object.keys(items)).toHaveLength(11);
    expect(ws.list('tags')).toHaveLength(2);
    expect(plan(v100, ws.ledgers[v100.packId], ws.snapshot(v100)).hasChanges).toBe(false);
  });

  it('recognises an automation that runs itself, created by the interrupted run before the write that completes it', () => {
    const pack = structuredClone(v100);
    const welcome = pack.automations!.find((a) => a.key === 'new-lead-welcome')!;
    welcome.document.graph.nodes.push({ id: 'again', kind: 'action.run_automation', config: { automation_id: 'new-lead-welcome' } });
    welcome.document.graph.edges.push({ id: 'e-again', source: 'tag', target: 'again' });
    const ws = new WorkspaceModel();
    const first = plan(pack, null, ws.snapshot(pack));
    const writes = first.steps.filter((s) => s.write);
    const created = writes.findIndex((s) => s.itemId === 'automation:new-lead-welcome' && s.action === 'create');
    expect(writes.findIndex((s) => s.itemId === 'automation:new-lead-welcome' && s.action === 'update')).toBeGreaterThan(created);
    apply(ws, pack, first, created + 1, false);
    const resumed = plan(pack, ws.ledgers[pack.packId], ws.snapshot(pack));
    const step = resumed.steps.filter((s) => s.itemId === 'automation:new-lead-welcome');
    expect(step.map((s) => [s.action, s.reason])).toEqual([['update', 'created by the interrupted run, content differs']]);
    apply(ws, pack, resumed);
    const named = ws.list('automations').filter((a) => (a.document as { name: string }).name === 'New lead welcome');
    expect(named).toHaveLength(1);
    const stored = named[0];
    expect(JSON.stringify(stored.document)).toContain(`"automation_id":"${stored.id}"`);
    expect(plan(pack, ws.ledgers[pack.packId], ws.snapshot(pack)).hasChanges).toBe(false);
  });

  it('compares versions by semver precedence', () => {
    expect(compareSemver('1.2.0', '1.10.0')).toBe(-1);
    expect(compareSemver('1.0.0-rc.1', '1.0.0')).toBe(-1);
    expect(compareSemver('1.0.0-alpha.2', '1.0.0-alpha.10')).toBe(-1);
    expect(compareSemver('2.0.0+build', '2.0.0')).toBe(0);
    expect(compareSemver('banana', '1.0.0')).toBeNull();
    expect(compareSemver(' v1.0.0 ', '1.0.0')).toBe(0);
  });

  it("orders the SemVer 2.0.0 specification's own precedence example, in every pair", () => {
    const chain = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '2.0.0',
      '2.1.0',
      '2.1.1',
    ];
    for (let i = 0; i < chain.length; i++)
      for (let j = 0; j < chain.length; j++) expect(compareSemver(chain[i], chain[j]), `${chain[i]} vs ${chain[j]}`).toBe(Math.sign(i - j));
  });
});

describe('plan: a brand the workspace already has', () => {
  const mine = { fields: { name: 'My Own Realty', primaryColor: '#123456' }, asset_urls: null };

  it('keeps a brand the user set as a conflict, and uninstall leaves it', () => {
    const ws = new WorkspaceModel();
    ws.store('brand', mine);
    const p = install(ws, listing);
    const step = p.steps.find((s) => s.itemId === 'brand:brand')!;
    expect(step).toMatchObject({ action: 'conflict', resolution: 'keep', write: false, owned: false, workspaceId: 'brand' });
    expect(step.reason).toContain('My Own Realty');
    expect(ws.list('brand')[0].fields).toEqual(mine.fields);
    expect(ws.ledgers[listing.packId].items['brand:brand']).toBeUndefined();
    // The pack's logo shows only in its brand, which is not written: not uploaded for nothing. The
    // email image a template shows is.
    expect(listing.assets!.map((a) => `${a.key} ${a.role}`).sort()).toEqual(['logo logo', 'open-house-hero email_image']);
    expect(p.steps.filter((s) => s.kind === 'asset').map((s) => `${s.key} ${s.action}`)).toEqual(['open-house-hero create']);
    expect(step.reason).toContain("so the pack's brand image logo is not uploaded either");
    expect(step.dependsOn).toEqual([]);
    expect(p.summary.create).toBe(p.steps.filter((s) => s.action === 'create').length);
    expect(ws.ledgers[listing.packId].items['asset:logo']).toBeUndefined();
    expect(ws.list('media').map((m) => m.file_name)).toEqual(['open-house-hero.png']);
    // Re-planning reports it again and changes nothing.
    const again = plan(listing, ws.ledgers[listing.packId], ws.snapshot(listing));
    expect(again.steps.find((s) => s.itemId === 'brand:brand')).toMatchObject({ action: 'conflict', write: false });
    expect(again.hasChanges).toBe(false);
    const un = planUninstall(ws.ledgers[listing.packId], ws.snapshot(listing));
    expect(un.steps.some((s) => s.collection === 'brand')).toBe(false);
    // --overwrite later writes the brand, and uploads its logo first.
    const over = install(ws, listing, { overwrite: true });
    expect(over.steps.filter((s) => s.kind === 'asset' && s.write).map((s) => `${s.key} ${s.action}`)).toEqual(['logo create']);
    expect((ws.list('brand')[0].asset_urls as Record<string, string>).logo).toMatch(/^https:\/\/media\.test\//);
  });

  it('replaces a brand the user set only with overwrite, and then owns it', () => {
    const ws = new WorkspaceModel();
    ws.store('brand', mine);
    const p = install(ws, listing, { overwrite: true });
    expect(p.steps.find((s) => s.itemId === 'brand:brand')).toMatchObject({ action: 'conflict', resolution: 'overwrite', write: true });
    expect((ws.list('brand')[0].fields as { name: string }).name).toBe('Harbor Realty');
    expect(ws.ledgers[listing.packId].items['brand:brand']).toMatchObject({ owned: true });
    expect(plan(listing, ws.ledgers[listing.packId], ws.snapshot(listing)).hasChanges).toBe(false);
  });

  it('sets the brand of a workspace that has none (or an empty one), and owns it', () => {
    for (const before of [undefined, { fields: {}, asset_urls: {} }]) {
      const ws = new WorkspaceModel();
      if (before) ws.store('brand', before);
      const p = install(ws, listing);
      expect(p.steps.find((s) => s.itemId === 'brand:brand')).toMatchObject({ action: 'create', write: true });
      expect(ws.ledgers[listing.packId].items['brand:brand']).toMatchObject({ owned: true });
      const un = planUninstall(ws.ledgers[listing.packId], ws.snapshot(listing));
      expect(un.steps.find((s) => s.itemId === 'brand:brand')).toMatchObject({ action: 'remove', write: true });
    }
  });

  it("adopts a brand that already is exactly the pack's, and never removes it", () => {
    const first = new WorkspaceModel();
    install(first, listing);
    const ws = new WorkspaceModel();
    // The same brand, images included (their addresses are the uploaded copies').
    for (const m of first.list('media')) ws.list('media').push({ ...structuredClone(m), name: m.file_name });
    ws.store('brand', structuredClone(first.list('brand')[0]));
    const p = install(ws, listing);
    expect(p.steps.find((s) => s.itemId === 'brand:brand')).toMatchObject({ action: 'adopt', write: false, owned: false });
    const un = planUninstall(ws.ledgers[listing.packId], ws.snapshot(listing));
    expect(un.steps.find((s) => s.itemId === 'brand:brand')).toMatchObject({ write: false });
  });
});

/** A new release of `pack` with one item's key renamed everywhere it is written (its references, filter values…). */
function withKeyRenamed(pack: Pack, from: string, to: string, version: string): Pack {
  const next = JSON.parse(JSON.stringify(pack).split(JSON.stringify(from)).join(JSON.stringify(to))) as Pack;
  next.version = version;
  return next;
}

describe('plan: an item whose key a release renames', () => {
  // Every kind of item the planner matches to a workspace object by name (resources of each kind,
  // pipelines, templates, smart lists, automations, media).
  const cases: [string, Pack, string, PlanItemKind][] = [
    ['tag', v100, 'tag-hot', 'resource'],
    ['contact stage', v100, 'stage-nurture', 'resource'],
    ['lead source', v100, 'src-zillow', 'resource'],
    ['custom field', listing, 'cf-listing-interest', 'resource'],
    ['email template resource', listing, 'brochure', 'resource'],
    ['pipeline', v100, 'buyer-pipeline', 'pipeline'],
    ['message template', v100, 'tpl-follow-up', 'template'],
    ['smart list', v100, 'new-buyer-leads', 'smartList'],
    ['automation', v100, 'old-reminder', 'automation'],
    ['media', listing, 'open-house-hero', 'asset'],
  ];
  for (const [label, pack, from, kind] of cases) {
    const to = `${from}-renamed`;
    const next = withKeyRenamed(pack, from, to, '9.0.0');
    const oldId = itemId(kind, from);
    const newId = itemId(kind, to);

    for (const prune of [false, true]) {
      it(`${label}: carries the pack's own object across to the new key${prune ? ' (prune)' : ''}, owned, not adopted or removed`, () => {
        expect(validatePack(next).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        const ws = new WorkspaceModel();
        install(ws, pack);
        const before = ws.ledgers[pack.packId].items[oldId];
        const p = install(ws, next, { prune });
        expect(p.steps.find((s) => s.itemId === newId)).toMatchObject({
          action: 'unchanged',
          owned: true,
          workspaceId: before.workspaceId,
          renamedFrom: from,
        });
        expect(p.steps.find((s) => s.itemId === oldId)).toBeUndefined();
        expect(p.writes).toBe(0);
        expect(p.hasChanges).toBe(true);
        const ledger = ws.ledgers[pack.packId];
        expect(ledger.items[oldId]).toBeUndefined();
        expect(ledger.items[newId]).toMatchObject({ key: to, workspaceId: before.workspaceId, owned: true, hash: before.hash });
        expect(ws.list(before.collection).some((o) => o.id === before.workspaceId)).toBe(true);
        const again = plan(next, ledger, ws.snapshot(next), { prune });
        expect(again.hasChanges).toBe(false);
        expect(again.summary.create).toBe(0);
        // Still the pack's own: a later release updates it, uninstall removes it.
        const un = planUninstall(ledger, ws.snapshot(next));
        expect(un.steps.find((s) => s.itemId === newId)).toMatchObject({ action: 'remove', write: true });
      });
    }
  }

  it("updates a renamed item whose content also changed as the pack's own; an edited one is a conflict, never removed", () => {
    const next = withKeyRenamed(v100, 'tag-hot', 'tag-hot-lead', '1.1.0');
    next.resources!.find((r) => r.key === 'tag-hot-lead')!.data = { color: '#ff0000' };
    const ws = new WorkspaceModel();
    install(ws, v100);
    const id = ws.ledgers[v100.packId].items['resource:tag-hot'].workspaceId;
    const p = install(ws, next, { prune: true });
    expect(p.steps.find((s) => s.itemId === 'resource:tag-hot-lead')).toMatchObject({
      action: 'update',
      write: true,
      workspaceId: id,
      owned: true,
    });
    expect(ws.list('tags').find((t) => t.id === id)!.color).toBe('#ff0000');
    expect(ws.list('tags').filter((t) => t.name === 'Hot lead')).toHaveLength(1);

    const edited = new WorkspaceModel();
    install(edited, v100);
    edited.edit('tags', id, { color: '#000000' });
    const q = install(edited, next, { prune: true });
    expect(q.steps.find((s) => s.itemId === 'resource:tag-hot-lead')).toMatchObject({ action: 'conflict', write: false, workspaceId: id });
    expect(edited.list('tags').find((t) => t.id === id)!.color).toBe('#000000');
    expect(edited.ledgers[v100.packId].items['resource:tag-hot-lead']).toMatchObject({ workspaceId: id, owned: true });
  });

  it('finds an object the user renamed by hand by what the ledger recorded writing: a conflict kept, no second object', () => {
    const next = withKeyRenamed(v100, 'tag-hot', 'tag-hot-lead', '1.1.0');
    const ws = new WorkspaceModel();
    install(ws, v100);
    const id = ws.ledgers[v100.packId].items['resource:tag-hot'].workspaceId;
    ws.edit('tags', id, { name: 'My hot ones' });
    const count = ws.list('tags').length;
    const p = install(ws, next, { prune: true });
    expect(p.steps.find((s) => s.itemId === 'resource:tag-hot-lead')).toMatchObject({
      action: 'conflict',
      write: false,
      workspaceId: id,
      renamedFrom: 'tag-hot',
    });
    expect(p.steps.some((s) => s.itemId === 'resource:tag-hot')).toBe(false);
    expect(ws.list('tags')).toHaveLength(count);
    expect(ws.ledgers[v100.packId].items['resource:tag-hot-lead']).toMatchObject({ workspaceId: id, owned: true });

    // Renamed together with its content as well: nothing recorded matches, so a new item and an edited orphan.
    const changed = withKeyRenamed(v100, 'tag-hot', 'tag-hot-lead', '1.1.0');
    changed.resources!.find((r) => r.key === 'tag-hot-lead')!.data = { color: '#ff0000' };
    const other = new WorkspaceModel();
    install(other, v100);
    other.edit('tags', id, { name: 'My hot ones' });
    const q = plan(changed, other.ledgers[v100.packId], other.snapshot(changed));
    expect(actions(q)).toMatchObject({ 'resource:tag-hot-lead': 'create', 'resource:tag-hot': 'orphan' });
  });

  it('carries an object the pack adopted under the old key as adopted', () => {
    const ws = new WorkspaceModel();
    ws.list('tags').push({ id: 'tag_mine', name: 'Hot lead', color: null });
    install(ws, v100);
    expect(ws.ledgers[v100.packId].items['resource:tag-hot']).toMatchObject({ workspaceId: 'tag_mine', owned: false });
    const next = withKeyRenamed(v100, 'tag-hot', 'tag-hot-lead', '1.1.0');
    const p = install(ws, next, { prune: true });
    expect(p.steps.find((s) => s.itemId === 'resource:tag-hot-lead')).toMatchObject({
      action: 'adopt',
      owned: false,
      workspaceId: 'tag_mine',
    });
    expect(ws.ledgers[v100.packId].items['resource:tag-hot-lead']).toMatchObject({ workspaceId: 'tag_mine', owned: false });
    expect(ws.list('tags').some((t) => t.id === 'tag_mine')).toBe(true);
  });

  it('never adopts by name an object the ledger holds for another item', () => {
    // A new tag of the same name as one the pack installed and still has: a second object, not the first one twice.
    const next = structuredClone(v100);
    next.version = '1.1.0';
    next.resources!.push({ key: 'tag-hot-2', kind: 'tag', name: 'hot LEAD' });
    const ws = new WorkspaceModel();
    install(ws, v100);
    const p = install(ws, next, { prune: true });
    expect(actions(p)['resource:tag-hot']).toBe('unchanged');
    expect(actions(p)['resource:tag-hot-2']).toBe('create');
    const l = ws.ledgers[v100.packId];
    expect(l.items['resource:tag-hot-2'].workspaceId).not.toBe(l.items['resource:tag-hot'].workspaceId);
  });
});

// --- properties -------------------------------------------------------------------------------

const packs = [v100, v110, listing];

/** A random shuffle of every item array of a pack (stage order and references are content, not item order). */
function shuffled(pack: Pack, seed: number[]): Pack {
  const p = structuredClone(pack);
  let i = 0;
  const shuffle = <T>(a: T[] | undefined) => {
    if (!a) return;
    for (let j = a.length - 1; j > 0; j--) {
      const k = (seed[i++ % seed.length] ?? 0) % (j + 1);
      [a[j], a[k]] = [a[k], a[j]];
    }
  };
  shuffle(p.automations);
  shuffle(p.smartLists);
  shuffle(p.messageTemplates);
  shuffle(p.pipelines);
  shuffle(p.resources);
  shuffle(p.assets);
  return p;
}

/** Random edits a user makes in the workspace between installs. */
const editArb = fc.record({
  collection: fc.constantFrom<WorkspaceCollection>('tags', 'message_templates', 'smart_lists', 'automations', 'pipelines'),
  index: fc.nat(),
  kind: fc.constantFrom('rename', 'delete'),
});

describe('plan: properties', () => {
  it('applying a plan and planning again gives no changes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(0, 1, 2), { minLength: 1, maxLength: 4 }),
        fc.array(editArb, { maxLength: 3 }),
        fc.boolean(),
        fc.boolean(),
        (seq, edits, overwrite, prune) => {
          const ws = new WorkspaceModel();
          for (const n of seq) {
            const pack = packs[n];
            for (const e of edits) {
              const list = ws.list(e.collection);
              if (!list.length) continue;
              const obj = list[e.index % list.length];
              if (e.kind === 'delete') ws.remove(e.collection, obj.id);
              else
                ws.edit(
                  e.collection,
                  obj.id,
                  e.collection === 'automations'
                    ? { draft_document: { ...(obj.document as object), name: 'Edited' } }
                    : { name: `${String(obj.name)} (edited)` },
                );
            }
            const ledger = ws.ledgers[pack.packId] ?? null;
            const options = { overwrite, prune, allowDowngrade: true };
            const p = plan(pack, ledger, ws.snapshot(pack), options);
            expect(p.errors).toEqual([]);
            apply(ws, pack, p);
            const again = plan(pack, ws.ledgers[pack.packId], ws.snapshot(pack), options);
            expect(again.writes).toBe(0);
            expect(again.hasChanges).toBe(false);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('never deletes an item edited in the workspace', () => {
    fc.assert(
      fc.property(fc.array(editArb, { minLength: 1, maxLength: 4 }), fc.boolean(), (edits, overwrite) => {
        const ws = new WorkspaceModel();
        install(ws, v100);
        const edited = new Set<string>();
        for (const e of edits) {
          const list = ws.list(e.collection);
          const obj = list[e.index % list.length];
          ws.edit(
            e.collection,
            obj.id,
            e.collection === 'automations'
              ? { draft_document: { ...(obj.document as object), name: 'Edited' } }
              : { name: `${String(obj.name)} (edited)` },
          );
          edited.add(obj.id);
        }
        for (const p of [
          plan(v110, ws.ledgers[v100.packId], ws.snapshot(v110), { prune: true, overwrite }),
          planUninstall(ws.ledgers[v100.packId], ws.snapshot(v100)),
        ]) {
          for (const s of p.steps) if (s.write && s.action === 'remove') expect(edited.has(s.workspaceId!)).toBe(false);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('the order of items in the pack does not change the plan', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(0, 1, 2),
        fc.array(fc.nat(1000), { minLength: 1, maxLength: 30 }),
        fc.boolean(),
        (n, seed, installedFirst) => {
          const ws = new WorkspaceModel();
          if (installedFirst) install(ws, v100);
          const pack = packs[n];
          const ledger = ws.ledgers[pack.packId] ?? null;
          const a = plan(pack, ledger, ws.snapshot(pack));
          const b = plan(shuffled(pack, seed), ledger, ws.snapshot(pack));
          expect(b).toEqual(a);
        },
      ),
      { numRuns: 80 },
    );
  });
});

describe('content hash', () => {
  it('is stable across key order and sees any content change', () => {
    expect(contentHash({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(contentHash({ b: [1, { d: 3, c: 2 }], a: 1 }));
    expect(contentHash({ a: 1 })).not.toBe(contentHash({ a: 2 }));
    expect(projectWorkspaceObject('tags', { id: 't', name: 'x', color: null, created_at: 'now' })).toEqual({ name: 'x', color: null });
    expect(itemId('template', 'k')).toBe('template:k');
  });

  it('writes canonical JSON: keys sorted by code unit (integer-like ones too), no whitespace, for any JSON', () => {
    // The plain statement of the form, which canonicalJson builds faster.
    const plain = (v: unknown): string =>
      Array.isArray(v)
        ? `[${v.map(plain).join(',')}]`
        : v && typeof v === 'object'
          ? `{${Object.keys(v)
              .sort()
              .map((k) => `${JSON.stringify(k)}:${plain((v as Record<string, unknown>)[k])}`)
              .join(',')}}`
          : JSON.stringify(v);
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(canonicalJson(v)).toBe(plain(v));
      }),
      { numRuns: 300 },
    );
    expect(canonicalJson({ '': 0, 0: false })).toBe('{"":0,"0":false}');
    expect(canonicalJson({ b: undefined, a: [undefined, 1] })).toBe('{"a":[null,1]}');
  });

  it("remembers a workspace object's hash per collection, equal to hashing its projection", () => {
    const obj: WorkspaceObject = { id: 'x', name: 'Hot', color: '#f00', subject: 'Hi', body: 'Hello', channel: 'email' };
    for (const collection of ['tags', 'email_templates', 'tags'] as WorkspaceCollection[])
      expect(workspaceObjectHash(collection, obj)).toBe(contentHash(projectWorkspaceObject(collection, obj)));
    expect(workspaceObjectHash('tags', obj)).not.toBe(workspaceObjectHash('email_templates', obj));
  });
});

describe('markReferences: what plan would do with each reference, for editors', () => {
  it("marks pack items, bound, creatable, ambiguous and unresolved references with the planner's own binding", () => {
    const ws = new WorkspaceModel([{ name: 'Jordan Lee' }, { name: 'Casey Kim' }, { name: 'casey kim' }]);
    ws.list('tags').push({ id: 'tag_77', name: 'Buyer lead' });
    const pack = structuredClone(v100);
    const refs = pack.automations![0].document.references!;
    refs.push(
      { type: 'tag', id: 'tag-new', name: 'Brand new' },
      { type: 'user', id: 'usr-casey', name: 'Casey Kim' },
      { type: 'team', id: 'team-x' },
    );
    const byKey = markReferences(pack, null, ws.snapshot(pack));
    const planned = plan(pack, null, ws.snapshot(pack));
    // Every binding and every reference error of the plan has its mark, in the same words.
    for (const b of planned.bindings) expect(byKey.get(bindingKey(b.type, b.id))!.source).toBe(b.source);
    for (const e of planned.errors) expect(byKey.get(bindingKey(e.reference!.type, e.reference!.id))!.message).toBe(e.message);
    expect(byKey.get('user:usr_8841')).toMatchObject({ state: 'bound', source: 'name', workspaceId: ws.collections.members[0].id });
    expect(byKey.get('tag:tag-new')).toMatchObject({ state: 'create', source: 'create' });
    expect(byKey.get('user:usr-casey')).toMatchObject({ state: 'ambiguous' });
    expect(byKey.get('team:team-x')).toMatchObject({ state: 'unresolved' });
    expect(byKey.get('team:team-x')!.message).toMatch(/has no name to match/);
    const packRef = [...byKey.values()].find((m) => m.state === 'pack');
    expect(packRef?.source).toBe('pack');
  });

  it('derives the id of a picked workspace object as export does, avoiding ids already taken', () => {
    expect(pickedReferenceId('tag', 'Buyer lead', [])).toBe('tag-buyer-lead');
    expect(pickedReferenceId('deal_stage', 'Closed – won', [])).toBe('deal-stage-closed-won');
    expect(pickedReferenceId('tag', 'Buyer lead', new Set(['tag-buyer-lead', 'tag-buyer-lead-2']))).toBe('tag-buyer-lead-3');
  });
});
