// What the server knows of one version of a pack text, beyond its findings: where each item's key
// is, where each reference to a key is, each block's kind, and the fixes core would make. Made in
// the validation worker (analyse.ts) from core's reading of the text, sent to the main thread, and
// read there by every request. Places are offsets into the text of the version analysed; the
// main thread moves them over later edits (edits.ts).
import type { ReferenceType } from '@setup-pack/core';

/** A stretch of an analysed text: [start, end) in UTF-16 units. */
export interface Span {
  start: number;
  end: number;
  /** In a source folder's model: the file it is in (an index into PackModel.files); else the pack file. */
  file?: number;
}

export type Collection = 'automations' | 'smartLists' | 'messageTemplates' | 'pipelines' | 'resources' | 'assets';

/** An item with a key: an automation, smart list, template, pipeline, pipeline stage, resource or asset. */
export interface PackItem {
  collection: Collection;
  index: number;
  /** For a pipeline stage: its index in the pipeline's stages. */
  stage?: number;
  key: string;
  /** The item's name (an automation's document name), when it has one. */
  name?: string;
  /** The key's string, quotes included. */
  keySpan?: Span;
  /** In a source folder: other places the key is written that say the same (the manifest's list of resources). */
  keyCopies?: Span[];
  /** The whole item object. */
  extent?: Span;
  /** An automation's document object: in a source folder, its file (the item itself is an entry of the manifest). */
  documentExtent?: Span;
  /** The reference types a reference resolves to this item by (core's packItemsByReferenceType). */
  types: ReferenceType[];
  /** For a resource, its kind; for an asset, its role. */
  kind?: string;
}

/** Where a place names a key, and how it came to be read as one. */
export type SiteKind =
  /** a catalog config field of type ref or refs */
  | 'config'
  /** an automation's references list */
  | 'references'
  /** a filter condition on a field that holds ids (smart lists, control.if) */
  | 'filter'
  /** another string in a block's config, equal to an id its automation's references list with one type */
  | 'declared';

/** A string that names an item of a reference type: a place a key is used. */
export interface RefSite {
  span: Span;
  type: ReferenceType;
  id: string;
  site: SiteKind;
  /** The automation it is in (index in automations), when it is in one. */
  automation?: number;
  /** The pack item it resolves to (index into PackModel.items), when the pack carries it. */
  target?: number;
}

/** An asset's sourceUrl written in a template: the place a template uses the asset. */
export interface UrlSite {
  span: Span;
  /** Index into PackModel.items. */
  asset: number;
}

export interface Block {
  automation: number;
  /** Its index in the graph's nodes. */
  node: number;
  id: string;
  kind: string;
  kindSpan?: Span;
  extent?: Span;
  /** For a kind whose outputs its config declares (control.ai_branch): those it declares (core's outputHandles). */
  handles?: string[];
  /** What it causes that starts automations of the pack, in words (behaviour.ts). */
  starts?: string[];
  /** A trigger: the blocks of the pack that start it, in words. */
  startedBy?: string[];
}

/** An entry of an automation's references list: what a workspace reference is matched by. */
export interface Declared {
  /** Its index in the list. */
  index: number;
  type?: string;
  id?: string;
  name?: string;
  detail?: string;
}

export interface AutomationInfo {
  /** Index into PackModel.items. */
  item: number;
  references: Declared[];
  /** Indexes into PackModel.blocks. */
  blocks: number[];
  /** Each edge's source block id, by the edge's index (null where it has none). */
  edgeSources: (string | null)[];
}

/** One change core's fixes (fixedPack) make, as an edit of the text. */
export interface FixEdit {
  /** Where the fix writes (the value changed, the property added, the name moved). */
  pointer: string;
  span: Span;
  newText: string;
  title: string;
}

/** What a hit of the model's position index is: a key, a use of one, a url, a block's kind. */
export const HIT_ITEM = 0;
export const HIT_REF = 1;
export const HIT_URL = 2;
export const HIT_KIND = 3;

export interface PackModel {
  version: number;
  /**
   * Every key, use and block kind by position, as five numbers each (file, or -1 for the pack
   * file; start; end; what: HIT_*; index into its list), sorted by file and start. Made in the
   * worker and handed over whole (a transfer, not a copy), so a request never waits for the main
   * thread to sort them.
   */
  hits: Int32Array;
  /** A source folder's model: the URIs of the files its spans are in. Empty for a pack file. */
  files: string[];
  items: PackItem[];
  refs: RefSite[];
  urls: UrlSite[];
  blocks: Block[];
  automations: AutomationInfo[];
  fixes: FixEdit[];
}

/** The pointer of an item (or pipeline stage) object. */
export const itemPointer = (it: Pick<PackItem, 'collection' | 'index' | 'stage'>): string =>
  `/${it.collection}/${it.index}${it.stage === undefined ? '' : `/stages/${it.stage}`}`;

/** The pointer of a block's node object. */
export const blockPointer = (b: Pick<Block, 'automation' | 'node'>): string =>
  `/automations/${b.automation}/document/graph/nodes/${b.node}`;

export const HIT_SIZE = 5;

export const emptyModel = (version: number): PackModel => ({
  version,
  hits: new Int32Array(0),
  files: [],
  items: [],
  refs: [],
  urls: [],
  blocks: [],
  automations: [],
  fixes: [],
});
