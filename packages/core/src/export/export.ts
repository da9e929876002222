// Export: a workspace snapshot (and, for an installed pack, its install ledger) → a Pack. The
// inverse of plan + apply: workspace ids in graph configs and filter values go back to pack keys,
// media addresses in templates go back to the assets' sourceUrl, and references to what the pack
// does not carry are listed with the names another workspace binds them by. Pure: the caller
// fetches (installer's exportWorkspace) and passes the fresh packId and the time.
import { fixedStageProbability } from '../pipeline.js';
import { getOwn, setOwn } from '../own.js';
import { canonicalize } from '../format/canonical.js';
import { ITEM_KINDS } from '../types.js';
import { stringsInConfig } from '../references.js';
import { ASSET_ROLES } from '../schema/enums.js';
import { escapeToken } from '../json/pointer.js';
import { jsonStringContent, Needles, occurringIn } from '../text.js';
import { COLLECTION_OF_REFERENCE, createdReferenceItemId, createdReferenceOf, legacyCreatedReferenceOf } from '../plan/bind.js';
import { canonicalJson, isBrandAsset, itemId, projectWorkspaceObject, type Json } from '../plan/content.js';
import type {
  InstallLedger,
  LedgerItem,
  LedgerSource,
  ReferencePlace,
  WorkspaceCollection,
  WorkspaceObject,
  WorkspaceSnapshot,
} from '../plan/types.js';
import type {
  Asset,
  AssetRole,
  AutomationDocument,
  AutomationItem,
  MessageTemplate,
  Pack,
  Pipeline,
  PipelineStage,
  Reference,
  ReferenceType,
  Resource,
  SmartList,
} from '../types.js';
import { byNameThenContent, KeyAllocator, referenceIdPrefix, slugify } from './keys.js';

/** The part of a pack that `ledger.source` keeps (the installer records it with every install). */
export function ledgerSourceOf(pack: Pack): LedgerSource {
  const out: LedgerSource = { schemaVersion: pack.schemaVersion };
  if (pack.brand) out.brand = true;
  if (pack.$schema !== undefined) out.$schema = pack.$schema;
  if (pack.description !== undefined) out.description = pack.description;
  if (pack.author !== undefined) out.author = pack.author;
  if (pack.assets?.length) {
    out.assets = {};
    for (const { key, data: _data, ...rest } of pack.assets) setOwn(out.assets, key, rest);
  }
  for (const r of pack.resources ?? []) {
    if (r.data !== undefined) setOwn((out.resourceData ??= {}), r.key, r.data);
  }
  for (const a of pack.automations ?? []) {
    if (a.document.references?.length)
      setOwn(
        (out.references ??= {}),
        a.key,
        a.document.references.map(({ type, id }) => ({ type, id })),
      );
    const places = referencePlacesOf(a.document);
    if (places.length) setOwn((out.referencePlaces ??= {}), a.key, places);
  }
  return out;
}

/**
 * Where the graph writes the ids of a reference type the document has two or more of (by id): the
 * places an install may write one workspace id for two of its references (LedgerSource.referencePlaces).
 */
export function referencePlacesOf(doc: AutomationDocument): ReferencePlace[] {
  const ids = new Map<string, Set<string>>();
  for (const r of doc.references ?? []) {
    if (!ids.has(r.type)) ids.set(r.type, new Set());
    ids.get(r.type)!.add(r.id);
  }
  const wanted = new Set<string>();
  for (const set of ids.values()) if (set.size > 1) for (const id of set) wanted.add(id);
  const out: ReferencePlace[] = [];
  if (!wanted.size) return out;
  const walk = (node: string, v: unknown, path: string) => {
    if (typeof v === 'string') {
      if (wanted.has(v)) out.push({ node, path, id: v });
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(node, x, `${path}/${i}`));
    else if (isObj(v)) for (const k of Object.keys(v)) walk(node, v[k], `${path}/${escapeToken(k)}`);
  };
  for (const n of doc.graph?.nodes ?? []) if (n.config !== undefined) walk(n.id, n.config, '');
  return out;
}

export interface ExportInput {
  snapshot: WorkspaceSnapshot;
  /** Media id → base64 contents, for the media `mediaToDownload` names. */
  mediaData: Record<string, string>;
  /** The install ledger when exporting one installed pack; absent for a snapshot of everything (--all). */
  ledger?: InstallLedger | null;
}

export interface ExportOptions {
  /** The packId of a snapshot (--all); a pack export keeps the ledger's. */
  packId?: string;
  /** The release to stamp; default the installed release (pack) or 1.0.0 (snapshot). */
  version?: string;
  /** Pack name of a snapshot (default "Workspace snapshot"). */
  name?: string;
  exportedAt?: string;
}

/** Something export could not carry over exactly (shown to the user; never an error). */
export interface ExportNote {
  item?: string;
  message: string;
}

export interface ExportResult {
  pack: Pack;
  notes: ExportNote[];
}

/** The collections a snapshot (--all) reads: everything a pack can carry or refer to. */
export const ALL_COLLECTIONS: readonly WorkspaceCollection[] = [
  'tags',
  'contact_stages',
  'lead_sources',
  'custom_fields',
  'pipelines',
  'message_templates',
  'media',
  'brand',
  'smart_lists',
  'automations',
  'members',
  'teams',
  'ponds',
  'websites',
  'forms',
  'appointment_types',
  'appointment_outcomes',
  'programs',
  'relationship_labels',
];

/** Reference type of the objects of a collection (pipelines' stages are deal_stage). */
const REFERENCE_TYPE_OF: Partial<Record<WorkspaceCollection, ReferenceType>> = {
  tags: 'tag',
  contact_stages: 'stage',
  lead_sources: 'lead_source',
  custom_fields: 'custom_field',
  message_templates: 'email_template',
  pipelines: 'pipeline',
  smart_lists: 'smart_list',
  automations: 'automation',
  members: 'user',
  teams: 'team',
  ponds: 'pond',
  websites: 'website',
  forms: 'form',
  appointment_types: 'appointment_type',
  appointment_outcomes: 'appointment_outcome',
  programs: 'program',
  relationship_labels: 'relationship_label',
};

const RESOURCE_KIND_OF: Partial<Record<WorkspaceCollection, Resource['kind']>> = {
  tags: 'tag',
  contact_stages: 'contact_stage',
  lead_sources: 'lead_source',
  custom_fields: 'custom_field',
  message_templates: 'email_template',
};

/** Key prefixes of a snapshot's derived keys, per collection. */
const PREFIX: Partial<Record<WorkspaceCollection, string>> = {
  tags: 'tag',
  contact_stages: 'stage',
  lead_sources: 'source',
  custom_fields: 'field',
  message_templates: 'template',
  pipelines: 'pipeline',
  smart_lists: 'list',
  automations: 'automation',
};

/** The brand's asset roles: every role of the schema but email_image. */
const BRAND_ROLES: readonly AssetRole[] = ASSET_ROLES.filter((r) => r !== 'email_image');

/** Collections a pack export reads first: where its items live and what its recorded bindings point at. */
export function exportCollections(ledger: InstallLedger | null): WorkspaceCollection[] {
  if (!ledger) return [...ALL_COLLECTIONS];
  const set = new Set<WorkspaceCollection>();
  for (const item of Object.values(ledger.items)) set.add(item.collection);
  for (const k of Object.keys(ledger.bindings)) {
    const type = k.slice(0, k.indexOf(':')) as ReferenceType;
    if (COLLECTION_OF_REFERENCE[type]) set.add(COLLECTION_OF_REFERENCE[type]);
  }
  return [...set].sort();
}

/** Collections the automations' references name that the snapshot lacks (read them for their names). */
export function referenceCollections(snapshot: WorkspaceSnapshot): WorkspaceCollection[] {
  const set = new Set<WorkspaceCollection>();
  for (const a of snapshot.collections.automations ?? []) {
    const doc = latestDocument(a);
    for (const r of doc?.references ?? []) {
      const c = COLLECTION_OF_REFERENCE[r.type];
      if (c && !snapshot.collections[c]) set.add(c);
    }
  }
  return [...set].sort();
}

const latestDocument = (a: WorkspaceObject) => (a.draft_document ?? a.document) as AutomationDocument | undefined;

/**
 * Whether the pack's brand is not the workspace's: the pack has one (ledger.source says so) but the
 * ledger has no brand item, since the install kept the workspace's own (or, interrupted, did not
 * get to it). The export then has no brand, and the pack's brand images would be used by nothing.
 */
const brandNotSet = (ledger: InstallLedger) => ledger.source?.brand === true && !ledger.items[itemId('brand', 'brand')];

/** Whether the pack's asset `key` is a brand image that the export leaves out (see brandNotSet). */
function brandImageLeftOut(ledger: InstallLedger, key: string): boolean {
  const note = getOwn(ledger.source?.assets, key);
  return note !== undefined && isBrandAsset(note) && brandNotSet(ledger);
}

/** Media whose bytes the export embeds: the pack's uploaded assets, or (snapshot) images templates and the brand use. */
export function mediaToDownload(snapshot: WorkspaceSnapshot, ledger: InstallLedger | null): string[] {
  const media = snapshot.collections.media ?? [];
  const present = new Set(media.map((m) => m.id));
  if (ledger) {
    return Object.values(ledger.items)
      .filter((i) => i.kind === 'asset' && present.has(i.workspaceId) && !brandImageLeftOut(ledger, i.key))
      .map((i) => i.workspaceId)
      .sort();
  }
  const used = usedMedia(snapshot);
  return media
    .filter((m) => used.brand.has(m.id) || used.templates.has(m.id))
    .map((m) => m.id)
    .sort();
}

/** Which media objects the brand's asset_urls and the templates' text use (by address). */
function usedMedia(snapshot: WorkspaceSnapshot): { brand: Map<string, string[]>; templates: Set<string> } {
  const media = snapshot.collections.media ?? [];
  const byUrl = new Map(media.filter((m) => typeof m.url === 'string').map((m) => [m.url as string, m.id]));
  const brand = new Map<string, string[]>();
  const b = snapshot.collections.brand?.[0];
  for (const [key, url] of Object.entries((b?.asset_urls ?? {}) as Record<string, unknown>)) {
    const id = typeof url === 'string' ? byUrl.get(url) : undefined;
    if (id) brand.set(id, [...(brand.get(id) ?? []), key]);
  }
  const text = (snapshot.collections.message_templates ?? [])
    .map((t) => JSON.stringify(projectWorkspaceObject('message_templates', t)))
    .join('\n');
  // An address is looked for as the templates' JSON writes it (escaped), all at once: a workspace
  // may hold thousands of media and 100 templates of 20,000 characters.
  const addressed = media.flatMap((m) => (typeof m.url === 'string' ? [{ id: m.id, at: jsonStringContent(m.url) }] : []));
  const inText = occurringIn(
    text,
    addressed.map((m) => m.at),
  );
  const templates = new Set(addressed.filter((m) => inText.has(m.at)).map((m) => m.id));
  return { brand, templates };
}

/** One workspace object as a pack refers to it. */
interface Entry {
  type: ReferenceType;
  /** The id the pack writes: a pack key, or a reference id. */
  refId: string;
  name?: string;
  /** Exported as a pack item (false: a reference to something the pack does not carry). */
  item: boolean;
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const byKey = <T extends { key: string }>(a: T, b: T) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (isObj(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, { value: mapStrings(v, f), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

/** mapStrings, telling `f` where each string is (an RFC 6901 pointer under `path`). */
function mapStringsAt(value: unknown, path: string, f: (s: string, path: string) => string): unknown {
  if (typeof value === 'string') return f(value, path);
  if (Array.isArray(value)) return value.map((v, i) => mapStringsAt(v, `${path}/${i}`, f));
  if (isObj(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, {
        value: mapStringsAt(v, `${path}/${escapeToken(k)}`, f),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  return value;
}

function mapFilterValues(value: unknown, f: (s: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => mapFilterValues(v, f));
  if (isObj(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const mapped = k === 'value' && (typeof v === 'string' || Array.isArray(v)) ? mapStrings(v, f) : mapFilterValues(v, f);
      Object.defineProperty(out, k, { value: mapped, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

/** Every occurrence of each `from` inside every string becomes its `to` (longest first). */
function replaceInside(value: unknown, pairs: [string, string][]): unknown {
  const sorted = pairs.filter(([from, to]) => from && from !== to).sort((a, b) => b[0].length - a[0].length || (a[0] < b[0] ? -1 : 1));
  if (!sorted.length) return value;
  // Most strings hold none of them: one pass each says so, where one includes per pair read each
  // string once per media file.
  const froms = new Needles(sorted.map(([from]) => from));
  return mapStrings(value, (s) => {
    if (!froms.in(s).size) return s;
    for (const [from, to] of sorted) if (s.includes(from)) s = s.split(from).join(to);
    return s;
  });
}

/** The state of one export: the index from workspace ids to pack ids, and the notes. */
class Exporter {
  readonly keys = new KeyAllocator();
  readonly index = new Map<string, Entry>();
  readonly notes: ExportNote[] = [];
  private readonly objects = new Map<string, WorkspaceObject>();

  constructor(
    readonly input: ExportInput,
    readonly ledger: InstallLedger | null,
  ) {
    for (const list of Object.values(input.snapshot.collections)) for (const o of list ?? []) this.objects.set(o.id, o);
  }

  find(id: string): WorkspaceObject | undefined {
    return this.objects.get(id);
  }

  list(c: WorkspaceCollection): WorkspaceObject[] {
    return this.input.snapshot.collections[c] ?? [];
  }

  set(wsId: string, entry: Entry): void {
    if (!this.index.has(wsId)) this.index.set(wsId, entry);
    const k = `${entry.type}:${entry.refId}`;
    if (!this.boundTo.has(k)) this.boundTo.set(k, wsId);
  }

  /** The workspace object (or stage) a pack id of `type` stands for: the inverse of the index, where two pack ids may name one object. */
  readonly boundTo = new Map<string, string>();

  /** Reference ids for the objects a pack does not carry (members, teams…), derived from names. */
  indexExternals(): void {
    for (const [c, type] of Object.entries(REFERENCE_TYPE_OF) as [WorkspaceCollection, ReferenceType][]) {
      const fresh = this.list(c).filter((o) => !this.index.has(o.id));
      for (const o of byNameThenContent(
        fresh,
        (x) => String(x.name ?? x.id),
        (x) => canonicalJson(projectWorkspaceObject(c, x)),
      )) {
        this.set(o.id, { type, refId: this.keys.take(referenceIdPrefix(type), String(o.name ?? o.id)), name: str(o.name), item: false });
      }
    }
  }

  /** Node configs: workspace ids → pack ids; references: mapped back, named, completed with what configs use. */
  document(
    stored: AutomationDocument,
    nameAll: boolean,
    packRefs?: { type: ReferenceType; id: string }[],
    places?: ReferencePlace[],
  ): AutomationDocument {
    // The stored references carry the workspace ids the graph writes; the ledger's record of the
    // pack's own references (packRefs) turns them back into the ids the pack wrote.
    const back = new Map<string, string>();
    // An object the automation also names by the item's own id (a reference bound to the pack's
    // resource of its name, or to the one created for another reference) keeps that id.
    const own = new Set((packRefs ?? []).map((r) => `${r.type}:${r.id}`));
    const ownsItsId = (type: ReferenceType, ws: string) => {
      const e = this.index.get(ws);
      return e !== undefined && e.type === type && own.has(`${type}:${e.refId}`);
    };
    for (const r of packRefs ?? []) {
      const bound = this.ledger?.bindings[`${r.type}:${r.id}`];
      if (bound !== undefined && !back.has(`${r.type}:${bound}`) && !ownsItsId(r.type, bound)) back.set(`${r.type}:${bound}`, r.id);
    }
    // The stored references are the pack's, in its order, each id rewritten to the workspace id it
    // was bound to (the planner maps them one by one): while they still line up, each takes back the
    // id the pack wrote in its place, even where two of them were bound to one object.
    const storedRefs = stored.references ?? [];
    const lined =
      packRefs !== undefined && packRefs.length === storedRefs.length && packRefs.every((p, i) => p.type === storedRefs[i].type);
    const inPlace = storedRefs.map((r, i) =>
      lined && r.id !== packRefs[i].id && this.boundTo.get(`${r.type}:${packRefs[i].id}`) === r.id ? packRefs[i].id : undefined,
    );
    const doc: AutomationDocument =
      (back.size || inPlace.some((id) => id !== undefined)) && stored.references
        ? {
            ...stored,
            references: stored.references.map((r, i) =>
              inPlace[i] !== undefined
                ? { ...r, id: inPlace[i] }
                : back.has(`${r.type}:${r.id}`)
                  ? { ...r, id: back.get(`${r.type}:${r.id}`)! }
                  : r,
            ),
          }
        : stored;
    const out = clone(doc);
    const hits = new Map<string, Entry>();
    // The ids this automation's own references were bound by come first: two references bound to
    // one workspace object (in different automations) each map back to the id its automation wrote.
    const local = new Map<string, Entry>();
    for (const r of doc.references ?? []) {
      const bound = this.ledger?.bindings[`${r.type}:${r.id}`];
      if (bound !== undefined && !local.has(bound) && !ownsItsId(r.type, bound))
        local.set(bound, { type: r.type, refId: r.id, name: str(this.find(bound)?.name), item: false });
    }
    const f = (s: string) => {
      const e = local.get(s) ?? this.index.get(s);
      if (!e) return s;
      hits.set(`${e.type}:${e.refId}`, e);
      return e.refId;
    };
    // Where the pack wrote a reference id that one of its other references shares an object with
    // (ledger.source.referencePlaces), the place gets back the id the pack wrote there, as long as
    // the workspace id there is still the one that id was bound to; otherwise (re-pointed in the
    // workspace) it is mapped as any other id.
    const typesOf = new Map<string, ReferenceType[]>();
    for (const r of packRefs ?? []) typesOf.set(r.id, [...(typesOf.get(r.id) ?? []), r.type]);
    const placed = new Map<string, Map<string, string>>();
    for (const p of places ?? []) {
      if (!placed.has(p.node)) placed.set(p.node, new Map());
      placed.get(p.node)!.set(p.path, p.id);
    }
    const at = (node: string) => {
      const here = placed.get(node);
      if (!here) return (s: string) => f(s);
      return (s: string, path: string) => {
        const id = here.get(path);
        const type = id === undefined ? undefined : (typesOf.get(id) ?? []).find((t) => this.boundTo.get(`${t}:${id}`) === s);
        if (id === undefined || type === undefined) return f(s);
        // Listed even where the stored references no longer line up with the pack's: the object's entry when that is its id, else a reference to it.
        const base = this.index.get(s);
        hits.set(
          `${type}:${id}`,
          base && base.type === type && base.refId === id ? base : { type, refId: id, name: str(this.find(s)?.name), item: false },
        );
        return id;
      };
    };
    out.graph = {
      ...out.graph,
      nodes: out.graph.nodes.map((n) =>
        n.config === undefined ? n : { ...n, config: mapStringsAt(n.config, '', at(n.id)) as Record<string, unknown> },
      ),
    };
    const refs: Reference[] = [];
    const seen = new Set<string>();
    const written = new Set<string>();
    for (const n of out.graph.nodes) stringsInConfig(n.config, written);
    for (const [i, r] of (doc.references ?? []).entries()) {
      let e: Entry | undefined;
      if (inPlace[i] !== undefined) {
        // Given back its place's id: the object's entry when that is its id, else a reference to it.
        const ws = storedRefs[i].id;
        const base = this.index.get(ws);
        e =
          base && base.type === r.type && base.refId === r.id
            ? base
            : { type: r.type, refId: r.id, name: str(this.find(ws)?.name), item: false };
      } else e = this.index.get(r.id);
      const bound = this.ledger?.bindings[`${r.type}:${r.id}`];
      if (!e && bound !== undefined) {
        const o = this.find(bound);
        e = { type: r.type, refId: r.id, name: str(o?.name), item: false };
      }
      // A snapshot lists what the graph uses: a reference naming no workspace object and written
      // nowhere in the graph is stale (its id was rewritten by an install) and is left out.
      if (!e && nameAll && !written.has(r.id)) continue;
      const id = e ? e.refId : r.id;
      const k = `${r.type}:${id}`;
      if (seen.has(k)) continue;
      seen.add(k);
      const ref: Reference = { type: r.type, id };
      const name = e && (nameAll || !e.item) ? (e.name ?? r.name) : r.name;
      if (name !== undefined) ref.name = name;
      if (r.detail !== undefined) ref.detail = r.detail;
      refs.push(ref);
    }
    // Items refer to each other by key, listed or not: an install's export lists the pack items its
    // blocks name only where the pack did (seen above); a snapshot lists everything the graph uses.
    const found = [...hits.values()]
      .filter((e) => !seen.has(`${e.type}:${e.refId}`) && (nameAll || !e.item))
      .sort((a, b) => (a.type + ':' + a.refId < b.type + ':' + b.refId ? -1 : 1));
    for (const e of found) refs.push(e.name !== undefined ? { type: e.type, id: e.refId, name: e.name } : { type: e.type, id: e.refId });
    if (doc.references !== undefined || refs.length) out.references = refs;
    return out;
  }

  filters(filters: unknown): SmartList['filters'] {
    const resourceTypes = new Set<ReferenceType>(['tag', 'stage', 'lead_source', 'custom_field']);
    return mapFilterValues(filters, (s) => {
      const e = this.index.get(s);
      return e && e.item && resourceTypes.has(e.type) ? e.refId : s;
    }) as SmartList['filters'];
  }

  bytes(mediaId: string, item: string): string | undefined {
    const data = this.input.mediaData[mediaId];
    if (data === undefined) this.notes.push({ item, message: `the bytes of media ${mediaId} were not downloaded; the asset is left out` });
    return data;
  }
}

function resourceFrom(kind: Resource['kind'], key: string, o: WorkspaceObject, sourceData: Record<string, unknown> | undefined): Resource {
  const r: Resource = { key, kind, name: String(o.name ?? key) };
  let data: Record<string, unknown> | undefined;
  if (kind === 'tag') {
    data = sourceData ? clone(sourceData) : undefined;
    if (typeof o.color === 'string') data = { ...(data ?? {}), color: o.color };
    else if (data && typeof data.color === 'string') delete data.color;
  } else if (kind === 'custom_field' || kind === 'email_template') {
    const stored = isObj(o.data) ? clone(o.data) : undefined;
    // The workspace stores a pack's missing data as {}: left out again unless the pack wrote it.
    data = stored && (Object.keys(stored).length > 0 || sourceData !== undefined) ? stored : undefined;
  } else data = sourceData ? clone(sourceData) : undefined;
  if (data !== undefined) r.data = data;
  return r;
}

function templateFrom(key: string, o: WorkspaceObject): MessageTemplate {
  const t: MessageTemplate = {
    key,
    name: String(o.name ?? key),
    channel: (o.channel as MessageTemplate['channel']) ?? 'email',
    body: String(o.body ?? ''),
  };
  if (typeof o.category === 'string') t.category = o.category;
  if (typeof o.subject === 'string') t.subject = o.subject;
  if (isObj(o.rich_text_doc)) t.richTextDoc = clone(o.rich_text_doc);
  return t;
}

/** A message template that is the workspace copy of an email_template resource (as resourceContent builds it). */
const isEmailResource = (o: WorkspaceObject) =>
  o.channel === 'email' && o.body === '' && o.category == null && o.subject == null && o.rich_text_doc == null && isObj(o.data);

function stageFrom(key: string, s: Record<string, unknown>): PipelineStage {
  const stage: PipelineStage = { key, name: String(s.name ?? key) };
  if (typeof s.color === 'string') stage.color = s.color;
  if (typeof s.probability === 'number') stage.probability = s.probability;
  // Won and lost stages are 100 and 0 whatever is stored (the format's rule).
  const fixed = fixedStageProbability(s.type);
  if (fixed !== undefined) Object.assign(stage, { probability: fixed, stageType: s.type });
  return stage;
}

function pipelineFrom(key: string, o: WorkspaceObject, stageKey: (s: Record<string, unknown>) => string): Pipeline {
  const p: Pipeline = { key, name: String(o.name ?? key), stages: [] };
  if (typeof o.description === 'string') p.description = o.description;
  p.stages = (Array.isArray(o.stages) ? (o.stages as Record<string, unknown>[]) : []).map((s) => stageFrom(stageKey(s), s));
  return p;
}

function smartListFrom(x: Exporter, key: string, o: WorkspaceObject): SmartList {
  const s: SmartList = {
    key,
    name: String(o.name ?? key),
    filters: x.filters(o.filters ?? { version: 2, root: { type: 'and', conditions: [] } }),
  };
  if (typeof o.description === 'string') s.description = o.description;
  if (typeof o.color === 'string') s.color = o.color;
  if (typeof o.icon === 'string') s.icon = o.icon;
  return s;
}

function assetFromMedia(
  key: string,
  m: WorkspaceObject,
  data: string,
  note: Omit<Asset, 'key' | 'data'> | undefined,
  role: AssetRole,
): Asset {
  const a: Asset = {
    key,
    role: note?.role ?? role,
    fileName: String(m.file_name ?? m.name ?? key),
    mimeType: String(m.mime_type ?? 'application/octet-stream'),
    byteSize: Number(m.byte_size ?? 0),
    sha256: String(m.sha256 ?? ''),
    data,
  };
  if (note && 'url' in note) a.url = note.url;
  if (note && 'stagedFileId' in note) a.stagedFileId = note.stagedFileId;
  if (a.role === 'email_image') a.sourceUrl = note?.sourceUrl ?? str(m.url) ?? null;
  return a;
}

function finish(
  pack: Pack,
  result: {
    automations: AutomationItem[];
    smartLists: SmartList[];
    messageTemplates: MessageTemplate[];
    pipelines: Pipeline[];
    resources: Resource[];
    assets: Asset[];
  },
): Pack {
  for (const k of ITEM_KINDS) {
    const items = (result[k] as { key: string }[]).sort(byKey);
    if (items.length) (pack as unknown as Record<string, unknown>)[k] = items;
  }
  return canonicalize(pack);
}

/** Exports one installed pack (with its ledger) or, without a ledger, everything the workspace holds. */
export function exportPack(input: ExportInput, options: ExportOptions = {}): ExportResult {
  return input.ledger ? exportInstalled(input, input.ledger, options) : exportEverything(input, options);
}

/**
 * One installed pack, as its ledger records it: the workspace's objects named by the keys the
 * ledger gives them, each item read back, the addresses the pack wrote put back, and notes for
 * what is left out.
 */
function exportInstalled(input: ExportInput, ledger: InstallLedger, options: ExportOptions): ExportResult {
  const x = new Exporter(input, ledger);
  if (ledger.state === 'in_progress')
    x.notes.push({
      message: `the install of ${ledger.targetVersion ?? 'a release'} was interrupted: this is what it wrote so far (run install again to finish it)`,
    });
  const items = Object.entries(ledger.items).sort(([a], [b]) => (a < b ? -1 : 1));
  const createdOf = createdReferences(ledger);
  nameInstalledObjects(x, ledger, items, createdOf);
  const read = readInstalledItems(x, input, ledger, items, createdOf);
  const { out, imagesLeftOut } = read;
  // Assets the pack carried by address only (no bytes): the workspace holds nothing of them.
  for (const [key, note] of Object.entries(ledger.source?.assets ?? {})) {
    if (ledger.items[itemId('asset', key)]) continue;
    if (brandImageLeftOut(ledger, key)) imagesLeftOut.push(key);
    else out.assets.push({ key, ...clone(note) });
  }
  if (brandNotSet(ledger)) {
    const images = imagesLeftOut.sort();
    const why =
      ledger.state === 'in_progress'
        ? 'not set yet by the interrupted install'
        : 'not set by this install (the workspace keeps its own brand)';
    const also = images.length
      ? `, and so ${images.length === 1 ? "is the pack's brand image" : "are the pack's brand images"} ${images.join(', ')}`
      : '';
    x.notes.push({ item: 'brand', message: `${why}: left out${also}` });
  }
  for (const [it, o] of read.templates) out.messageTemplates.push(replaceInside(templateFrom(it.key, o), read.urlPairs) as MessageTemplate);
  return { pack: finish(installedPackHeader(ledger, options, read.brand), out), notes: x.notes };
}

type LedgerEntries = readonly (readonly [string, LedgerItem])[];
type CreatedOf = (itemId: string) => { type: ReferenceType; id: string } | undefined;

/**
 * A resource the install created for a reference: `reference:<type>:<id>`, or, in a ledger of an
 * install made before those ids, `resource:@ref/<type>/<id>` — unless that is a pack resource of
 * that key, which it is when the automations the ledger records name no such reference.
 */
function createdReferences(ledger: InstallLedger): CreatedOf {
  const references = ledger.source?.references;
  const recorded = references ? new Set(Object.values(references).flatMap((refs) => refs.map((r) => `${r.type}:${r.id}`))) : undefined;
  return (id) => {
    const created = createdReferenceOf(id);
    if (created) return created;
    const legacy = legacyCreatedReferenceOf(id);
    if (!legacy || ledger.items[createdReferenceItemId(legacy.type, legacy.id)]) return undefined;
    return !recorded || recorded.has(`${legacy.type}:${legacy.id}`) ? legacy : undefined;
  };
}

/** What each workspace object the install wrote, adopted or bound is called in the pack: its key, or its reference. */
function nameInstalledObjects(x: Exporter, ledger: InstallLedger, items: LedgerEntries, createdOf: CreatedOf): void {
  // Keys the ledger names are kept; new keys (stages added in the workspace, references) avoid them.
  for (const [, it] of items) {
    x.keys.reserve(it.key);
    for (const k of Object.keys(it.stages ?? {})) x.keys.reserve(k);
  }
  for (const k of Object.keys(ledger.bindings)) x.keys.reserve(k.slice(k.indexOf(':') + 1));
  for (const [id, it] of items) {
    const o = x.find(it.workspaceId);
    const created = createdOf(id);
    if (created) {
      x.set(it.workspaceId, { type: created.type, refId: created.id, name: str(o?.name), item: false });
      continue;
    }
    const type =
      it.kind === 'template' ? 'email_template' : it.kind === 'asset' || it.kind === 'brand' ? undefined : REFERENCE_TYPE_OF[it.collection];
    if (type) x.set(it.workspaceId, { type, refId: it.key, name: str(o?.name), item: true });
    for (const [k, id] of Object.entries(it.stages ?? {})) x.set(id, { type: 'deal_stage', refId: k, name: undefined, item: true });
  }
  for (const [k, wsId] of Object.entries(ledger.bindings).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const i = k.indexOf(':');
    x.set(wsId, { type: k.slice(0, i) as ReferenceType, refId: k.slice(i + 1), name: str(x.find(wsId)?.name), item: false });
  }
  x.indexExternals();
}

type ExportedItems = {
  automations: AutomationItem[];
  smartLists: SmartList[];
  messageTemplates: MessageTemplate[];
  pipelines: Pipeline[];
  resources: Resource[];
  assets: Asset[];
};

/** What reading the installed items back gives, before templates take back the addresses the pack wrote. */
interface InstalledRead {
  out: ExportedItems;
  /** Media addresses in templates go back to the address the pack wrote (an email image's sourceUrl): [workspace address, pack address]. */
  urlPairs: [string, string][];
  /** Templates, read once every asset's address is known. */
  templates: [LedgerItem, WorkspaceObject][];
  /** The pack's brand images, when its brand is not the workspace's: nothing the export holds uses them. */
  imagesLeftOut: string[];
  brand?: Record<string, unknown>;
}

function readInstalledItems(
  x: Exporter,
  input: ExportInput,
  ledger: InstallLedger,
  items: LedgerEntries,
  createdOf: CreatedOf,
): InstalledRead {
  const read: InstalledRead = {
    out: { automations: [], smartLists: [], messageTemplates: [], pipelines: [], resources: [], assets: [] },
    urlPairs: [],
    templates: [],
    imagesLeftOut: [],
  };
  for (const [key, note] of Object.entries(ledger.source?.assets ?? {})) {
    if (note.role === 'email_image' && note.sourceUrl && note.url && !ledger.items[`asset:${key}`])
      read.urlPairs.push([note.url, note.sourceUrl]);
  }
  for (const [id, it] of items) {
    if (createdOf(id)) continue;
    if (it.kind === 'asset' && brandImageLeftOut(ledger, it.key)) {
      read.imagesLeftOut.push(it.key);
      continue;
    }
    const o = it.kind === 'brand' ? input.snapshot.collections.brand?.[0] : x.find(it.workspaceId);
    if (!o && it.kind !== 'brand') x.notes.push({ item: `${it.kind}:${it.key}`, message: 'deleted in the workspace: left out' });
    if (o) readInstalledItem(x, ledger, it, o, read);
  }
  return read;
}

/** One installed item from its workspace object, into `read`. */
function readInstalledItem(x: Exporter, ledger: InstallLedger, it: LedgerItem, o: WorkspaceObject, read: InstalledRead): void {
  const source = ledger.source ?? {};
  const { out } = read;
  switch (it.kind) {
    case 'resource':
      out.resources.push(resourceFrom(RESOURCE_KIND_OF[it.collection] ?? 'tag', it.key, o, getOwn(source.resourceData, it.key)));
      break;
    case 'template':
      read.templates.push([it, o]);
      break;
    case 'pipeline': {
      const keyOf = new Map(Object.entries(it.stages ?? {}).map(([k, id]) => [id, k]));
      out.pipelines.push(pipelineFrom(it.key, o, (s) => keyOf.get(String(s.id)) ?? x.keys.take(it.key, String(s.name ?? 'stage'))));
      break;
    }
    case 'smartList':
      out.smartLists.push(smartListFrom(x, it.key, o));
      break;
    case 'automation': {
      const doc = latestDocument(o);
      if (doc)
        out.automations.push({
          key: it.key,
          document: x.document(doc, false, getOwn(source.references, it.key), getOwn(source.referencePlaces, it.key)),
        });
      break;
    }
    case 'asset': {
      const data = x.bytes(o.id, `asset:${it.key}`);
      if (data === undefined) break;
      const asset = assetFromMedia(it.key, o, data, getOwn(source.assets ?? {}, it.key), 'logo');
      if (asset.role === 'email_image' && typeof o.url === 'string') read.urlPairs.push([o.url, asset.sourceUrl ?? o.url]);
      out.assets.push(asset);
      break;
    }
    case 'brand':
      if (isObj(o.fields)) read.brand = clone(o.fields);
      break;
  }
}

/** The exported pack's top-level fields: the ledger's pack, what it kept of the source, and the options. */
function installedPackHeader(ledger: InstallLedger, options: ExportOptions, brand: Record<string, unknown> | undefined): Pack {
  const source = ledger.source ?? {};
  const pack: Pack = {
    format: 'service.setup-pack',
    schemaVersion: brand ? 2 : (source.schemaVersion ?? 2),
    packId: ledger.packId,
    name: ledger.packName,
    version: options.version ?? ledger.version ?? ledger.targetVersion ?? '1.0.0',
  };
  if (source.$schema !== undefined) pack.$schema = source.$schema;
  if (source.description !== undefined) pack.description = source.description;
  if (source.author !== undefined) pack.author = source.author;
  if (options.exportedAt) pack.exportedAt = options.exportedAt;
  if (brand) pack.brand = brand;
  return pack;
}

/**
 * Where the workspace's automations and smart lists write each string that could be an id: the
 * automation's name, the block's id and the pointer into its config (a smart list's name and the
 * pointer into its filters), by the string. Names and block ids are what a snapshot carries, so a
 * workspace it is installed into has the same places.
 */
function placesOfIds(x: Exporter): Map<string, string[]> {
  const at = new Map<string, string[]>();
  const add = (s: string, place: unknown[]) => {
    const l = at.get(s);
    if (l) l.push(JSON.stringify(place));
    else at.set(s, [JSON.stringify(place)]);
    return s;
  };
  for (const a of x.list('automations')) {
    for (const n of latestDocument(a)?.graph?.nodes ?? [])
      mapStringsAt(n.config ?? {}, '', (s, path) => add(s, ['automation', String(a.name ?? ''), n.id, path]));
  }
  for (const l of x.list('smart_lists')) mapStringsAt(l.filters ?? {}, '', (s, path) => add(s, ['smart_list', String(l.name ?? ''), path]));
  return at;
}

function exportEverything(input: ExportInput, options: ExportOptions): ExportResult {
  const x = new Exporter(input, null);
  const out = {
    automations: [] as AutomationItem[],
    smartLists: [] as SmartList[],
    messageTemplates: [] as MessageTemplate[],
    pipelines: [] as Pipeline[],
    resources: [] as Resource[],
    assets: [] as Asset[],
  };
  const content = (c: WorkspaceCollection) => (o: WorkspaceObject) => canonicalJson(projectWorkspaceObject(c, o));
  // Objects of one name are keyed (`-2`, `-3`…) in the order of their content, with the ids of
  // objects keyed before them written as those keys (a smart list's tag, an automation's template:
  // a workspace's ids would order them differently in each workspace); twins, of one name and one
  // content, in the order of where the workspace's automations and smart lists use them, which
  // installing the snapshot elsewhere writes the same, so the one a block uses gets the same key in
  // every snapshot. Twins nothing uses are alike: either order exports the same.
  const usedAt = placesOfIds(x);
  const order = (c: WorkspaceCollection) => (o: WorkspaceObject) => {
    const mapped = mapStrings(projectWorkspaceObject(c, o), (s) => x.index.get(s)?.refId ?? s) as Json;
    const stages = c === 'pipelines' && Array.isArray(o.stages) ? (o.stages as Record<string, unknown>[]) : [];
    const where = [
      ...(usedAt.get(o.id) ?? []),
      ...stages.flatMap((st) => (usedAt.get(String(st.id)) ?? []).map((p) => `${String(st.name)}\u0000${p}`)),
    ].sort();
    // canonicalJson escapes control characters, so the separator sorts before anything the content holds.
    return `${canonicalJson(mapped)}\u0000${JSON.stringify(where)}`;
  };
  const keyed: { c: WorkspaceCollection; o: WorkspaceObject; key: string }[] = [];
  for (const c of [
    'tags',
    'contact_stages',
    'lead_sources',
    'custom_fields',
    'message_templates',
    'pipelines',
    'smart_lists',
    'automations',
  ] as const) {
    for (const o of byNameThenContent(x.list(c), (v) => String(v.name ?? ''), order(c))) {
      const email = c === 'message_templates' && isEmailResource(o);
      const key = x.keys.take(email ? 'email' : PREFIX[c]!, String(o.name ?? ''));
      x.set(o.id, { type: REFERENCE_TYPE_OF[c]!, refId: key, name: str(o.name), item: true });
      keyed.push({ c, o, key });
    }
  }
  const stageKeys = new Map<string, string>();
  for (const { c, o, key } of keyed) {
    if (c !== 'pipelines') continue;
    for (const s of (Array.isArray(o.stages) ? o.stages : []) as Record<string, unknown>[]) {
      const k = x.keys.take(key, String(s.name ?? 'stage'));
      stageKeys.set(String(s.id), k);
      x.set(String(s.id), { type: 'deal_stage', refId: k, name: str(s.name), item: true });
    }
  }
  x.indexExternals();
  for (const { c, o, key } of keyed) {
    if (c === 'message_templates') {
      if (isEmailResource(o)) out.resources.push(resourceFrom('email_template', key, o, undefined));
      else out.messageTemplates.push(templateFrom(key, o));
    } else if (RESOURCE_KIND_OF[c]) out.resources.push(resourceFrom(RESOURCE_KIND_OF[c], key, o, undefined));
    else if (c === 'pipelines') out.pipelines.push(pipelineFrom(key, o, (s) => stageKeys.get(String(s.id))!));
    else if (c === 'smart_lists') out.smartLists.push(smartListFrom(x, key, o));
    else if (c === 'automations') {
      const doc = latestDocument(o);
      if (doc) out.automations.push({ key, document: x.document(doc, true) });
    }
  }
  // Images: the brand's (keyed as the brand names them) and those the templates' text uses.
  const used = usedMedia(input.snapshot);
  const media = byNameThenContent(x.list('media'), (m) => String(m.file_name ?? m.name ?? ''), content('media'));
  for (const m of media) {
    for (const brandKey of (used.brand.get(m.id) ?? []).sort()) {
      const data = x.bytes(m.id, `brand asset ${brandKey}`);
      if (data === undefined) continue;
      const key = x.keys.has(brandKey) ? x.keys.take('asset', brandKey) : (x.keys.reserve(brandKey), brandKey);
      const role = (BRAND_ROLES as readonly string[]).includes(brandKey) ? (brandKey as AssetRole) : 'logo';
      out.assets.push(assetFromMedia(key, m, data, undefined, role));
    }
    if (used.templates.has(m.id)) {
      const data = x.bytes(m.id, `media ${m.id}`);
      if (data !== undefined)
        out.assets.push(assetFromMedia(x.keys.take('image', String(m.file_name ?? m.id)), m, data, undefined, 'email_image'));
    }
  }
  const b = input.snapshot.collections.brand?.[0];
  for (const [k, url] of Object.entries((b?.asset_urls ?? {}) as Record<string, unknown>)) {
    if (![...used.brand.values()].some((keys) => keys.includes(k)))
      x.notes.push({ item: `brand asset ${k}`, message: `${String(url)} is not in the media library: left out` });
  }
  const pack: Pack = {
    format: 'service.setup-pack',
    schemaVersion: 2,
    packId: options.packId ?? '00000000-0000-4000-8000-000000000000',
    name: options.name ?? 'Workspace snapshot',
    version: options.version ?? '1.0.0',
  };
  if (options.exportedAt) pack.exportedAt = options.exportedAt;
  if (b && isObj(b.fields)) pack.brand = clone(b.fields);
  return { pack: finish(pack, out), notes: x.notes };
}

export { slugify };
