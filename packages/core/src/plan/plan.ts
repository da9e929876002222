// The upgrade planner: pack + ledger + workspace snapshot → plan. Pure: no I/O, no clock, no
// randomness; the same inputs give the same plan whatever the order of items in the pack.
import { setOwn } from '../own.js';
import { count, Needles } from '../text.js';
import type { Pack, Resource } from '../types.js';
import { apiLimitErrors } from './limits.js';
import {
  bindingKey,
  bindReferences,
  byName,
  COLLECTION_OF_REFERENCE,
  itemBindings,
  normalizeName,
  PackTargets,
  type CreatedResource,
} from './bind.js';
import { blockReferences } from './block-refs.js';
import {
  canonicalJson,
  assetContent,
  automationContent,
  brandAssetToken,
  brandContent,
  emailImageAddresses,
  isBrandAsset,
  COLLECTION_OF_RESOURCE_KIND,
  contentHash,
  itemId,
  itemLabel,
  PHASE,
  pipelineContent,
  projectWorkspaceObject,
  resourceContent,
  smartListContent,
  templateContent,
  workspaceObjectHash,
  type Json,
} from './content.js';
import { applyRewrites, idempotencyKeyFor, ledgerItemForExisting, resolveTarget, resumedRun, type ResolvedItem } from './resolve.js';
import { compareSemver } from './version.js';
import { differingFields } from '../diff/compare.js';
import { ledgerSourceOf } from '../export/export.js';
import type {
  BindingTarget,
  InstallLedger,
  LedgerItem,
  Plan,
  PlanError,
  PlanItemKind,
  PlanOptions,
  PlanStep,
  PlanSummary,
  PlanWarning,
  ReferenceBinding,
  Rewrite,
  WorkspaceCollection,
  WorkspaceObject,
  WorkspaceSnapshot,
} from './types.js';

/** Resource kinds an existing workspace object of the same name is adopted for, instead of creating a duplicate. */
const ADOPTABLE: ReadonlySet<Resource['kind']> = new Set(['tag', 'contact_stage', 'lead_source', 'custom_field']);

interface Desired {
  itemId: string;
  kind: PlanItemKind;
  key: string;
  name: string;
  collection: WorkspaceCollection;
  content: Record<string, Json>;
  rewrites: Rewrite[];
  stageKeys?: string[];
  extra?: Record<string, unknown>;
  adoptable: boolean;
}

export interface PlanResult extends Plan {
  /**
   * Ledger entries to record without a write (adopted objects, copies that already match, items
   * gone from the workspace: null removes the entry). Apply merges them with its own writes.
   */
  ledgerUpdates: Record<string, LedgerItem | null>;
  /** Bindings of references the pack does not carry, for the ledger. */
  ledgerBindings: Record<string, string>;
}

/** Collections the planner reads for this pack and ledger; the installer fetches exactly these. */
export function requiredCollections(pack: Pack, ledger: InstallLedger | null): WorkspaceCollection[] {
  const set = new Set<WorkspaceCollection>();
  for (const r of pack.resources ?? []) set.add(COLLECTION_OF_RESOURCE_KIND[r.kind]);
  if (pack.pipelines?.length) set.add('pipelines');
  if (pack.messageTemplates?.length) set.add('message_templates');
  if ((pack.assets ?? []).some((a) => a.data != null)) set.add('media');
  if (pack.brand) set.add('brand');
  if (pack.smartLists?.length) set.add('smart_lists');
  if (pack.automations?.length) set.add('automations');
  for (const a of pack.automations ?? []) for (const r of a.document.references ?? []) set.add(COLLECTION_OF_REFERENCE[r.type]);
  for (const item of Object.values(ledger?.items ?? {})) set.add(item.collection);
  return [...set].sort();
}

function compareVersions(from: string | null, to: string): Plan['versionChange'] {
  if (from === null) return 'install';
  if (from === to) return 'same';
  const c = compareSemver(from, to);
  if (c === null) return 'unknown';
  return c < 0 ? 'upgrade' : c > 0 ? 'downgrade' : 'same';
}

/** Every item the pack wants in the workspace, with content before rewrites. */
function desiredItems(
  pack: Pack,
  createdResources: CreatedResource[],
  bindings: ReferenceBinding[],
  unlisted: ReadonlyMap<string, Rewrite[]>,
): Desired[] {
  const out: Desired[] = [];
  const target = new Map(bindings.map((b) => [bindingKey(b.type, b.id), b.target]));
  const resources = [
    ...(pack.resources ?? []).map((r) => ({ id: itemId('resource', r.key), r })),
    ...createdResources.map((c) => ({ id: c.itemId, r: c.resource })),
  ];
  for (const { id, r } of resources) {
    out.push({
      itemId: id,
      kind: 'resource',
      key: r.key,
      name: r.name,
      collection: COLLECTION_OF_RESOURCE_KIND[r.kind],
      content: resourceContent(r),
      rewrites: [],
      adoptable: ADOPTABLE.has(r.kind),
    });
  }
  for (const p of pack.pipelines ?? []) {
    out.push({
      itemId: itemId('pipeline', p.key),
      kind: 'pipeline',
      key: p.key,
      name: p.name,
      collection: 'pipelines',
      content: pipelineContent(p),
      rewrites: [],
      stageKeys: p.stages.map((s) => s.key),
      adoptable: false,
    });
  }
  // Email images are uploaded (when the pack carries the bytes) and their source address rewritten.
  const urlRewrites: Rewrite[] = [];
  for (const a of pack.assets ?? []) {
    if (a.data != null) {
      out.push({
        itemId: itemId('asset', a.key),
        kind: 'asset',
        key: a.key,
        name: a.fileName,
        collection: 'media',
        content: assetContent(a),
        rewrites: [],
        extra: { data: a.data },
        adoptable: false,
      });
    }
  }
  for (const { sourceUrl, asset: a } of emailImageAddresses(pack.assets ?? [])) {
    if (a.data != null) urlRewrites.push({ kind: 'url', from: sourceUrl, target: { itemId: itemId('asset', a.key) } });
    else if (a.url && a.url !== sourceUrl) urlRewrites.push({ kind: 'url', from: sourceUrl, target: { url: a.url } });
  }
  const addresses = new Needles(urlRewrites.map((rw) => rw.from));
  for (const t of pack.messageTemplates ?? []) {
    const content = templateContent(t);
    // The addresses a template uses, in one pass over its text (a pack may carry thousands).
    const used = urlRewrites.length ? addresses.in(canonicalText(content)) : undefined;
    out.push({
      itemId: itemId('template', t.key),
      kind: 'template',
      key: t.key,
      name: t.name,
      collection: 'message_templates',
      content,
      rewrites: used ? urlRewrites.filter((rw) => used.has(rw.from)) : [],
      adoptable: false,
    });
  }
  if (pack.brand) {
    const assets = pack.assets ?? [];
    const rewrites: Rewrite[] = assets.filter(isBrandAsset).map((a) => ({
      kind: 'url',
      from: brandAssetToken(a.key),
      target: a.data != null ? { itemId: itemId('asset', a.key) } : { url: a.url ?? '' },
    }));
    out.push({
      itemId: itemId('brand', 'brand'),
      kind: 'brand',
      key: 'brand',
      name: String(pack.brand.name ?? 'Brand'),
      collection: 'brand',
      content: brandContent(pack.brand, assets),
      rewrites,
      adoptable: false,
    });
  }
  out.push(...desiredSmartLists(pack), ...desiredAutomations(pack, target, unlisted));
  return out;
}

/** The pack's smart lists: filter values naming a pack resource by key become the resource's workspace id. */
function desiredSmartLists(pack: Pack): Desired[] {
  const out: Desired[] = [];
  const resourceKeys = new Set((pack.resources ?? []).filter((r) => r.kind !== 'email_template').map((r) => r.key));
  for (const s of pack.smartLists ?? []) {
    const content = smartListContent(s);
    const used = new Set<string>();
    collectFilterValues(content.filters, used);
    const rewrites: Rewrite[] = [...used]
      .filter((v) => resourceKeys.has(v))
      .sort()
      .map((v) => ({ kind: 'reference', from: v, target: { itemId: itemId('resource', v) } }));
    out.push({
      itemId: itemId('smartList', s.key),
      kind: 'smartList',
      key: s.key,
      name: s.name,
      collection: 'smart_lists',
      content,
      rewrites,
      adoptable: false,
    });
  }
  return out;
}

/** The pack's automations, their references rewritten to what they were bound to. */
function desiredAutomations(pack: Pack, target: ReadonlyMap<string, BindingTarget>, unlisted: ReadonlyMap<string, Rewrite[]>): Desired[] {
  const out: Desired[] = [];
  for (const a of pack.automations ?? []) {
    const seen = new Set<string>();
    const rewrites: Rewrite[] = [];
    for (const r of a.document.references ?? []) {
      const t = target.get(bindingKey(r.type, r.id));
      const k = bindingKey(r.type, r.id);
      if (!t || seen.has(k)) continue;
      seen.add(k);
      rewrites.push({ kind: 'reference', from: r.id, target: t, refType: r.type });
    }
    rewrites.push(...(unlisted.get(a.key) ?? []));
    const typeOf = (rw: Rewrite) => (rw.kind === 'reference' ? (rw.refType ?? '') : '');
    rewrites.sort((x, y) => (x.from < y.from ? -1 : x.from > y.from ? 1 : typeOf(x) < typeOf(y) ? -1 : typeOf(x) > typeOf(y) ? 1 : 0));
    out.push({
      itemId: itemId('automation', a.key),
      kind: 'automation',
      key: a.key,
      name: a.document.name,
      collection: 'automations',
      content: automationContent(a),
      rewrites,
      adoptable: false,
    });
  }
  return out;
}

const canonicalText = (v: unknown) => JSON.stringify(v);

function collectFilterValues(v: Json, out: Set<string>): void {
  if (Array.isArray(v)) for (const x of v) collectFilterValues(x, out);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === 'value') {
        if (typeof x === 'string') out.add(x);
        else if (Array.isArray(x)) for (const y of x) if (typeof y === 'string') out.add(y);
      } else collectFilterValues(x, out);
    }
  }
}

function dependsOn(rewrites: Rewrite[]): string[] {
  const s = new Set<string>();
  for (const rw of rewrites) if ('itemId' in rw.target) s.add(rw.target.itemId);
  return [...s].sort();
}

/**
 * Orders desired items by phase, then key; automations that run other automations come after
 * them. Automations may run themselves or each other in a cycle (the format allows it): each
 * edge that closes a cycle is "late" — the automation is written first without that id and
 * completed by a second write once the automation it runs exists.
 */
function orderItems(items: Desired[]): { ordered: Desired[]; late: Map<string, Set<string>> } {
  const sorted = [...items].sort((a, b) => PHASE[a.kind] - PHASE[b.kind] || (a.itemId < b.itemId ? -1 : a.itemId > b.itemId ? 1 : 0));
  const autos = sorted.filter((d) => d.kind === 'automation');
  const late = new Map<string, Set<string>>();
  const ids = new Set(autos.map((a) => a.itemId));
  const done = new Set<string>();
  const ordered: Desired[] = [];
  const visiting = new Set<string>();
  const byId = new Map(autos.map((a) => [a.itemId, a]));
  const visit = (d: Desired): void => {
    visiting.add(d.itemId);
    for (const dep of dependsOn(d.rewrites)) {
      if (!ids.has(dep) || done.has(dep)) continue;
      if (visiting.has(dep)) {
        if (!late.has(d.itemId)) late.set(d.itemId, new Set());
        late.get(d.itemId)!.add(dep);
      } else visit(byId.get(dep)!);
    }
    visiting.delete(d.itemId);
    done.add(d.itemId);
    ordered.push(d);
  };
  for (const a of autos) if (!done.has(a.itemId)) visit(a);
  return { ordered: [...sorted.filter((d) => d.kind !== 'automation'), ...ordered], late };
}

/** What an update changes, as diff says it: `content changed: body, subject` (an automation's document by its parts). */
function changedWords(installed: Record<string, Json>, desired: Record<string, Json>): string {
  const fields = differingFields(installed, desired, NESTED_CONTENT);
  if (!fields.length) return 'content changed';
  return `content changed: ${fields.slice(0, 4).join(', ')}${fields.length > 4 ? ` and ${count(fields.length - 4)} more` : ''}`;
}
const NESTED_CONTENT: ReadonlySet<string> = new Set(['document', 'data']);

/**
 * An object an interrupted run created for this very item and content, before it could checkpoint
 * it: found by the idempotency key its creation carried. An automation in a cycle was created first
 * with the keys of the automations it runs that did not exist yet (completed by a second write), so
 * its creation's key is that first content's; without looking for it, the resumed run planned it as
 * new and its creation was answered with the interrupted run's object.
 */
function madeByInterruptedRun(
  packId: string,
  ledger: InstallLedger | null,
  createdByKey: Record<string, string>,
  step: PlanStep,
  desiredHash: string | undefined,
  lateTargets: Set<string> | undefined,
  lookup: (id: string) => ResolvedItem | undefined,
  find: (c: WorkspaceCollection, id: string) => WorkspaceObject | undefined,
): WorkspaceObject | undefined {
  let hash = desiredHash;
  if (hash === undefined && lateTargets) {
    const first = applyRewrites(
      {
        ...step,
        rewrites: step.rewrites.filter((rw) => !('itemId' in rw.target) || !lateTargets.has(rw.target.itemId) || lookup(rw.target.itemId)),
      },
      lookup,
    );
    hash = first && contentHash(first);
  }
  const id = hash === undefined ? undefined : createdByKey[idempotencyKeyFor(packId, resumedRun(ledger), step.itemId, hash)];
  return id === undefined ? undefined : find(step.collection, id);
}

const emptySummary = (): PlanSummary => ({ create: 0, update: 0, remove: 0, conflict: 0, orphan: 0, unchanged: 0, adopt: 0 });

/**
 * Plans installing `pack` over what `ledger` recorded, against the workspace as `snapshot` shows
 * it. See docs/install.md for the rules (release order, per-item actions, binding, rewrites).
 * The steps: refuse what cannot be planned, bind references and order the items, decide each
 * item's action, drop what a kept brand makes unused, check stages, plan the orphans, and say what
 * the ledger records.
 */
export function plan(pack: Pack, ledger: InstallLedger | null, snapshot: WorkspaceSnapshot, options: PlanOptions = {}): PlanResult {
  const errors: PlanError[] = [];
  const fromVersion = ledger?.version ?? null;
  const base: PlanResult = {
    ok: false,
    errors,
    warnings: [],
    packId: pack.packId,
    packName: pack.name,
    fromVersion,
    toVersion: pack.version,
    versionChange: compareVersions(fromVersion, pack.version),
    steps: [],
    bindings: [],
    summary: emptySummary(),
    hasChanges: false,
    writes: 0,
    ledgerUpdates: {},
    ledgerBindings: {},
  };
  const refused = refusal(pack, ledger, base.versionChange, options);
  if (refused) {
    errors.push(refused);
    return base;
  }
  for (const c of requiredCollections(pack, ledger)) {
    if (!snapshot.collections[c]) throw new Error(`plan: the snapshot lacks the ${c} collection (fetch requiredCollections())`);
  }

  errors.push(...apiLimitErrors(pack));
  const blocks = blockReferences(pack, new PackTargets(pack));
  errors.push(...blocks.errors);
  const bound = bindReferences(pack, ledger, snapshot, options);
  errors.push(...bound.errors);
  base.bindings = bound.bindings;
  const { ordered: items, late } = orderItems(desiredItems(pack, bound.createdResources, bound.bindings, blocks.unlisted));
  if (errors.length) return base;

  const p = startPlanning({ pack, ledger, snapshot, options, errors, late }, items, bound.createdResources);
  const steps: PlanStep[] = [];
  // Second writes of automations in a cycle, once every automation they run exists.
  const completions: PlanStep[] = [];
  for (const d of items) {
    const step = planItem(p, d);
    const completion = splitLateRewrites(p, step);
    if (completion) completions.push(completion);
    p.summary[step.action]++;
    steps.push(step);
  }
  skipUnusedBrandImages(p, steps);
  const stages = missingStages(steps, new Map(items.map((d) => [d.itemId, d.rewrites])), p.lookup, p.find);
  errors.push(...stages.errors);
  p.warnings.push(...stages.warnings);
  steps.push(...completions);
  if (errors.length) return base;

  const orphans = planOrphans(p, new Set(items.map((d) => d.itemId)), bound.bindings);
  return finishPlan(p, base, [...steps, ...orphans], bound.bindings);
}

/** Why this pack cannot be planned over this ledger at all: another pack's ledger, or a downgrade not asked for. */
function refusal(
  pack: Pack,
  ledger: InstallLedger | null,
  versionChange: Plan['versionChange'],
  options: PlanOptions,
): PlanError | undefined {
  if (ledger && ledger.packId !== pack.packId)
    return { code: 'plan/pack-id-mismatch', message: `The ledger is for pack ${ledger.packId}, not ${pack.packId}` };
  if (versionChange === 'downgrade' && !options.allowDowngrade) {
    return {
      code: 'plan/downgrade',
      message: `Version ${pack.version} is lower than the installed ${ledger?.version}; a downgrade must be asked for explicitly (setup-pack install --allow-downgrade)`,
    };
  }
  return undefined;
}

/** Lookups into the snapshot, each collection indexed on its first use. */
interface WorkspaceIndex {
  find: (c: WorkspaceCollection, id: string) => WorkspaceObject | undefined;
  /** A collection's objects by name (trimmed, case-insensitive; in the snapshot's order). */
  sameNamed: (c: WorkspaceCollection, name: string) => WorkspaceObject[];
}

function indexWorkspace(snapshot: WorkspaceSnapshot): WorkspaceIndex {
  const byId = new Map<WorkspaceCollection, Map<string, WorkspaceObject>>();
  // Indexed once: matching each item's name against every object made a plan quadratic in a large workspace.
  const named = new Map<WorkspaceCollection, Map<string, WorkspaceObject[]>>();
  return {
    find: (c, id) => {
      let m = byId.get(c);
      if (!m) byId.set(c, (m = new Map((snapshot.collections[c] ?? []).map((o) => [o.id, o]))));
      return m.get(id);
    },
    sameNamed: (c, name) => {
      let m = named.get(c);
      if (!m) named.set(c, (m = byName(snapshot.collections[c] ?? [])));
      return m.get(normalizeName(name)) ?? [];
    },
  };
}

/** What planning one release reads and builds up, shared by its steps. */
interface Planning extends WorkspaceIndex {
  pack: Pack;
  ledger: InstallLedger | null;
  snapshot: WorkspaceSnapshot;
  options: PlanOptions;
  errors: PlanError[];
  warnings: PlanWarning[];
  summary: PlanSummary;
  /** Items whose workspace ids are known at plan time (not being created): rewrites resolve against them. */
  known: Map<string, ResolvedItem>;
  lookup: (id: string) => ResolvedItem | undefined;
  ledgerUpdates: Record<string, LedgerItem | null>;
  /** Objects this pack's ledger holds are its own: never adopted by name or content for another item. */
  claimed: Set<string>;
  /** Items whose key the release renamed (or moved), with the old key's ledger entry they take over. */
  renames: Map<string, { from: string; entry: LedgerItem }>;
  /** An item's ledger entry: its own, or the one it took over. */
  prevOf: (id: string) => LedgerItem | undefined;
  /** Automations in a cycle: for each, the automations it runs that are written after it (orderItems). */
  late: Map<string, Set<string>>;
}

function startPlanning(
  given: Pick<Planning, 'pack' | 'ledger' | 'snapshot' | 'options' | 'errors' | 'late'>,
  items: Desired[],
  createdResources: CreatedResource[],
): Planning {
  const { ledger } = given;
  const index = indexWorkspace(given.snapshot);
  const known = new Map<string, ResolvedItem>();
  // An item whose key the release renamed takes over its old key's ledger entry (owned as before).
  // A resource created for a reference, recorded by an older install under the pack key namespace,
  // moves to its own item id; that entry is no other item's to take over.
  const legacy = new Map(createdResources.filter((c) => c.legacyItemId).map((c) => [c.itemId, c.legacyItemId!]));
  const wanted = new Set(items.map((d) => d.itemId));
  const renames = renamedKeys(
    items.filter((d) => !legacy.has(d.itemId)),
    ledger,
    new Set([...wanted, ...legacy.values()]),
    index.find,
  );
  for (const [id, from] of legacy) renames.set(id, { from, entry: ledger!.items[from] });
  const prevOf = (id: string): LedgerItem | undefined => ledger?.items[id] ?? renames.get(id)?.entry;
  // Items that keep their workspace object whatever this plan does with them: their ids are known
  // up front, so an automation in a cycle resolves against one planned after it.
  for (const d of items) {
    const prev = prevOf(d.itemId);
    const existing = prev ? index.find(prev.collection, prev.workspaceId) : undefined;
    if (prev && existing)
      known.set(d.itemId, {
        workspaceId: existing.id,
        url: typeof existing.url === 'string' ? existing.url : prev.url,
        stages: prev.stages,
      });
  }
  return {
    ...given,
    ...index,
    warnings: [],
    summary: emptySummary(),
    known,
    lookup: (id) => known.get(id),
    ledgerUpdates: {},
    claimed: new Set(Object.values(ledger?.items ?? {}).map((it) => it.workspaceId)),
    renames,
    prevOf,
  };
}

/** One item as its step is decided: what the release wants, what the ledger and the workspace hold. */
interface ItemState {
  d: Desired;
  step: PlanStep;
  prev: LedgerItem | undefined;
  existing: WorkspaceObject | undefined;
  /** The content with every rewrite resolved; undefined while it refers to an item being created. */
  resolved: Record<string, Json> | undefined;
  desiredHash: string | undefined;
}

/** The step of one desired item: created, updated, adopted, unchanged or in conflict. */
function planItem(p: Planning, d: Desired): PlanStep {
  const prev = p.prevOf(d.itemId);
  const existing = prev ? p.find(prev.collection, prev.workspaceId) : undefined;
  const renamed = p.renames.get(d.itemId);
  if (renamed) {
    // Recorded under the new key whatever happens below (a write or a refresh records it again).
    p.ledgerUpdates[d.itemId] = renamed.entry;
    p.ledgerUpdates[renamed.from] = null;
  }
  const step: PlanStep = {
    itemId: d.itemId,
    kind: d.kind,
    key: d.key,
    name: d.name,
    collection: d.collection,
    action: 'create',
    write: true,
    phase: PHASE[d.kind],
    reason: '',
    content: d.content,
    rewrites: d.rewrites,
    dependsOn: dependsOn(d.rewrites),
    owned: true,
  };
  if (d.stageKeys) step.stageKeys = d.stageKeys;
  if (d.extra) step.extra = d.extra;
  if (renamed && p.ledger!.items[renamed.from].key !== d.key) step.renamedFrom = p.ledger!.items[renamed.from].key;
  const resolved = applyRewrites(step, p.lookup);
  const s: ItemState = { d, step, prev, existing, resolved, desiredHash: resolved ? contentHash(resolved) : undefined };
  decideAction(p, s);
  settleStep(p, s);
  return step;
}

function decideAction(p: Planning, s: ItemState): void {
  const { d, step, prev, existing } = s;
  const ours =
    !existing && p.snapshot.createdByKey
      ? madeByInterruptedRun(p.pack.packId, p.ledger, p.snapshot.createdByKey, step, s.desiredHash, p.late.get(d.itemId), p.lookup, p.find)
      : undefined;
  if (ours) resumeInterrupted(p, s, ours);
  else if (prev && existing && !prev.owned) {
    // Adopted earlier: the user's object, bound by name; never written.
    Object.assign(step, {
      action: 'adopt',
      write: false,
      workspaceId: existing.id,
      owned: false,
      reason: 'existing workspace object, adopted by name',
    });
  } else if (prev && existing) fromInstalled(p, s, prev, existing);
  else if (d.adoptable && (!prev || prev.owned)) adoptByName(p, s);
  else if (d.kind === 'brand' && !prev) planBrand(p, s);
  else adoptTwinOrCreate(p, s);
}

/** An object the interrupted run made for this item (madeByInterruptedRun): recorded, and written again only if it differs. */
function resumeInterrupted(p: Planning, { d, step, desiredHash }: ItemState, ours: WorkspaceObject): void {
  step.workspaceId = ours.id;
  if (workspaceObjectHash(d.collection, ours) === desiredHash) {
    Object.assign(step, { action: 'unchanged', write: false, refreshLedger: true, reason: 'created by the interrupted run' });
    p.ledgerUpdates[d.itemId] = ledgerItemForExisting(step, ours, desiredHash);
  } else {
    Object.assign(step, { action: 'update', reason: 'created by the interrupted run, content differs' });
    // Recorded as the pack's from the run's start, so its own write (an automation that runs
    // itself) and a run killed again find it; no source hash matches, so it is written.
    p.ledgerUpdates[d.itemId] = ledgerItemForExisting(step, ours, '');
  }
}

/** An item the pack installed and owns, still in the workspace: up to date, updated, or edited there (a conflict). */
function fromInstalled(p: Planning, { d, step, resolved, desiredHash }: ItemState, prev: LedgerItem, existing: WorkspaceObject): void {
  step.workspaceId = existing.id;
  const wsHash = workspaceObjectHash(d.collection, existing);
  if (wsHash === prev.hash) {
    if (desiredHash !== undefined && desiredHash === prev.sourceHash)
      Object.assign(step, { action: 'unchanged', write: false, reason: 'up to date' });
    else
      Object.assign(step, {
        action: 'update',
        reason:
          desiredHash === undefined
            ? 'refers to an item being created'
            : changedWords(projectWorkspaceObject(d.collection, existing), resolved!),
      });
  } else if (desiredHash !== undefined && desiredHash === wsHash) {
    // The copy already is what we would write (an interrupted run wrote it): just record it.
    Object.assign(step, { action: 'unchanged', write: false, refreshLedger: true, reason: 'workspace copy already matches' });
    p.ledgerUpdates[d.itemId] = ledgerItemForExisting(step, existing, desiredHash, prev);
  } else {
    const overwrite = !!p.options.overwrite;
    Object.assign(step, {
      action: 'conflict',
      resolution: overwrite ? 'overwrite' : 'keep',
      write: overwrite,
      reason: 'edited in the workspace since it was installed',
    });
  }
}

/** A resource of an adoptable kind (a tag, a stage...): the workspace's object of its name, when there is one. */
function adoptByName(p: Planning, { d, step, prev, desiredHash }: ItemState): void {
  const matches = p.sameNamed(d.collection, d.name).filter((o) => !p.claimed.has(o.id));
  if (matches.length > 1) {
    p.errors.push({
      code: 'plan/ambiguous-resource',
      message: `Resource ${d.key} ("${d.name}") matches ${count(matches.length)} workspace ${d.collection} by name; rename one of them`,
      candidates: matches.map((m) => ({ id: m.id, name: m.name })),
    });
  } else if (matches.length === 1) {
    // Each workspace object is adopted once: a second item of the same name (another case or
    // spacing) is created, as the workspace allows two objects of one name.
    p.claimed.add(matches[0].id);
    Object.assign(step, {
      action: 'adopt',
      write: false,
      workspaceId: matches[0].id,
      owned: false,
      reason: 'existing workspace object with the same name',
    });
    p.ledgerUpdates[d.itemId] = ledgerItemForExisting(step, matches[0], desiredHash ?? contentHash(d.content));
  } else step.reason = prev ? 'missing from the workspace' : 'new';
}

/**
 * The brand, not installed before. The workspace has one brand: one that is exactly the pack's is
 * adopted; one the user set (or another pack wrote) is theirs: a conflict, kept unless overwrite.
 * An unset one is ours to set.
 */
function planBrand(p: Planning, { d, step }: ItemState): void {
  const theirs = (p.snapshot.collections.brand ?? []).find(isSetBrand);
  const found = theirs ? identicalTwin([theirs], d, step, p.lookup, p.claimed) : undefined;
  if (found) {
    Object.assign(step, {
      action: 'adopt',
      write: false,
      workspaceId: found.twin.id,
      owned: false,
      reason: "the workspace's brand already is this one",
    });
    p.ledgerUpdates[d.itemId] = ledgerItemForExisting(step, found.twin, found.sourceHash);
  } else if (theirs) {
    const named = brandName(theirs);
    const overwrite = !!p.options.overwrite;
    Object.assign(step, {
      action: 'conflict',
      resolution: overwrite ? 'overwrite' : 'keep',
      write: overwrite,
      workspaceId: theirs.id,
      owned: overwrite,
      reason: `the workspace's own brand${named ? ` "${named}"` : ''}, not set by this pack`,
    });
  } else step.reason = 'new';
}

/**
 * An object the workspace already holds with the same name and exactly this content (a snapshot
 * installed back, a workspace's default pipeline): bound to it, not duplicated. Otherwise created.
 */
function adoptTwinOrCreate(p: Planning, { d, step, prev }: ItemState): void {
  const found = !prev
    ? identicalTwin(
        d.kind === 'brand' ? (p.snapshot.collections[d.collection] ?? []) : p.sameNamed(d.collection, d.name),
        d,
        step,
        p.lookup,
        p.claimed,
      )
    : undefined;
  if (found) {
    const { twin, sourceHash } = found;
    p.claimed.add(twin.id);
    Object.assign(step, {
      action: 'adopt',
      write: false,
      workspaceId: twin.id,
      owned: false,
      reason: 'existing workspace object with the same name and content',
    });
    p.ledgerUpdates[d.itemId] = ledgerItemForExisting(step, twin, sourceHash);
  } else step.reason = prev ? 'missing from the workspace' : 'new';
}

/** After the action: what an adoption leaves out, a written pipeline's live stages, the item's id for later rewrites, and no content on a step that writes nothing. */
function settleStep(p: Planning, { d, step, prev, resolved }: ItemState): void {
  if (step.action === 'adopt' && step.workspaceId && resolved) {
    // The pack never writes an object it adopted: what of the pack's content it lacks is not installed.
    const adopted = adoptedDiffers(step, p.find(d.collection, step.workspaceId)!, resolved, !prev);
    if (adopted) p.warnings.push(adopted);
  }
  if (step.write && step.workspaceId && prev?.stages) {
    // Stages the user removed by hand from a pipeline this run writes (an --overwrite): the
    // ledger's ids for them address nothing, and the workspace refuses a write naming one. They
    // are left out of its entry, so the write adds those stages anew and what moves deals to them
    // waits for the new ids.
    const stages = liveStages(prev.stages, p.find(d.collection, step.workspaceId));
    if (stages) p.ledgerUpdates[d.itemId] = { ...(p.ledgerUpdates[d.itemId] ?? prev), stages };
  }
  if (step.action !== 'create' && step.workspaceId) {
    const obj = p.find(d.collection, step.workspaceId)!;
    p.known.set(d.itemId, {
      workspaceId: step.workspaceId,
      url: typeof obj.url === 'string' ? obj.url : prev?.url,
      stages: p.ledgerUpdates[d.itemId]?.stages ?? prev?.stages ?? stageMap(d.stageKeys, obj),
    });
  }
  if (!step.write) {
    delete step.content;
    delete step.extra;
    step.rewrites = [];
  }
}

/**
 * An automation that runs automations created later in this run: written first with their keys as
 * they are, then completed with their ids by the step returned (the second write).
 */
function splitLateRewrites(p: Planning, step: PlanStep): PlanStep | undefined {
  const pending = step.write ? [...(p.late.get(step.itemId) ?? [])].filter((t) => !p.known.has(t)) : [];
  if (!pending.length) return undefined;
  const first = step.rewrites.filter((rw) => !('itemId' in rw.target) || !pending.includes(rw.target.itemId));
  const completion: PlanStep = {
    ...step,
    action: 'update',
    reason: 'the ids of automations it runs, created in this run',
    rewrites: step.rewrites,
    dependsOn: dependsOn(step.rewrites),
  };
  step.rewrites = first;
  step.dependsOn = dependsOn(first);
  return completion;
}

/**
 * The brand kept as the workspace's own (a conflict kept): the pack's brand images show nowhere
 * else (isBrandAsset), so those not uploaded yet are not uploaded for nothing. --overwrite, which
 * writes the brand, uploads them; export leaves them out of an install that kept the brand.
 */
function skipUnusedBrandImages(p: Planning, steps: PlanStep[]): void {
  const brandStep = steps.find((st) => st.kind === 'brand');
  if (brandStep?.action !== 'conflict' || brandStep.write) return;
  const brandImages = new Set((p.pack.assets ?? []).filter(isBrandAsset).map((a) => itemId('asset', a.key)));
  const unused = steps.filter((st) => st.action === 'create' && brandImages.has(st.itemId) && !p.prevOf(st.itemId));
  if (!unused.length) return;
  const skipped = new Set(unused.map((st) => st.itemId));
  for (let i = steps.length - 1; i >= 0; i--) if (skipped.has(steps[i].itemId)) steps.splice(i, 1);
  p.summary.create -= unused.length;
  brandStep.dependsOn = brandStep.dependsOn.filter((id) => !skipped.has(id));
  brandStep.reason += `, so the pack's brand image${unused.length === 1 ? '' : 's'} ${unused.map((st) => st.key).join(', ')} ${unused.length === 1 ? 'is' : 'are'} not uploaded either`;
}

/**
 * Orphans: installed items the new release no longer has. Removed only with prune, only unedited,
 * and only when no other installed pack holds them; in reverse phase order.
 */
function planOrphans(p: Planning, wanted: ReadonlySet<string>, bindings: readonly ReferenceBinding[]): PlanStep[] {
  const holderOf = heldByOthers(p.pack.packId, p.options.others ?? []);
  // Workspace objects (and pipeline stages) this release's references are bound to, by name, a
  // recorded binding or --bind: a dropped item's object one of them uses is not removed under it.
  const boundTo = new Map<string, ReferenceBinding>();
  for (const b of bindings) if ('workspaceId' in b.target && !boundTo.has(b.target.workspaceId)) boundTo.set(b.target.workspaceId, b);
  const carried = new Set([...p.renames.values()].map((r) => r.from));
  const orphans: PlanStep[] = [];
  for (const id of Object.keys(p.ledger?.items ?? {}).sort()) {
    if (wanted.has(id) || carried.has(id)) continue;
    const step = orphanStep(p, id, p.ledger!.items[id], holderOf, boundTo);
    p.summary[step.action]++;
    orphans.push(step);
  }
  return orphans.sort((a, b) => b.phase - a.phase || (a.itemId < b.itemId ? -1 : 1));
}

function orphanStep(
  p: Planning,
  id: string,
  prev: LedgerItem,
  holderOf: (item: LedgerItem) => InstallLedger | undefined,
  boundTo: ReadonlyMap<string, ReferenceBinding>,
): PlanStep {
  const existing = p.find(prev.collection, prev.workspaceId);
  const step: PlanStep = {
    itemId: id,
    kind: prev.kind,
    key: prev.key,
    name: String(existing?.name ?? prev.key),
    collection: prev.collection,
    action: 'orphan',
    write: false,
    phase: PHASE[prev.kind],
    workspaceId: prev.workspaceId,
    reason: '',
    rewrites: [],
    dependsOn: [],
    owned: prev.owned,
  };
  if (!existing) {
    Object.assign(step, { action: 'remove', reason: 'gone from the release and from the workspace' });
    p.ledgerUpdates[id] = null;
  } else if (!prev.owned) {
    Object.assign(step, { action: 'remove', reason: 'gone from the release; adopted object left in place' });
    p.ledgerUpdates[id] = null;
  } else if (workspaceObjectHash(prev.collection, existing) !== prev.hash) {
    step.reason = 'gone from the release, edited in the workspace: kept';
    if (p.options.prune)
      p.warnings.push(
        pruneKept(
          step,
          'it was edited in the workspace since it was installed, and an edited item is never removed (remove it by hand if it is not wanted)',
        ),
      );
  } else if (p.options.prune) {
    const holder = holderOf(prev);
    const ref = [prev.workspaceId, ...Object.values(prev.stages ?? {})].map((w) => boundTo.get(w)).find(Boolean);
    if (ref) {
      step.reason = `gone from the release; used by ${ref.type} ${ref.id} of this release: kept`;
      p.warnings.push(
        pruneKept(
          step,
          `${ref.type} ${ref.id}${ref.name ? ` ("${ref.name}")` : ''}, a reference of this release, is bound to it (${BOUND_BY[ref.source]}), so the release still uses it`,
        ),
      );
    } else if (holder) {
      step.reason = `gone from the release; ${usedBy(holder)}: kept`;
      p.warnings.push(
        pruneKept(step, `it is ${usedBy(holder)}, which adopted it or binds a reference to it; removing it would break that pack`),
      );
    } else Object.assign(step, { action: 'remove', write: true, reason: 'gone from the release' });
  } else {
    step.reason = 'gone from the release: kept (use prune to remove)';
  }
  return step;
}

/** The plan: its steps and writes, the warnings in step order, and what the ledger records (bindings, updates, whether it changes at all). */
function finishPlan(p: Planning, base: PlanResult, allSteps: PlanStep[], bindings: readonly ReferenceBinding[]): PlanResult {
  const { ledger, pack, ledgerUpdates } = p;
  const ledgerBindings: Record<string, string> = {};
  for (const b of bindings)
    if (b.source !== 'pack' && 'workspaceId' in b.target) ledgerBindings[bindingKey(b.type, b.id)] = b.target.workspaceId;
  // An item created by this run has no workspace id yet: the installer records its bindings once written.
  Object.assign(
    ledgerBindings,
    itemBindings([...bindings], (id) => (id in ledgerUpdates ? ledgerUpdates[id] : ledger?.items[id]) ?? undefined),
  );
  const writes = allSteps.filter((s) => s.write).length;
  const bindingsChanged = canonicalText(sortKeys(ledgerBindings)) !== canonicalText(sortKeys(ledger?.bindings ?? {}));
  // What the ledger keeps of the pack for export (ledgerSourceOf) changed: a ledger written before
  // a field of it existed (source.referencePlaces) is rewritten by installing the same release
  // again, with no item write, or export could never give back what it needs that field for.
  // (A ledger with no source at all is not the installer's: it records one with every run.)
  const sourceChanged = ledger?.source !== undefined && canonicalJson(ledger.source) !== canonicalJson(ledgerSourceOf(pack));
  const ledgerChanged =
    !ledger ||
    ledger.version !== pack.version ||
    ledger.state !== 'installed' ||
    ledger.packName !== pack.name ||
    bindingsChanged ||
    sourceChanged ||
    Object.keys(ledgerUpdates).length > 0;
  // Warnings in the order of the steps they are about, as the plan lists them.
  const at = new Map<string, number>();
  allSteps.forEach((st, i) => {
    if (!at.has(st.itemId)) at.set(st.itemId, i);
  });
  const ordered = p.warnings
    .map((w, i) => ({ w, i }))
    .sort((a, b) => (at.get(a.w.item.itemId) ?? 0) - (at.get(b.w.item.itemId) ?? 0) || a.i - b.i)
    .map(({ w }) => w);
  return {
    ...base,
    ok: true,
    warnings: ordered,
    steps: allSteps,
    summary: p.summary,
    writes,
    hasChanges: writes > 0 || ledgerChanged,
    ledgerUpdates,
    ledgerBindings,
  };
}

const warningItem = (step: PlanStep): PlanWarning['item'] => ({ itemId: step.itemId, kind: step.kind, key: step.key, name: step.name });

/** How a reference of the release came to be bound to a workspace object (ReferenceBinding's source). */
const BOUND_BY: Record<ReferenceBinding['source'], string> = {
  pack: 'a pack key',
  option: 'by --bind',
  ledger: 'as the install recorded it',
  name: 'by name',
  create: 'created for it',
};

/** An orphan prune was asked to remove and keeps: what it is, and why it stays. */
function pruneKept(step: PlanStep, why: string): PlanWarning {
  return {
    code: 'plan/prune-kept',
    item: warningItem(step),
    message: `${itemLabel(step)} is gone from the release and --prune keeps it: ${why}`,
  };
}

/**
 * An item bound to a workspace object it adopts, whose content differs from what the pack would
 * write: the pack never writes an adopted object, so the difference stays (a tag's color, a custom
 * field's data, the stages a release adds to a pipeline it adopted). The name is left out: adopting
 * by name already allows another case or spacing. An automation's `references` too (binding hints).
 */
function adoptedDiffers(step: PlanStep, obj: WorkspaceObject, desired: Record<string, Json>, byName: boolean): PlanWarning | undefined {
  const actual = projectWorkspaceObject(step.collection, obj);
  const comparable = (c: Record<string, Json>): Record<string, Json> => {
    if (step.collection !== 'automations' || !c.document || typeof c.document !== 'object' || Array.isArray(c.document)) return c;
    const { references: _references, ...document } = c.document as Record<string, Json>;
    return { ...c, document };
  };
  const want = comparable(desired);
  const have = comparable(actual);
  const fields = [...new Set([...Object.keys(want), ...Object.keys(have)])]
    .filter((k) => k !== 'name' && canonicalJson(want[k] ?? null) !== canonicalJson(have[k] ?? null))
    .sort();
  if (!fields.length) return undefined;
  const named = nameOf(step.collection, obj);
  return {
    code: 'plan/adopted-differs',
    item: warningItem(step),
    message: `${itemLabel(step)} is the workspace's own${named !== undefined ? ` "${named}"` : ''} (${obj.id}), adopted ${byName ? 'by name' : 'when the pack was installed'}, and differs from the pack's (${fields.join(', ')}): the pack never writes an object it adopted, so the workspace's copy is kept as it is`,
    fields,
  };
}

/**
 * Stages of the pack's pipelines that automations use but that this install does not make: the
 * pipeline is kept as it is in the workspace (edited since it was installed, or adopted and never
 * written) and that copy has no such stage (one the release adds, or one the user removed).
 * - An automation being written that names one is an error: the write would fail halfway (or point
 *   at nothing); each stage is named once, with every automation using it, before any write.
 * - An automation left as the pack wrote it (unchanged) that names one — it moves deals to a stage
 *   the user removed by hand — is a warning: the upgrade does not make it worse (it already points
 *   at a stage id that addresses nothing), so it does not block the upgrade, but the plan says which
 *   automation, which stage, and what would fix it. One the user edited (a conflict kept) is theirs:
 *   not checked.
 */
function missingStages(
  steps: PlanStep[],
  rewritesOf: Map<string, Rewrite[]>,
  lookup: (id: string) => ResolvedItem | undefined,
  find: (c: WorkspaceCollection, id: string) => WorkspaceObject | undefined,
): { errors: PlanError[]; warnings: PlanWarning[] } {
  const byId = new Map(steps.map((st) => [st.itemId, st]));
  const missing = new Map<string, { stage: string; pipeline: PlanStep; usedBy: Set<string> }>();
  const warnings: PlanWarning[] = [];
  for (const st of steps) {
    // A step not written has its rewrites cleared: an unchanged automation's are the item's own.
    const kept = !st.write && st.kind === 'automation' && st.action === 'unchanged';
    if (!st.write && !kept) continue;
    const named = new Set<string>();
    for (const rw of kept ? (rewritesOf.get(st.itemId) ?? []) : st.rewrites) {
      if (rw.kind !== 'reference' || !('itemId' in rw.target) || rw.target.stageKey === undefined) continue;
      const pipeline = byId.get(rw.target.itemId);
      if (!pipeline || pipeline.write) continue;
      const id = resolveTarget(rw.target, lookup);
      const stages = pipeline.workspaceId ? find('pipelines', pipeline.workspaceId)?.stages : undefined;
      if (id !== undefined && Array.isArray(stages) && stages.some((s) => (s as WorkspaceObject)?.id === id)) continue;
      if (kept) {
        if (named.has(rw.from)) continue;
        named.add(rw.from);
        const fix =
          pipeline.action === 'conflict'
            ? `--overwrite replaces the pipeline with the release's, stages included, and points ${st.key} at its stage ${rw.from}`
            : `--overwrite does not change it (the pack never writes a pipeline it adopted): choose another stage for ${st.key} in the workspace`;
        warnings.push({
          code: 'plan/missing-stage',
          item: warningItem(st),
          message: `deal_stage ${rw.from} used by ${st.key}: pipeline ${pipeline.key} ("${pipeline.name}") has no such stage in the workspace, ${whyKept(pipeline)}; ${itemLabel(st)} is left as it is, still naming the removed stage: ${fix}`,
          reference: { type: 'deal_stage', id: rw.from },
        });
        continue;
      }
      const k = bindingKey('deal_stage', rw.from);
      if (!missing.has(k)) missing.set(k, { stage: rw.from, pipeline, usedBy: new Set() });
      missing.get(k)!.usedBy.add(st.key);
    }
  }
  const errors = [...missing.values()].map(({ stage, pipeline, usedBy }) => ({
    code: 'plan/unresolved-reference' as const,
    message: `deal_stage ${stage} used by ${[...usedBy].sort().join(', ')}: pipeline ${pipeline.key} ("${pipeline.name}") has no such stage in the workspace, ${whyKept(pipeline)}${pipeline.action === 'conflict' ? "; --overwrite replaces it with the release's pipeline, stages included" : ''}`,
    reference: { type: 'deal_stage' as const, id: stage, usedBy: [...usedBy].sort() },
  }));
  return { errors, warnings };
}

/** Why a pipeline the plan does not write is kept as the workspace has it. */
const whyKept = (pipeline: PlanStep) =>
  pipeline.action === 'conflict'
    ? 'where it was edited since it was installed and is kept'
    : "where it is the workspace's own pipeline, adopted by name and never written by this pack";

/**
 * Keys a release renamed: an item not in the ledger whose name (trimmed, case-insensitive) is the
 * name of the workspace object the ledger holds for an item of the same kind and collection that
 * the release no longer has. That object is this pack's own (or one it adopted): the new key takes
 * over its ledger entry, so it is updated as before — not adopted as a stranger's object and then
 * removed as the old key's orphan. Each old entry goes to one new item (both in key order).
 */
function renamedKeys(
  items: Desired[],
  ledger: InstallLedger | null,
  wanted: Set<string>,
  find: (c: WorkspaceCollection, id: string) => WorkspaceObject | undefined,
): Map<string, { from: string; entry: LedgerItem }> {
  const out = new Map<string, { from: string; entry: LedgerItem }>();
  if (!ledger) return out;
  const slot = (kind: PlanItemKind, collection: WorkspaceCollection, name: string) =>
    JSON.stringify([kind, collection, normalizeName(name)]);
  const gone = new Map<string, string[]>();
  for (const id of Object.keys(ledger.items).sort()) {
    if (wanted.has(id)) continue;
    const it = ledger.items[id];
    const obj = find(it.collection, it.workspaceId);
    const name = obj && nameOf(it.collection, obj);
    if (name === undefined) continue;
    const k = slot(it.kind, it.collection, name);
    gone.set(k, [...(gone.get(k) ?? []), id]);
  }
  if (!gone.size) return out;
  for (const d of items) {
    if (ledger.items[d.itemId]) continue;
    const from = gone.get(slot(d.kind, d.collection, d.name))?.shift();
    if (from) out.set(d.itemId, { from, entry: { ...ledger.items[from], key: d.key } });
  }
  // The object renamed by hand too: its name is the user's, not the one the pack wrote, so the
  // name misses it. What the ledger recorded writing (sourceHash) still finds it: an item whose
  // content, name included, is exactly what the old key's entry wrote (ids resolved as the ledger
  // holds them) is the same item under a new key.
  const taken = new Set([...out.values()].map((r) => r.from));
  const byContent = new Map<string, string[]>();
  for (const ids of gone.values()) {
    for (const id of ids) {
      const it = ledger.items[id];
      const k = JSON.stringify([it.kind, it.collection, it.sourceHash]);
      const same = byContent.get(k);
      if (same) same.push(id);
      else byContent.set(k, [id]);
    }
  }
  for (const ids of byContent.values()) ids.sort();
  if (!byContent.size) return out;
  const fromLedger = (id: string): ResolvedItem | undefined => {
    const it = ledger.items[id];
    return it && { workspaceId: it.workspaceId, url: it.url, stages: it.stages };
  };
  for (const d of items) {
    if (ledger.items[d.itemId] || out.has(d.itemId)) continue;
    const content = applyRewrites(d, fromLedger);
    if (!content) continue;
    const ids = byContent.get(JSON.stringify([d.kind, d.collection, contentHash(content)])) ?? [];
    const from = ids.find((id) => !taken.has(id));
    if (!from) continue;
    taken.add(from);
    out.set(d.itemId, { from, entry: { ...ledger.items[from], key: d.key } });
  }
  return out;
}

/** The name a workspace object goes by: an automation's is its document's, a media file's its file name, where the object has none of its own. */
function nameOf(collection: WorkspaceCollection, obj: WorkspaceObject): string | undefined {
  if (typeof obj.name === 'string') return obj.name;
  if (collection === 'automations') {
    const doc = (obj.draft_document ?? obj.document) as { name?: unknown } | null | undefined;
    return typeof doc?.name === 'string' ? doc.name : undefined;
  }
  if (collection === 'media' && typeof obj.file_name === 'string') return obj.file_name;
  return undefined;
}

/**
 * What must match for a workspace object to be an item's twin: its content, except an automation's
 * `references` (binding hints for an install, not what the automation does).
 */
function twinHash(collection: WorkspaceCollection, content: Record<string, Json>): string {
  if (collection !== 'automations' || !content.document || typeof content.document !== 'object' || Array.isArray(content.document))
    return contentHash(content);
  const { references: _references, ...document } = content.document as Record<string, Json>;
  return contentHash({ ...content, document });
}

/**
 * The workspace object of the same name whose content is exactly what the item would be (the
 * first by id). An automation that runs itself resolves against each candidate's own id in turn:
 * it is its own twin only under that id.
 */
function identicalTwin(
  objects: WorkspaceObject[],
  d: Desired,
  step: PlanStep,
  lookup: (id: string) => ResolvedItem | undefined,
  claimed: Set<string>,
): { twin: WorkspaceObject; sourceHash: string } | undefined {
  const want = normalizeName(d.name);
  const fixed = applyRewrites(step, lookup);
  // The brand is one per workspace: its content decides, whatever name the store gave it.
  const sameName = (o: WorkspaceObject) => d.kind === 'brand' || (typeof o.name === 'string' && normalizeName(o.name) === want);
  const candidates = objects.filter((o) => !claimed.has(o.id) && sameName(o)).sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const o of candidates) {
    const content = fixed ?? applyRewrites(step, (id) => (id === d.itemId ? { workspaceId: o.id } : lookup(id)));
    if (content && twinHash(d.collection, projectWorkspaceObject(d.collection, o)) === twinHash(d.collection, content))
      return { twin: o, sourceHash: contentHash(content) };
  }
  return undefined;
}

const isObjectWithKeys = (v: unknown) => !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0;

/** A brand someone set: it has fields or images (a workspace that never set one has `fields: null`). */
function isSetBrand(brand: WorkspaceObject): boolean {
  return isObjectWithKeys(brand.fields) || isObjectWithKeys(brand.asset_urls);
}

function brandName(brand: WorkspaceObject): string | undefined {
  const fields = brand.fields as Record<string, unknown> | null | undefined;
  const name = fields && typeof fields.name === 'string' ? fields.name : brand.name;
  return typeof name === 'string' && name.trim() ? name : undefined;
}

function stageMap(stageKeys: string[] | undefined, obj: WorkspaceObject): Record<string, string> | undefined {
  if (!stageKeys || !Array.isArray(obj.stages)) return undefined;
  const out: Record<string, string> = {};
  stageKeys.forEach((k, i) => {
    const s = (obj.stages as { id: string }[])[i];
    if (s) setOwn(out, k, s.id);
  });
  return out;
}

/** The entries of a ledger's stage map whose stage the workspace copy still has; undefined when it has them all. */
function liveStages(recorded: Record<string, string>, copy: WorkspaceObject | undefined): Record<string, string> | undefined {
  if (!copy || !Array.isArray(copy.stages)) return undefined;
  const ids = new Set((copy.stages as WorkspaceObject[]).map((st) => st?.id));
  const out: Record<string, string> = {};
  for (const [k, id] of Object.entries(recorded)) if (ids.has(id)) setOwn(out, k, id);
  return Object.keys(out).length === Object.keys(recorded).length ? undefined : out;
}

function sortKeys(o: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * Which of the workspace's other installed packs holds an item of this pack's ledger: one that
 * adopted its object by name, or bound a reference to it (or to one of its stages). Removing such an
 * object would break that pack, so neither uninstall nor prune removes it.
 */
function heldByOthers(packId: string, others: readonly InstallLedger[]): (item: LedgerItem) => InstallLedger | undefined {
  const heldBy = new Map<string, InstallLedger>();
  for (const o of others) {
    if (o.packId === packId) continue;
    for (const id of [...Object.values(o.items).map((it) => it.workspaceId), ...Object.values(o.bindings ?? {})])
      if (!heldBy.has(id)) heldBy.set(id, o);
  }
  return (item) => [item.workspaceId, ...Object.values(item.stages ?? {})].map((w) => heldBy.get(w)).find(Boolean);
}

const usedBy = (holder: InstallLedger) => `used by the installed pack "${holder.packName}" (${holder.packId})`;

/**
 * Plans removing an install: owned items whose workspace copy is unedited are removed (reverse
 * dependency order); edited ones are kept and reported as conflicts; adopted objects are left.
 */
export function planUninstall(ledger: InstallLedger, snapshot: WorkspaceSnapshot, others: readonly InstallLedger[] = []): PlanResult {
  const steps: PlanStep[] = [];
  const found = new Map<string, WorkspaceObject>();
  const summary = emptySummary();
  const ledgerUpdates: Record<string, LedgerItem | null> = {};
  const holderOf = heldByOthers(ledger.packId, others);
  const byId = new Map<WorkspaceCollection, Map<string, WorkspaceObject>>();
  const find = (c: WorkspaceCollection, id: string) => {
    let m = byId.get(c);
    if (!m) byId.set(c, (m = new Map((snapshot.collections[c] ?? []).map((o) => [o.id, o]))));
    return m.get(id);
  };
  for (const [id, prev] of Object.entries(ledger.items)) {
    const existing = find(prev.collection, prev.workspaceId);
    const step: PlanStep = {
      itemId: id,
      kind: prev.kind,
      key: prev.key,
      name: String(existing?.name ?? prev.key),
      collection: prev.collection,
      action: 'remove',
      write: false,
      phase: PHASE[prev.kind],
      workspaceId: prev.workspaceId,
      reason: '',
      rewrites: [],
      dependsOn: [],
      owned: prev.owned,
    };
    if (!existing) step.reason = 'already gone from the workspace';
    else if (!prev.owned) Object.assign(step, { action: 'adopt', reason: 'adopted workspace object: left in place' });
    else if (workspaceObjectHash(prev.collection, existing) !== prev.hash) {
      // No resolution: uninstall has no --overwrite; an edited object belongs to the workspace now.
      Object.assign(step, { action: 'conflict', reason: 'edited in the workspace: kept, as it belongs to the workspace now' });
    } else {
      const holder = holderOf(prev);
      if (holder) Object.assign(step, { action: 'orphan', reason: `${usedBy(holder)}: kept` });
      else Object.assign(step, { write: true, reason: 'installed by the pack' });
    }
    steps.push(step);
    if (existing) found.set(id, existing);
  }
  // A media file that an item being kept shows (an edited template's image, the brand's logo)
  // stays too: removing it would leave the kept item pointing at nothing.
  const kept = steps
    .filter((st) => st.action === 'conflict' || (st.action === 'orphan' && found.has(st.itemId)))
    .map((st) => ({ st, text: canonicalJson(projectWorkspaceObject(st.collection, found.get(st.itemId)!)) }));
  const removed = steps
    .filter((st) => st.kind === 'asset' && st.action === 'remove' && st.write)
    .map((st) => ({ st, url: ledger.items[st.itemId].url ?? (found.get(st.itemId)?.url as string | undefined) }));
  // Each kept item's text read once for every removed file's address: the first kept item showing it.
  const firstUser = new Map<string, (typeof kept)[number]>();
  if (removed.length && kept.length) {
    const urls = new Needles(removed.flatMap((r) => (r.url ? [r.url] : [])));
    for (const k of kept) for (const url of urls.in(k.text)) if (!firstUser.has(url)) firstUser.set(url, k);
  }
  for (const { st, url } of removed) {
    const user = url ? firstUser.get(url) : undefined;
    if (user)
      Object.assign(st, { action: 'orphan', write: false, reason: `shown by ${user.st.kind} ${user.st.name}, which is kept: kept` });
  }
  for (const st of steps) {
    if (st.action === 'remove') ledgerUpdates[st.itemId] = null;
    summary[st.action]++;
  }
  steps.sort((a, b) => b.phase - a.phase || (a.itemId < b.itemId ? -1 : 1));
  const writes = steps.filter((st) => st.write).length;
  return {
    ok: true,
    errors: [],
    warnings: [],
    packId: ledger.packId,
    packName: ledger.packName,
    fromVersion: ledger.version,
    toVersion: ledger.version ?? '',
    versionChange: 'uninstall',
    steps,
    bindings: [],
    summary,
    hasChanges: true,
    writes,
    ledgerUpdates,
    ledgerBindings: {},
  };
}
