// Look-ups over one model, made once per model and kept with it: what is at an offset (a key, a
// use of a key, a block's kind), every use of an item, the block of a graph node.
import type { ReferenceType } from '@setup-pack/core';
import type { Block, PackItem, PackModel, RefSite, Span, UrlSite } from './model.js';

export type Hit =
  | { what: 'item'; item: number; span: Span }
  | { what: 'ref'; ref: number; span: Span }
  | { what: 'url'; url: number; span: Span }
  | { what: 'kind'; block: number; span: Span };

/** A use of an item: a reference to its key, or (an asset) a template writing its address. */
export type Use = { what: 'ref'; site: RefSite } | { what: 'url'; site: UrlSite };

export class ModelIndex {
  private readonly hits: Hit[];
  private uses: Map<number, Use[]> | undefined;
  private blocksByNode: Map<string, Block> | undefined;

  constructor(readonly model: PackModel) {
    const hits: Hit[] = [];
    model.items.forEach((it, item) => it.keySpan && hits.push({ what: 'item', item, span: it.keySpan }));
    model.refs.forEach((r, ref) => hits.push({ what: 'ref', ref, span: r.span }));
    model.urls.forEach((u, url) => hits.push({ what: 'url', url, span: u.span }));
    model.blocks.forEach((b, block) => b.kindSpan && hits.push({ what: 'kind', block, span: b.kindSpan }));
    this.hits = hits.sort((a, b) => a.span.start - b.span.start);
  }

  /** What is at `offset` (its token, a closing quote included); the innermost when tokens nest (a url in a body). */
  at(offset: number): Hit | undefined {
    let lo = 0;
    let hi = this.hits.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.hits[mid].span.start <= offset) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    // A url sits inside the string of a template body; the hits before it may hold the offset too.
    for (let i = found; i >= 0 && i >= found - 2; i--) if (this.hits[i].span.end >= offset && this.hits[i].span.start <= offset) return this.hits[i];
    return undefined;
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
