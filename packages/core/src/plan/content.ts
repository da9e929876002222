// Item content as the workspace stores it: built from a pack item (desired) and projected from a
// workspace object (actual), in one shape, so both hash alike. Canonical JSON → sha256.
import { fixedStageProbability } from '../pipeline.js';
import { setOwn } from '../own.js';
import { sha256Hex } from '../hash.js';
import type { Asset, AutomationItem, MessageTemplate, Pipeline, PipelineStage, Resource, SmartList } from '../types.js';
import type { PlanItemKind, WorkspaceCollection, WorkspaceObject } from './types.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * JSON with object keys sorted and no whitespace; `undefined` members are dropped as JSON.stringify
 * does. Built by concatenation, not arrays joined: every plan writes it for each item's content.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const s = JSON.stringify(value);
    return s === undefined ? 'null' : s;
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      out += (i ? ',' : '') + (v === undefined ? 'null' : canonicalJson(v));
    }
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  let out = '{';
  for (const k of Object.keys(obj).sort()) {
    const v = obj[k];
    if (v === undefined) continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(k)}:${canonicalJson(v)}`;
  }
  return `${out}}`;
}

const encoder = new TextEncoder();

/** The stable content hash of an item: sha256 of its canonical JSON, lower-case hex. */
export function contentHash(content: unknown): string {
  return sha256Hex(encoder.encode(canonicalJson(content)));
}

const orNull = <T>(v: T | undefined | null): T | null => (v === undefined ? null : v);
const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

/** Which collection each resource kind lives in. */
export const COLLECTION_OF_RESOURCE_KIND: Record<Resource['kind'], WorkspaceCollection> = {
  tag: 'tags',
  contact_stage: 'contact_stages',
  lead_source: 'lead_sources',
  custom_field: 'custom_fields',
  email_template: 'message_templates',
};

export function resourceContent(r: Resource): Record<string, Json> {
  switch (r.kind) {
    case 'tag':
      return { name: r.name, color: typeof r.data?.color === 'string' ? r.data.color : null };
    case 'contact_stage':
    case 'lead_source':
      return { name: r.name };
    case 'custom_field':
      return { name: r.name, data: clone((r.data ?? {}) as Json) };
    case 'email_template':
      return {
        name: r.name,
        channel: 'email',
        category: null,
        subject: null,
        body: '',
        rich_text_doc: null,
        data: clone((r.data ?? {}) as Json),
      };
  }
}

export function templateContent(t: MessageTemplate): Record<string, Json> {
  return {
    name: t.name,
    channel: t.channel,
    category: orNull(t.category),
    subject: orNull(t.subject),
    body: t.body,
    rich_text_doc: clone(orNull(t.richTextDoc) as Json),
    data: null,
  };
}

/** Won stages are 100 and lost stages 0 whatever the pack says (the format's rule), so the stored copy hashes alike. */
export function stageContent(s: PipelineStage): Record<string, Json> {
  const type = s.stageType ?? 'OPEN';
  const probability = fixedStageProbability(type) ?? orNull(s.probability);
  return { name: s.name, type, color: orNull(s.color), probability };
}

export function pipelineContent(p: Pipeline): Record<string, Json> {
  return { name: p.name, description: orNull(p.description), stages: p.stages.map(stageContent) };
}

export function smartListContent(s: SmartList): Record<string, Json> {
  return {
    name: s.name,
    description: orNull(s.description),
    color: orNull(s.color),
    icon: orNull(s.icon),
    filters: clone(s.filters as unknown as Json),
  };
}

export function automationContent(a: AutomationItem): Record<string, Json> {
  return { document: clone(a.document as unknown as Json) };
}

export function assetContent(a: Asset): Record<string, Json> {
  return { file_name: a.fileName, mime_type: a.mimeType, sha256: a.sha256 };
}

/** Token standing for an uploaded asset's address inside the brand until the upload exists. */
export const brandAssetToken = (assetKey: string) => `setup-pack-asset://${assetKey}`;

/**
 * Whether an asset is one of the brand's images: every asset but an email image (those the
 * templates show) is given to the brand, under its key, when the pack has a brand.
 */
export const isBrandAsset = (a: Pick<Asset, 'role'>): boolean => a.role !== 'email_image';

/**
 * The email images of a pack, each with the address its templates write for it (`sourceUrl`,
 * written exactly as they write it): installing replaces every occurrence of that address in a
 * template with the uploaded copy's (when the pack carries the bytes) or the asset's public `url`.
 * The editor's template preview shows the carried bytes there instead of loading the address.
 */
export function emailImageAddresses<A extends Pick<Asset, 'role' | 'sourceUrl'>>(assets: readonly A[]): { sourceUrl: string; asset: A }[] {
  const out: { sourceUrl: string; asset: A }[] = [];
  for (const a of assets) if (a.role === 'email_image' && a.sourceUrl) out.push({ sourceUrl: a.sourceUrl, asset: a });
  return out;
}

export function brandContent(brand: Record<string, unknown>, assets: Asset[]): Record<string, Json> {
  const asset_urls: Record<string, Json> = {};
  for (const a of assets) if (isBrandAsset(a)) setOwn(asset_urls, a.key, brandAssetToken(a.key));
  return { fields: clone(brand as Json), asset_urls };
}

/** The fields each collection's content is made of, as the catalog API returns them. */
const FIELDS: Partial<Record<WorkspaceCollection, readonly string[]>> = {
  tags: ['name', 'color'],
  contact_stages: ['name'],
  lead_sources: ['name'],
  custom_fields: ['name', 'data'],
  message_templates: ['name', 'channel', 'category', 'subject', 'body', 'rich_text_doc', 'data'],
  smart_lists: ['name', 'description', 'color', 'icon', 'filters'],
  media: ['file_name', 'mime_type', 'sha256'],
  brand: ['fields', 'asset_urls'],
};

/**
 * The content of a workspace object, in the shape `*Content` builds from a pack item. An
 * automation's content is its latest document: the staged draft when the live version runs.
 */
export function projectWorkspaceObject(collection: WorkspaceCollection, obj: WorkspaceObject): Record<string, Json> {
  if (collection === 'pipelines') {
    const stages = Array.isArray(obj.stages) ? (obj.stages as Record<string, unknown>[]) : [];
    return {
      name: orNull(obj.name),
      description: orNull(obj.description) as Json,
      // Won and lost stages are 100 and 0 by the format's rule, also where a store kept null (a new workspace's default pipeline).
      stages: stages.map((s) => ({
        name: orNull(s.name) as Json,
        type: orNull(s.type) as Json,
        color: orNull(s.color) as Json,
        probability: (fixedStageProbability(s.type) ?? orNull(s.probability)) as Json,
      })),
    };
  }
  if (collection === 'automations') {
    return { document: clone(orNull(obj.draft_document ?? obj.document) as Json) };
  }
  const fields = FIELDS[collection] ?? ['name'];
  const out: Record<string, Json> = {};
  for (const f of fields) out[f] = clone(orNull(obj[f]) as Json);
  return out;
}

const objectHashes = new WeakMap<WorkspaceObject, Map<WorkspaceCollection, string>>();

/**
 * contentHash(projectWorkspaceObject(collection, obj)), remembered per object: a snapshot is read
 * once and may be planned against many times (the editor's plan preview re-plans on every edit),
 * and hashing the workspace's copies was half of such a plan. Snapshot objects are never changed
 * in place (a new read replaces them), which is what makes remembering by object safe.
 */
export function workspaceObjectHash(collection: WorkspaceCollection, obj: WorkspaceObject): string {
  let byCollection = objectHashes.get(obj);
  if (!byCollection) objectHashes.set(obj, (byCollection = new Map<WorkspaceCollection, string>()));
  let hash = byCollection.get(collection);
  if (hash === undefined) byCollection.set(collection, (hash = contentHash(projectWorkspaceObject(collection, obj))));
  return hash;
}

/** Dependency order: resources, pipelines, media, then templates and brand (which use media), smart lists, automations. */
export const PHASE: Record<PlanItemKind, number> = {
  resource: 1,
  pipeline: 2,
  asset: 3,
  template: 4,
  brand: 4,
  smartList: 5,
  automation: 6,
};

export const itemId = (kind: PlanItemKind, key: string) => `${kind}:${key}`;

/** How a plan names each kind of item (`setup-pack plan`'s lines, the installer's and the planner's messages). */
export const ITEM_KIND_WORD: Record<PlanItemKind, string> = {
  resource: 'resource',
  pipeline: 'pipeline',
  asset: 'media',
  template: 'template',
  brand: 'brand',
  smartList: 'smart list',
  automation: 'automation',
};

/** An item as a plan names it: `automation welcome "New lead welcome"` (the name left out when it is the key). */
export const itemLabel = (item: { kind: PlanItemKind; key: string; name?: string }) =>
  `${ITEM_KIND_WORD[item.kind] ?? item.kind} ${item.key}${item.name && item.name !== item.key ? ` "${item.name}"` : ''}`;
