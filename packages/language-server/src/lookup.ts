// Look-ups over one model, made once per model and kept with it: what is at an offset (a key, a
// use of a key, a block's kind), every use of an item, the block of a graph node.
import type { ReferenceType } from '@setup-pack/core';
import {
  HIT_ITEM,
  HIT_REF,
  HIT_SIZE,
  HIT_URL,
  type Block,
  type PackItem,
  type PackModel,
  type RefSite,
  type Span,
  type UrlSite,
} from './model.js';

export type Hit =
  | { what: 'item'; item: number; span: Span }
  | { what: 'ref'; ref: number; span: Span }
  | { what: 'url'; url: number; span: Span }
  | { what: 'kind'; block: number; span: Span };

/** A use of an item: a reference to its key, or (an asset) a template writing its address. */
export type Use = { what: 'ref'; site: RefSite } | { what: 'url'; site: UrlSite };

export class ModelIndex {
  private uses: Map<number, Use[]> | undefined;
  private blocksByNode: Map<string, Block> | undefined;

  constructor(readonly model: PackModel) {}

  /**
   * What is at `offset` of a file (`file`: its index in the model's files; -1: the pack file): the
   * token it is in (its closing quote included), by binary search of the model's hits.
   */
  at(file: number, offset: number): Hit | undefined {
    const hits = this.model.hits;
    const before = (k: number) => hits[k * HIT_SIZE] < file || (hits[k * HIT_SIZE] === file && hits[k * HIT_SIZE + 1] <= offset);
    let lo = 0;
    let hi = hits.length / HIT_SIZE - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (before(mid)) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const at = found * HIT_SIZE;
    if (found < 0 || hits[at] !== file || hits[at + 2] < offset) return undefined;
    const span: Span = file < 0 ? { start: hits[at + 1], end: hits[at + 2] } : { start: hits[at + 1], end: hits[at + 2], file };
    const index = hits[at + 4];
    switch (hits[at + 3]) {
      case HIT_ITEM:
        return { what: 'item', item: index, span };
      case HIT_REF:
        return { what: 'ref', ref: index, span };
      case HIT_URL:
        return { what: 'url', url: index, span };
      default:
        return { what: 'kind', block: index, span };
    }
  }

  /** Every use of the item: references resolving to it, and for an email image the templates using its address. */
  usesOf(item: number): Use[] {
    if (!this.uses) {
      const uses = new Map<number, Use[]>();
      const add = (i: number, u: Use) => (uses.get(i) ?? uses.set(i, []).get(i)!).push(u);
      for (const site of this.model.refs) if (site.target !== undefined) add(site.target, { what: 'ref', site });
      for (const site of this.model.urls) add(site.asset, { what: 'url', site });
      this.uses = uses;
    }
    return this.uses.get(item) ?? [];
  }

  /** The block of an automation's node (by its index in the graph's nodes). */
  block(automation: number, node: number): Block | undefined {
    this.blocksByNode ??= new Map(this.model.blocks.map((b) => [`${b.automation}/${b.node}`, b]));
    return this.blocksByNode.get(`${automation}/${node}`);
  }

  /** Items a reference of `type` can name, each key once (the first, as core resolves it). */
  itemsOfType(type: ReferenceType): PackItem[] {
    const seen = new Set<string>();
    return this.model.items.filter((it) => it.types.includes(type) && !seen.has(it.key) && seen.add(it.key));
  }

  /** The item a hit is about: the key itself, the item a reference resolves to, the asset a url is. */
  itemOf(hit: Hit): number | undefined {
    if (hit.what === 'item') return hit.item;
    if (hit.what === 'ref') return this.model.refs[hit.ref].target;
    if (hit.what === 'url') return this.model.urls[hit.url].asset;
    return undefined;
  }
}
