// The model of a pack (model.ts) from core's reading of its text: items and their keys, the places
// that use a key, blocks and their kinds. What counts as a reference is core's: the catalog's ref
// fields, the automations' references lists, the filter fields that hold ids, and the items each
// reference type resolves to (packItemsByReferenceType). Runs in the validation worker.
import {
  configRefIds,
  escapeToken,
  FILTER_FIELD_REFERENCES,
  isFilterCondition,
  isFilterGroup,
  nodeKindInfo,
  outputHandles,
  packItemsByReferenceType,
  REFERENCE_TYPES,
  type ReferenceType,
} from '@setup-pack/core';
import {
  HIT_ITEM,
  HIT_KIND,
  HIT_REF,
  HIT_SIZE,
  HIT_URL,
  itemPointer,
  type AutomationInfo,
  type Block,
  type Collection,
  type Declared,
  type PackItem,
  type PackModel,
  type RefSite,
  type SiteKind,
  type Span,
  type UrlSite,
} from './model.js';
import { Spots, type Placer } from './spans.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const REFERENCE_TYPE_SET: ReadonlySet<string> = new Set(REFERENCE_TYPES);
const KEYED: readonly Collection[] = ['automations', 'smartLists', 'messageTemplates', 'pipelines', 'resources', 'assets'];

/** A model under construction: what is found, with the handles of the places still to be located. */
class Builder {
  readonly spots = new Spots();
  readonly items: PackItem[] = [];
  readonly refs: RefSite[] = [];
  readonly urls: UrlSite[] = [];
  readonly blocks: Block[] = [];
  readonly automations: AutomationInfo[] = [];
  /** Per entry of items, refs, urls and blocks: the spot of its span(s). */
  readonly itemSpots: [key: number, extent: number, document: number][] = [];
  readonly refSpots: number[] = [];
  readonly urlSpots: number[] = [];
  /** Per entry of urls: the address, to find inside its string once located. */
  readonly urlTexts: string[] = [];
  readonly blockSpots: [kind: number, extent: number][] = [];
  /** `${collection}/${index}/${stage}` → index in items. */
  readonly itemAt = new Map<string, number>();

  addItem(item: PackItem): number {
    this.items.push(item);
    const pointer = itemPointer(item);
    const document = item.collection === 'automations' ? this.spots.want(`${pointer}/document`) : -1;
    this.itemSpots.push([this.spots.want(`${pointer}/key`), this.spots.want(pointer), document]);
    this.itemAt.set(`${item.collection}/${item.index}/${item.stage ?? ''}`, this.items.length - 1);
    return this.items.length - 1;
  }

  addRef(pointer: string, type: ReferenceType, id: string, site: SiteKind, automation?: number): void {
    this.refs.push({ span: NO_SPAN, type, id, site, ...(automation === undefined ? {} : { automation }) });
    this.refSpots.push(this.spots.want(pointer));
  }
}

const NO_SPAN: Span = { start: -1, end: -1 };

/** The model of `value` (a pack), its places found by `placer` (one scan of each text). */
export function packModel(value: unknown, placer: Placer, version: number): PackModel {
  const b = new Builder();
  if (isObj(value)) {
    collectItems(value, b);
    collectTypes(value, b);
    list(value.automations).forEach((a, i) => collectAutomation(a, i, b));
    list(value.smartLists).forEach((l, i) => {
      if (isObj(l) && isObj(l.filters)) walkFilter(l.filters.root, `/smartLists/${i}/filters/root`, b);
    });
    collectUrls(value, b);
    resolveTargets(b);
  }
  return placed(b, placer, version);
}

function collectItems(pack: Obj, b: Builder): void {
  for (const collection of KEYED) {
    list(pack[collection]).forEach((v, index) => {
      if (!isObj(v) || typeof v.key !== 'string') return;
      const name = collection === 'automations' ? (isObj(v.document) ? str(v.document.name) : undefined) : str(v.name);
      const kind = collection === 'resources' ? str(v.kind) : collection === 'assets' ? str(v.role) : undefined;
      b.addItem({ collection, index, key: v.key, types: [], ...(name ? { name } : {}), ...(kind ? { kind } : {}) });
      if (collection !== 'pipelines') return;
      list(v.stages).forEach((s, stage) => {
        if (isObj(s) && typeof s.key === 'string')
          b.addItem({ collection, index, stage, key: s.key, types: [], ...(str(s.name) ? { name: s.name as string } : {}) });
      });
    });
  }
}

/** Each item's reference types: core's statement of which items a reference of each type resolves to. */
function collectTypes(pack: Obj, b: Builder): void {
  for (const [type, byKey] of packItemsByReferenceType(pack)) {
    for (const at of byKey.values()) {
      const i = b.itemAt.get(`${at.kind}/${at.index}/${at.stage ?? ''}`);
      if (i !== undefined) b.items[i].types.push(type);
    }
  }
}

function collectAutomation(a: unknown, index: number, b: Builder): void {
  const item = b.itemAt.get(`automations/${index}/`);
  if (!isObj(a) || !isObj(a.document) || item === undefined) return;
  const doc = a.document;
  const base = `/automations/${index}/document`;
  const graph = isObj(doc.graph) ? doc.graph : undefined;
  const info: AutomationInfo = {
    item,
    references: [],
    blocks: [],
    edgeSources: list(graph?.edges).map((e) => (isObj(e) ? (str(e.source) ?? null) : null)),
  };
  b.automations[index] = info;
  list(doc.references).forEach((r, k) => {
    if (!isObj(r)) return;
    const [type, id, name, detail] = [str(r.type), str(r.id), str(r.name), str(r.detail)];
    info.references.push({
      index: k,
      ...(type === undefined ? {} : { type }),
      ...(id === undefined ? {} : { id }),
      ...(name ? { name } : {}),
      ...(detail ? { detail } : {}),
    });
    if (type && id !== undefined && REFERENCE_TYPE_SET.has(type))
      b.addRef(`${base}/references/${k}/id`, type as ReferenceType, id, 'references', index);
  });
  const declared = declaredTypes(info.references);
  list(graph?.nodes).forEach((n, k) => {
    if (!isObj(n) || typeof n.kind !== 'string') return;
    const pointer = `${base}/graph/nodes/${k}`;
    const handles = nodeKindInfo(n.kind)?.outputs === 'dynamic' ? outputHandles(n.kind, n.config) : undefined;
    info.blocks.push(b.blocks.length);
    b.blocks.push({ automation: index, node: k, id: str(n.id) ?? '', kind: n.kind, ...(handles ? { handles } : {}) });
    b.blockSpots.push([b.spots.want(`${pointer}/kind`), b.spots.want(pointer)]);
    if (isObj(n.config)) walkConfig(n.kind, n.config, pointer, declared, index, b);
  });
}

/** The ids an automation's references list under exactly one type: a config string equal to one names that item. */
function declaredTypes(references: readonly Declared[]): Map<string, ReferenceType | undefined> {
  const out = new Map<string, ReferenceType | undefined>();
  for (const r of references) {
    if (r.type === undefined || r.id === undefined || !REFERENCE_TYPE_SET.has(r.type)) continue;
    out.set(r.id, out.has(r.id) && out.get(r.id) !== r.type ? undefined : (r.type as ReferenceType));
  }
  return out;
}

/**
 * A block's config: the ids of the catalog's reference fields (core's configRefIds) by their type,
 * any other string by the filter condition it is in or the references list.
 */
function walkConfig(
  kind: string,
  config: Obj,
  nodePointer: string,
  declared: Map<string, ReferenceType | undefined>,
  automation: number,
  b: Builder,
): void {
  const typed = new Set<string>();
  for (const ref of configRefIds(kind, config)) {
    b.addRef(`${nodePointer}${ref.path}`, ref.field.ref, ref.id, 'config', automation);
    typed.add(`/config/${escapeToken(ref.field.name)}`);
  }
  for (const name of Object.keys(config)) {
    const at = `/config/${escapeToken(name)}`;
    if (!typed.has(at)) walkStrings(config[name], `${nodePointer}${at}`, b, automation, declared);
  }
}

/** Strings anywhere under `v`: a filter condition's values by its field, others by the references list. */
function walkStrings(v: unknown, pointer: string, b: Builder, automation: number, declared: Map<string, ReferenceType | undefined>): void {
  if (typeof v === 'string') {
    const type = declared.get(v);
    if (type) b.addRef(pointer, type, v, 'declared', automation);
  } else if (Array.isArray(v)) v.forEach((x, i) => walkStrings(x, `${pointer}/${i}`, b, automation, declared));
  else if (isObj(v)) {
    const type = conditionType(v);
    for (const k of Object.keys(v)) {
      const at = `${pointer}/${escapeToken(k)}`;
      if (type && k === 'value') addValues(v.value, at, type, 'filter', b, automation);
      else walkStrings(v[k], at, b, automation, declared);
    }
  }
}

/** The reference type of a filter condition's values (FILTER_FIELD_REFERENCES), when its field holds ids. */
function conditionType(v: Obj): ReferenceType | undefined {
  if (!isFilterCondition(v) || typeof v.field !== 'string' || !Object.prototype.hasOwnProperty.call(FILTER_FIELD_REFERENCES, v.field))
    return undefined;
  return FILTER_FIELD_REFERENCES[v.field];
}

function addValues(v: unknown, pointer: string, type: ReferenceType, site: SiteKind, b: Builder, automation?: number): void {
  if (typeof v === 'string') b.addRef(pointer, type, v, site, automation);
  else if (Array.isArray(v)) v.forEach((x, i) => typeof x === 'string' && b.addRef(`${pointer}/${i}`, type, x, site, automation));
}

/** A smart list's filter tree: conditions on fields that hold ids. */
function walkFilter(node: unknown, pointer: string, b: Builder): void {
  if (isFilterGroup(node)) list(node.children).forEach((c, i) => walkFilter(c, `${pointer}/children/${i}`, b));
  else if (isObj(node)) {
    const type = conditionType(node);
    if (type) addValues(node.value, `${pointer}/value`, type, 'filter', b);
  }
}

/**
 * Where templates write an email image's sourceUrl: the asset-unused-email-image rule's reading
 * (subject, body and richTextDoc), each place located in the text.
 */
function collectUrls(pack: Obj, b: Builder): void {
  const images = new Map<string, number>();
  b.items.forEach((it, i) => {
    const a = it.collection === 'assets' ? list(pack.assets)[it.index] : undefined;
    if (isObj(a) && a.role === 'email_image' && typeof a.sourceUrl === 'string' && a.sourceUrl !== '' && !images.has(a.sourceUrl))
      images.set(a.sourceUrl, i);
  });
  if (images.size === 0) return;
  const visit = (v: unknown, pointer: string): void => {
    if (typeof v === 'string') {
      for (const [url, asset] of images) {
        if (!v.includes(url)) continue;
        b.urls.push({ span: NO_SPAN, asset });
        b.urlSpots.push(b.spots.want(pointer));
        b.urlTexts.push(url);
      }
    } else if (Array.isArray(v)) v.forEach((x, i) => visit(x, `${pointer}/${i}`));
    else if (isObj(v)) for (const k of Object.keys(v)) visit(v[k], `${pointer}/${escapeToken(k)}`);
  };
  list(pack.messageTemplates).forEach((t, i) => {
    if (!isObj(t)) return;
    for (const field of ['subject', 'body', 'richTextDoc']) if (t[field] !== undefined) visit(t[field], `/messageTemplates/${i}/${field}`);
  });
}

/** Each reference's item in the pack: the first item of its type with that key, as core resolves it. */
function resolveTargets(b: Builder): void {
  const byType = new Map<string, Map<string, number>>();
  b.items.forEach((it, i) => {
    for (const t of it.types) {
      let m = byType.get(t);
      if (!m) byType.set(t, (m = new Map<string, number>()));
      if (!m.has(it.key)) m.set(it.key, i);
    }
  });
  for (const r of b.refs) {
    const target = byType.get(r.type)?.get(r.id);
    if (target !== undefined) r.target = target;
  }
}

/** The model with every place located; a url's span narrowed to the address inside its string. */
function placed(b: Builder, placer: Placer, version: number): PackModel {
  const spans = b.spots.place(placer);
  b.items.forEach((it, i) => {
    const [key, extent, document] = b.itemSpots[i];
    if (spans[key]) it.keySpan = spans[key];
    if (spans[extent]) it.extent = spans[extent];
    if (document >= 0 && spans[document]) it.documentExtent = spans[document];
  });
  b.blocks.forEach((bl, i) => {
    const [kind, extent] = b.blockSpots[i];
    if (spans[kind]) bl.kindSpan = spans[kind];
    if (spans[extent]) bl.extent = spans[extent];
  });
  const refs = b.refs.filter((r, i) => (spans[b.refSpots[i]] ? ((r.span = spans[b.refSpots[i]]!), true) : false));
  const urls = b.urls.flatMap((u, i) => urlSpans(placer, spans[b.urlSpots[i]], b.urlTexts[i]).map((span) => ({ ...u, span })));
  const model: PackModel = {
    version,
    hits: new Int32Array(0),
    files: [],
    items: b.items,
    refs,
    urls,
    blocks: b.blocks,
    automations: b.automations,
    fixes: [],
  };
  model.hits = positionIndex(model);
  return model;
}

/** PackModel.hits: every key, use and kind, sorted by where it starts. */
function positionIndex(model: PackModel): Int32Array {
  const hits: [Span, number, number][] = [];
  model.items.forEach((it, i) => it.keySpan && hits.push([it.keySpan, HIT_ITEM, i]));
  model.refs.forEach((r, i) => hits.push([r.span, HIT_REF, i]));
  model.urls.forEach((u, i) => hits.push([u.span, HIT_URL, i]));
  model.blocks.forEach((bl, i) => bl.kindSpan && hits.push([bl.kindSpan, HIT_KIND, i]));
  const file = (s: Span) => s.file ?? -1;
  hits.sort((x, y) => file(x[0]) - file(y[0]) || x[0].start - y[0].start);
  const out = new Int32Array(hits.length * HIT_SIZE);
  hits.forEach(([span, what, index], k) => out.set([file(span), span.start, span.end, what, index], k * HIT_SIZE));
  return out;
}

/**
 * Each place `url` is written inside the string token at `span`, as JSON.stringify writes it; the
 * whole string when the text escapes it otherwise (a "\/"), which the rule reads the same.
 */
function urlSpans(placer: Placer, span: Span | undefined, url: string): Span[] {
  if (!span) return [];
  const written = JSON.stringify(url).slice(1, -1);
  const token = placer.text(span.file).slice(span.start, span.end);
  const out: Span[] = [];
  for (let at = token.indexOf(written); at >= 0; at = token.indexOf(written, at + written.length))
    out.push({ ...span, start: span.start + at, end: span.start + at + written.length });
  return out.length ? out : [span];
}
