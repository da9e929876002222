// Reference binding: every reference an automation's graph makes gets one workspace target.
// Order: a pack key; an explicit binding (--bind, bindings file); the ledger's recorded binding;
// an item of the pack of the same type and name (trimmed, case-insensitive; for a creatable type
// the first by key, else several is an error); an exact name match in the workspace (several is
// an error); created when the type is creatable; otherwise unresolved. Every failure is reported at once.
import { CREATABLE_REFERENCE_TYPES, packItemsByReferenceType, RESOURCE_KIND_OF_REFERENCE } from '../references.js';
import { count } from '../text.js';
import type { Pack, Reference, ReferenceType, Resource } from '../types.js';
import { itemId } from './content.js';
import { resolveTarget, type ItemLookup } from './resolve.js';
import { KeyAllocator, referenceIdPrefix } from '../export/keys.js';
import type {
  BindingTarget,
  InstallLedger,
  PlanError,
  PlanItemKind,
  PlanOptions,
  ReferenceBinding,
  WorkspaceCollection,
  WorkspaceObject,
  WorkspaceSnapshot,
} from './types.js';

/** The collection a reference type is matched against (deal stages: stages inside pipelines). */
export const COLLECTION_OF_REFERENCE: Record<ReferenceType, WorkspaceCollection> = {
  tag: 'tags',
  stage: 'contact_stages',
  lead_source: 'lead_sources',
  custom_field: 'custom_fields',
  email_template: 'message_templates',
  smart_list: 'smart_lists',
  automation: 'automations',
  pipeline: 'pipelines',
  deal_stage: 'pipelines',
  user: 'members',
  team: 'teams',
  pond: 'ponds',
  website: 'websites',
  form: 'forms',
  appointment_type: 'appointment_types',
  appointment_outcome: 'appointment_outcomes',
  program: 'programs',
  relationship_label: 'relationship_labels',
};

export const normalizeName = (s: string) => s.trim().toLowerCase();

/** Workspace objects by name (normalizeName), each name's in the order given; objects without a name are left out. */
export function byName(objects: readonly WorkspaceObject[]): Map<string, WorkspaceObject[]> {
  const m = new Map<string, WorkspaceObject[]>();
  for (const o of objects) {
    if (typeof o.name !== 'string') continue;
    const k = normalizeName(o.name);
    const same = m.get(k);
    if (same) same.push(o);
    else m.set(k, [o]);
  }
  return m;
}
export const bindingKey = (type: string, id: string) => `${type}:${id}`;
/** Key (what the plan shows) of the resource item the installer creates for a creatable reference the pack does not carry. */
export const createdReferenceKey = (type: ReferenceType, id: string) => `@ref/${type}/${id}`;

/**
 * The first part of the item id (ledger entry, plan step) of a resource created for a reference.
 * A pack key is any string of 1 to 200 characters (common.schema.json's `key` has no pattern), so
 * no key is out of a pack's reach — `@ref/tag/hot` is a valid resource key — but a pack item's id
 * is `<kind>:<key>` with one of the item kinds (itemId), and this is none of them.
 */
const CREATED_REFERENCE = 'reference';
// Checked by the compiler: were it ever an item kind, this line would not type-check.
const _notAnItemKind: typeof CREATED_REFERENCE extends PlanItemKind ? never : true = true;
void _notAnItemKind;

/** Item id of the resource the installer creates for reference `type:id`: `reference:tag:hot`, an id no pack item has. */
export const createdReferenceItemId = (type: ReferenceType, id: string) => `${CREATED_REFERENCE}:${bindingKey(type, id)}`;

/** The reference a created resource's item id (createdReferenceItemId) stands for; undefined for any other item id. */
export function createdReferenceOf(id: string): { type: ReferenceType; id: string } | undefined {
  if (!id.startsWith(`${CREATED_REFERENCE}:`)) return undefined;
  const rest = id.slice(CREATED_REFERENCE.length + 1);
  const colon = rest.indexOf(':');
  const type = rest.slice(0, colon);
  return colon > 0 && Object.prototype.hasOwnProperty.call(COLLECTION_OF_REFERENCE, type)
    ? { type: type as ReferenceType, id: rest.slice(colon + 1) }
    : undefined;
}

/**
 * The reference a resource created by an install made before createdReferenceItemId stands for:
 * such an install recorded it under the pack key namespace, as `resource:@ref/<type>/<id>`
 * (createdReferenceKey), which a pack resource keyed `@ref/tag/hot` can have too; undefined for
 * any other item id. The next install moves such an entry (bindReferences); until then export reads it.
 */
export function legacyCreatedReferenceOf(id: string): { type: ReferenceType; id: string } | undefined {
  const prefix = itemId('resource', '@ref/');
  if (!id.startsWith(prefix)) return undefined;
  const rest = id.slice(prefix.length);
  const slash = rest.indexOf('/');
  const type = rest.slice(0, slash);
  return slash > 0 && Object.prototype.hasOwnProperty.call(CREATABLE_KIND, type)
    ? { type: type as ReferenceType, id: rest.slice(slash + 1) }
    : undefined;
}

/**
 * The id export writes for a reference to an item of the install: a pack item's key (a stage's
 * key), or the id of the reference a resource was created for.
 */
function ownReferenceId(target: { itemId: string; stageKey?: string }): string {
  if (target.stageKey !== undefined) return target.stageKey;
  return createdReferenceOf(target.itemId)?.id ?? target.itemId.slice(target.itemId.indexOf(':') + 1);
}

/**
 * Bindings to an item of the install that export would not give back by the item's own id: a
 * reference by name bound to the pack's resource of that name, or to the one created for another
 * reference of that name. The ledger records them by the item's workspace object (known once the
 * item is written: `lookup`; a deal stage's by its pipeline's stage ids), as it records bindings to the workspace's objects, so export
 * gives each automation back the id it wrote and a re-plan binds it the same way.
 */
export function itemBindings(bindings: readonly ReferenceBinding[], lookup: ItemLookup): Record<string, string> {
  const out: Record<string, string> = {};
  for (const b of bindings) {
    if (!('itemId' in b.target) || ownReferenceId(b.target) === b.id) continue;
    const ws = resolveTarget(b.target, lookup);
    if (ws) out[bindingKey(b.type, b.id)] = ws;
  }
  return out;
}

/** Candidates for a reference type in the snapshot: deal stages are flattened out of pipelines. */
export function candidatesOf(type: ReferenceType, snapshot: WorkspaceSnapshot): WorkspaceObject[] | undefined {
  const list = snapshot.collections[COLLECTION_OF_REFERENCE[type]];
  if (!list) return undefined;
  if (type !== 'deal_stage') return list;
  const out: WorkspaceObject[] = [];
  for (const p of list) for (const s of (Array.isArray(p.stages) ? p.stages : []) as WorkspaceObject[]) out.push(s);
  return out;
}

/** The pack item a reference to a pack key stands for. */
export function packTarget(pack: Pack, type: ReferenceType, id: string): BindingTarget | undefined {
  return new PackTargets(pack).of(type, id);
}

/**
 * packTarget for many references of one pack: each collection's keys are indexed once, on first
 * use, so binding a pack's references is linear in references and items (a scan of the pack per
 * reference made planning quadratic).
 */
export class PackTargets {
  private readonly byType = new Map<ReferenceType, Map<string, BindingTarget>>();
  constructor(private readonly pack: Pack) {}

  of(type: ReferenceType, id: string): BindingTarget | undefined {
    let m = this.byType.get(type);
    if (!m) this.byType.set(type, (m = this.index(type)));
    return m.get(id);
  }

  /** First entry of a key wins, as a scan in pack order found it. */
  private index(type: ReferenceType): Map<string, BindingTarget> {
    const pack = this.pack;
    const m = new Map<string, BindingTarget>();
    const put = (key: string, target: BindingTarget) => {
      if (!m.has(key)) m.set(key, target);
    };
    switch (type) {
      case 'email_template':
        for (const t of pack.messageTemplates ?? []) put(t.key, { itemId: itemId('template', t.key) });
        for (const r of pack.resources ?? []) if (r.kind === 'email_template') put(r.key, { itemId: itemId('resource', r.key) });
        break;
      case 'smart_list':
        for (const s of pack.smartLists ?? []) put(s.key, { itemId: itemId('smartList', s.key) });
        break;
      case 'automation':
        for (const a of pack.automations ?? []) put(a.key, { itemId: itemId('automation', a.key) });
        break;
      case 'pipeline':
        for (const p of pack.pipelines ?? []) put(p.key, { itemId: itemId('pipeline', p.key) });
        break;
      case 'deal_stage':
        // A stage key several pipelines have means that stage of one of them, as core's reference rule says.
        for (const [key, item] of packItemsByReferenceType(pack).get('deal_stage') ?? [])
          m.set(key, { itemId: itemId('pipeline', pack.pipelines![item.index].key), stageKey: key });
        break;
      default: {
        const kind = RESOURCE_KIND_OF_REFERENCE[type];
        if (kind) for (const r of pack.resources ?? []) if (r.kind === kind) put(r.key, { itemId: itemId('resource', r.key) });
      }
    }
    return m;
  }
}

/**
 * A workspace's objects of each reference type, indexed on first use by id and by name (trimmed,
 * case-insensitive), so each reference is looked up rather than matched against every object.
 */
class CandidateIndex {
  private readonly lists = new Map<ReferenceType, WorkspaceObject[] | undefined>();
  private readonly ids = new Map<ReferenceType, Set<string>>();
  private readonly names = new Map<ReferenceType, Map<string, WorkspaceObject[]>>();
  constructor(private readonly snapshot: WorkspaceSnapshot) {}

  /** candidatesOf: undefined when the snapshot did not read the type's collection. */
  list(type: ReferenceType): WorkspaceObject[] | undefined {
    if (!this.lists.has(type)) this.lists.set(type, candidatesOf(type, this.snapshot));
    return this.lists.get(type);
  }

  has(type: ReferenceType, id: string): boolean {
    let set = this.ids.get(type);
    if (!set) this.ids.set(type, (set = new Set((this.list(type) ?? []).map((c) => c.id))));
    return set.has(id);
  }

  /** The objects of the type with this name, in the snapshot's order. */
  named(type: ReferenceType, name: string): WorkspaceObject[] {
    let m = this.names.get(type);
    if (!m) this.names.set(type, (m = byName(this.list(type) ?? [])));
    return m.get(normalizeName(name)) ?? [];
  }
}

export interface CreatedResource {
  itemId: string;
  resource: Resource;
  legacyItemId?: string;
}

export interface BindResult {
  bindings: ReferenceBinding[];
  /**
   * Resources to create for creatable references the pack does not carry, with their item ids
   * (createdReferenceItemId) and, when an install made before those ids recorded it under the pack
   * key namespace (`resource:@ref/tag/hot`, which a pack resource can have), that ledger entry's id.
   */
  createdResources: CreatedResource[];
  errors: PlanError[];
}

const CREATABLE_KIND: Partial<Record<ReferenceType, Resource['kind']>> = {
  tag: 'tag',
  stage: 'contact_stage',
  lead_source: 'lead_source',
  custom_field: 'custom_field',
};

/**
 * The references the pack's automations make, one entry per distinct reference (type and id) keyed
 * by bindingKey, with the automations that use it; the entry's reference is the first that carries a
 * name. What bindReferences binds and unusedBindings checks bindings against.
 */
export function packReferences(pack: Pack): Map<string, { ref: Reference; usedBy: Set<string> }> {
  const refs = new Map<string, { ref: Reference; usedBy: Set<string> }>();
  for (const a of pack.automations ?? []) {
    for (const r of a.document.references ?? []) {
      const k = bindingKey(r.type, r.id);
      const e = refs.get(k);
      if (e) {
        e.usedBy.add(a.key);
        if (!e.ref.name && r.name) e.ref = r;
      } else refs.set(k, { ref: r, usedBy: new Set([a.key]) });
    }
  }
  return refs;
}

export function bindReferences(pack: Pack, ledger: InstallLedger | null, snapshot: WorkspaceSnapshot, options: PlanOptions): BindResult {
  const refs = packReferences(pack);
  const ctx = bindContext(pack, ledger, snapshot, options);
  for (const k of [...refs.keys()].sort()) {
    const { ref, usedBy } = refs.get(k)!;
    const r: ToBind = {
      k,
      ref,
      usage: { type: ref.type, id: ref.id, name: ref.name, usedBy: [...usedBy].sort() },
      candidates: ctx.workspace.list(ref.type),
    };
    // The first way that settles the reference (bound, or an error said) is its answer.
    if (!bindKnown(ctx, r)) bindByNameOrCreate(ctx, r);
  }
  return ctx.out;
}

/** What binding every reference of one plan shares. */
interface BindContext {
  pack: Pack;
  ledger: InstallLedger | null;
  options: PlanOptions;
  out: BindResult;
  targets: PackTargets;
  workspace: CandidateIndex;
  resourceKeys: Set<string>;
  /** Resources the install carries or creates, by kind and name (sameName). */
  made: Map<string, { target: BindingTarget; source: ReferenceBinding['source'] }>;
  /** Ledger items of resources created for a reference under the id shape of older installs, by bindingKey. */
  legacyCreated: Map<string, string>;
  named?: PackItemsNamed;
}

/** One reference being bound: its binding key, the reference, where it is used, the workspace's objects of its type. */
interface ToBind {
  k: string;
  ref: Reference;
  usage: { type: ReferenceType; id: string; name: string | undefined; usedBy: string[] };
  candidates: readonly WorkspaceObject[] | undefined;
}

// Resources of a creatable kind the install carries (the first by key of a name) or creates, by
// kind and name (trimmed, case-insensitive): a reference of that name binds to the one, so an
// install never makes a second object of a name it makes one of itself.
const sameName = (kind: Resource['kind'], name: string) => JSON.stringify([kind, normalizeName(name)]);

function bindContext(pack: Pack, ledger: InstallLedger | null, snapshot: WorkspaceSnapshot, options: PlanOptions): BindContext {
  const made: BindContext['made'] = new Map();
  for (const r of [...(pack.resources ?? [])].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    const k = sameName(r.kind, r.name);
    if (!made.has(k)) made.set(k, { target: { itemId: itemId('resource', r.key) }, source: 'pack' });
  }
  // Ledger entries of resources an install made before createdReferenceItemId created for a
  // reference (`resource:@ref/<type>/<id>`), by the reference's bindingKey: read through
  // legacyCreatedReferenceOf, the one statement of that id's shape.
  const legacyCreated = new Map<string, string>();
  for (const id of Object.keys(ledger?.items ?? {})) {
    const r = legacyCreatedReferenceOf(id);
    if (r) legacyCreated.set(bindingKey(r.type, r.id), id);
  }
  return {
    pack,
    ledger,
    options,
    made,
    legacyCreated,
    out: { bindings: [], createdResources: [], errors: [] },
    targets: new PackTargets(pack),
    workspace: new CandidateIndex(snapshot),
    resourceKeys: new Set((pack.resources ?? []).map((r) => r.key)),
  };
}

const bindTo = (ctx: BindContext, { ref }: ToBind, source: ReferenceBinding['source'], target: BindingTarget) =>
  ctx.out.bindings.push({ type: ref.type, id: ref.id, name: ref.name, source, target });

/**
 * What settles a reference before any name is read: a key of the pack, the author's --bind, a
 * resource an earlier install created for it, the ledger's binding, or a resource this install
 * carries or creates by that name. False when none does.
 */
function bindKnown(ctx: BindContext, r: ToBind): boolean {
  const { ref, k, candidates } = r;
  const packT = ctx.targets.of(ref.type, ref.id);
  if (packT) return (bindTo(ctx, r, 'pack', packT), true);
  const explicit = ctx.options.bindings?.[k];
  if (explicit !== undefined) {
    if (candidates !== undefined && !ctx.workspace.has(ref.type, explicit)) {
      const few = fewOf(candidates);
      ctx.out.errors.push({
        code: 'plan/unknown-binding',
        message: `--bind ${k}=${explicit}: the workspace has no ${ref.type} with id ${explicit}`,
        reference: r.usage,
        ...(few ? { candidates: few } : {}),
      });
    } else bindTo(ctx, r, 'option', { workspaceId: explicit });
    return true;
  }
  if (keepCreated(ctx, r)) return true;
  const recorded = ctx.ledger?.bindings[k];
  if (recorded !== undefined && candidates && ctx.workspace.has(ref.type, recorded))
    return (bindTo(ctx, r, 'ledger', { workspaceId: recorded }), true);
  const kind = CREATABLE_KIND[ref.type];
  const ours = kind && ref.name !== undefined ? ctx.made.get(sameName(kind, ref.name)) : undefined;
  if (ours) return (bindTo(ctx, r, ours.source, ours.target), true);
  return false;
}

/** A resource an earlier install of this pack created for the reference: the install keeps owning it. */
function keepCreated(ctx: BindContext, r: ToBind): boolean {
  const { ref, k } = r;
  const kind = CREATABLE_KIND[ref.type];
  if (!kind) return false;
  const createdKey = createdReferenceKey(ref.type, ref.id);
  const createdId = createdReferenceItemId(ref.type, ref.id);
  // An install made before created resources had ids of their own recorded this one as
  // `resource:@ref/<type>/<id>`; it is that unless the pack now carries a resource of that key.
  const legacyId = ctx.legacyCreated.get(k);
  const legacy = !ctx.ledger?.items[createdId] && legacyId !== undefined && !ctx.resourceKeys.has(createdKey) ? legacyId : undefined;
  if (!ctx.ledger?.items[createdId] && !legacy) return false;
  const name = ref.name ?? ref.id;
  ctx.out.createdResources.push({
    itemId: createdId,
    resource: { key: createdKey, kind, name },
    ...(legacy ? { legacyItemId: legacy } : {}),
  });
  bindTo(ctx, r, 'ledger', { itemId: createdId });
  if (!ctx.made.has(sameName(kind, name))) ctx.made.set(sameName(kind, name), { target: { itemId: createdId }, source: 'ledger' });
  return true;
}

/**
 * A reference settled by its name: an item of the pack of that name, else one workspace object of
 * that name, else a resource created with it (a creatable kind); otherwise it is unresolved.
 */
function bindByNameOrCreate(ctx: BindContext, r: ToBind): void {
  const { ref, k, usage, candidates } = r;
  const kind = CREATABLE_KIND[ref.type];
  // An item of the pack with the reference's name (a template, smart list, automation, pipeline,
  // deal stage or non-creatable resource): after this install the workspace holds it, so a
  // re-plan would bind to it by name; a first install binds to it as well, not to a workspace
  // object of that name or to nothing.
  const ofPack = !kind && ref.name !== undefined ? (ctx.named ??= new PackItemsNamed(ctx.pack, ctx.targets)).get(ref.type, ref.name) : [];
  if (ofPack.length === 1) return void bindTo(ctx, r, 'pack', ofPack[0].target);
  if (ofPack.length > 1) {
    ctx.out.errors.push({
      code: 'plan/ambiguous-reference',
      message: `${ref.type} "${ref.name}" (${ref.id}) matches ${count(ofPack.length)} items of the pack by name (${ofPack.map((n) => n.shown).join(', ')}); give the reference the key of the one it means`,
      reference: usage,
    });
    return;
  }
  if (ref.name !== undefined && candidates) {
    const matches = ctx.workspace.named(ref.type, ref.name);
    if (matches.length === 1) return void bindTo(ctx, r, 'name', { workspaceId: matches[0].id });
    if (matches.length > 1) {
      ctx.out.errors.push({
        code: 'plan/ambiguous-reference',
        message: `${ref.type} "${ref.name}" (${ref.id}) matches ${count(matches.length)} workspace objects by name; bind it with --bind ${k}=<id>`,
        reference: usage,
        candidates: matches.map((m) => ({ id: m.id, name: m.name })).sort((a, b) => (a.id < b.id ? -1 : 1)),
      });
      return;
    }
  }
  if (kind && ref.name !== undefined && CREATABLE_REFERENCE_TYPES.includes(ref.type)) {
    const createdId = createdReferenceItemId(ref.type, ref.id);
    ctx.out.createdResources.push({ itemId: createdId, resource: { key: createdReferenceKey(ref.type, ref.id), kind, name: ref.name } });
    bindTo(ctx, r, 'create', { itemId: createdId });
    ctx.made.set(sameName(kind, ref.name), { target: { itemId: createdId }, source: 'create' });
    return;
  }
  // A workspace with few objects of the type lists them, so the id to bind is on the screen
  // (a new workspace's three members) rather than behind an API call.
  const few = fewOf(candidates);
  ctx.out.errors.push({
    code: 'plan/unresolved-reference',
    message: `${ref.type} ${ref.name ? `"${ref.name}" ` : ''}(${ref.id}) used by ${usage.usedBy.join(', ')} is not in the pack and ${ref.name ? 'has no match by name' : 'has no name to match'} in the workspace; bind it with --bind ${k}=<workspace id>`,
    reference: usage,
    ...(few ? { candidates: few } : {}),
  });
}

/**
 * The pack's items a reference of a type and name (trimmed, case-insensitive) can stand for, by key
 * (a deal stage: by its pipeline's key, then its own), each with the target a reference to its key
 * binds to (packTarget) and how a message names it. Each type's names are indexed once, on first use.
 */
class PackItemsNamed {
  private readonly byType = new Map<ReferenceType, Map<string, { target: BindingTarget; shown: string }[]>>();
  constructor(
    private readonly pack: Pack,
    private readonly targets: PackTargets,
  ) {}

  get(type: ReferenceType, name: string): { target: BindingTarget; shown: string }[] {
    let m = this.byType.get(type);
    if (!m) this.byType.set(type, (m = this.index(type)));
    return m.get(normalizeName(name)) ?? [];
  }

  private index(type: ReferenceType): Map<string, { target: BindingTarget; shown: string }[]> {
    const found: { name: string; target: BindingTarget; shown: string; order: [string, string] }[] = [];
    if (type === 'deal_stage') {
      for (const p of this.pack.pipelines ?? [])
        for (const st of p.stages)
          found.push({
            name: normalizeName(st.name),
            target: { itemId: itemId('pipeline', p.key), stageKey: st.key },
            shown: `${st.key} of pipeline ${p.key}`,
            order: [p.key, st.key],
          });
    } else {
      for (const [key, item] of packItemsByReferenceType(this.pack).get(type) ?? []) {
        if (item.name === undefined) continue;
        const target = this.targets.of(type, key);
        if (target) found.push({ name: normalizeName(item.name), target, shown: key, order: [key, ''] });
      }
    }
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    found.sort((a, b) => cmp(a.order[0], b.order[0]) || cmp(a.order[1], b.order[1]));
    const m = new Map<string, { target: BindingTarget; shown: string }[]>();
    for (const f of found) {
      const same = m.get(f.name);
      const entry = { target: f.target, shown: f.shown };
      if (same) same.push(entry);
      else m.set(f.name, [entry]);
    }
    return m;
  }
}

/**
 * Why explicit bindings (`--bind`, a bindings file; keyed by bindingKey) would bind nothing in this
 * pack, by key: no automation uses that reference, or the pack carries it itself, which bindReferences
 * binds to the pack's own item before it looks at any binding. A key absent from the answer binds
 * a reference. For a typo in a binding, which would otherwise go unsaid while the reference it was
 * meant for is matched by name or left unresolved.
 */
export function unusedBindings(pack: Pack, keys: Iterable<string>): Map<string, string> {
  const used = packReferences(pack);
  const targets = new PackTargets(pack);
  const out = new Map<string, string>();
  let unbound: Map<string, string[]> | undefined;
  for (const k of keys) {
    const r = used.get(k)?.ref;
    const colon = k.indexOf(':');
    const type = k.slice(0, colon) as ReferenceType;
    const id = k.slice(colon + 1);
    if (r && targets.of(r.type, r.id)) out.set(k, `the pack carries ${type} ${id} itself, and its automations are bound to that`);
    else if (!r) {
      if (!unbound) {
        unbound = new Map();
        for (const { ref: u } of used.values()) {
          if (targets.of(u.type, u.id)) continue;
          const ids = unbound.get(u.type);
          if (ids) ids.push(u.id);
          else unbound.set(u.type, [u.id]);
        }
        for (const ids of unbound.values()) ids.sort();
      }
      const same = unbound.get(type) ?? [];
      out.set(
        k,
        `no automation of the pack uses ${type} ${id} (${same.length ? `the ${type} references it binds: ${same.slice(0, UNRESOLVED_CANDIDATES).join(', ')}${same.length > UNRESOLVED_CANDIDATES ? ', …' : ''}` : `it binds no ${type} reference`})`,
      );
    }
  }
  return out;
}

/** At most this many workspace objects of a type are listed with a reference that binds to none of them (unresolved, or bound by --bind to an id the workspace lacks). */
export const UNRESOLVED_CANDIDATES = 10;

/** The workspace's objects of a type, by name, when there are a few (none: undefined). */
function fewOf(objects: readonly WorkspaceObject[] | undefined): { id: string; name?: string }[] | undefined {
  if (!objects?.length || objects.length > UNRESOLVED_CANDIDATES) return undefined;
  const key = (o: { name?: unknown }) => (typeof o.name === 'string' ? o.name : '');
  return objects
    .map((o) => (typeof o.name === 'string' ? { id: o.id, name: o.name } : { id: o.id }))
    .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** How one reference of the pack fares against a workspace: what `setup-pack plan` would do with it. */
export interface ReferenceMark {
  type: ReferenceType;
  id: string;
  name?: string;
  /**
   * `pack`: a pack item; `bound`: an object the workspace already holds (by an explicit binding,
   * the install ledger, or its name); `create`: installing creates it (a creatable type with a
   * name and no match); `ambiguous`: several objects have its name; `unresolved`: nothing to bind.
   */
  state: 'pack' | 'bound' | 'create' | 'ambiguous' | 'unresolved';
  source?: ReferenceBinding['source'];
  /** The object it is bound to, when the workspace holds it. */
  workspaceId?: string;
  /** The planner's own words for an ambiguous or unresolved reference. */
  message?: string;
}

/**
 * Every reference of the pack's automations marked as `setup-pack plan` binds it — the same
 * bindReferences, not a copy — keyed by bindingKey(type, id). For editors: a reference picked
 * from the workspace shows as bound exactly when the install would bind it.
 */
export function markReferences(
  pack: Pack,
  ledger: InstallLedger | null,
  snapshot: WorkspaceSnapshot,
  options: PlanOptions = {},
): Map<string, ReferenceMark> {
  const bound = bindReferences(pack, ledger, snapshot, options);
  const marks = new Map<string, ReferenceMark>();
  for (const b of bound.bindings) {
    const state: ReferenceMark['state'] = b.source === 'pack' ? 'pack' : b.source === 'create' ? 'create' : 'bound';
    marks.set(bindingKey(b.type, b.id), {
      type: b.type,
      id: b.id,
      name: b.name,
      state,
      source: b.source,
      ...('workspaceId' in b.target ? { workspaceId: b.target.workspaceId } : {}),
    });
  }
  for (const e of bound.errors) {
    const r = e.reference;
    if (!r) continue;
    marks.set(bindingKey(r.type, r.id), {
      type: r.type,
      id: r.id,
      name: r.name,
      state: e.code === 'plan/ambiguous-reference' ? 'ambiguous' : 'unresolved',
      message: e.message,
    });
  }
  return marks;
}

/**
 * The reference id an editor writes for a workspace object picked by name: the id `setup-pack
 * export` derives for it (`tag-buyer-lead`), unless `taken` (pack keys and ids already meaning
 * something else) holds it, then with -2, -3…. It binds by the name it is listed with.
 */
export function pickedReferenceId(type: ReferenceType, name: string, taken: Iterable<string>): string {
  const keys = new KeyAllocator();
  for (const t of taken) keys.reserve(t);
  return keys.take(referenceIdPrefix(type), name);
}
