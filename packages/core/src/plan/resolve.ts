// Turning a step's content into the exact request body once the ids it needs exist. Used by the
// planner (ids from the ledger) and by the installer (ids from the writes it just made), so both
// compute the same content hash and idempotency key.
import { getOwn, setOwn } from '../own.js';
import { NODE_CATALOG } from '../catalog/nodes.js';
import { canonicalJson, contentHash, projectWorkspaceObject, type Json } from './content.js';
import { sha256Hex } from '../hash.js';
import type { BindingTarget, InstallLedger, LedgerItem, PlanStep, WorkspaceObject } from './types.js';

/** What is known about an item that exists in the workspace. */
export interface ResolvedItem {
  workspaceId: string;
  url?: string;
  stages?: Record<string, string>;
}

export type ItemLookup = (itemId: string) => ResolvedItem | undefined;

export interface ResolvedStep {
  /** Content after rewrites: what the workspace copy will hash as. */
  content: Record<string, Json>;
  /** contentHash(content): recorded in the ledger as sourceHash. */
  sourceHash: string;
  /** The request body: content plus what the API needs to address parts (pipeline stage ids). */
  body: Record<string, unknown>;
  /** Deterministic per pack, run, item and content, so a retried or resumed creation is one creation. */
  idempotencyKey: string;
}

/** The workspace id (or stage id) a binding target stands for, or undefined while it does not exist yet. */
export function resolveTarget(target: BindingTarget, lookup: ItemLookup): string | undefined {
  if ('workspaceId' in target) return target.workspaceId;
  const item = lookup(target.itemId);
  if (!item) return undefined;
  if (target.stageKey !== undefined) return getOwn(item.stages, target.stageKey);
  return item.workspaceId;
}

function resolveUrl(target: { itemId: string } | { url: string }, lookup: ItemLookup): string | undefined {
  if ('url' in target) return target.url;
  return lookup(target.itemId)?.url;
}

/** A copy of `value` with every string under it passed through `f`. */
function mapStrings(value: Json, f: (s: string) => string): Json {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value && typeof value === 'object') {
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, k, mapStrings(v, f));
    return out;
  }
  return value;
}

/** Replaces whole strings equal to a key of `map` anywhere under `value`. */
function replaceWhole(value: Json, map: Map<string, string>): Json {
  return mapStrings(value, (s) => map.get(s) ?? s);
}

/** In a filter document, replaces condition values (and members of value arrays) equal to a key of `map`. */
function replaceFilterValues(value: Json, map: Map<string, string>): Json {
  if (Array.isArray(value)) return value.map((v) => replaceFilterValues(v, map));
  if (value && typeof value === 'object') {
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(value)) {
      setOwn(out, k, k === 'value' && (typeof v === 'string' || Array.isArray(v)) ? replaceWhole(v, map) : replaceFilterValues(v, map));
    }
    return out;
  }
  return value;
}

/** Replaces every occurrence of each key of `map` inside every string under `value`. */
function replaceInside(value: Json, pairs: [string, string][]): Json {
  return mapStrings(value, (s) => {
    for (const [from, to] of pairs) if (from) s = s.split(from).join(to);
    return s;
  });
}

/**
 * A block config with reference ids replaced by workspace ids. A field the node catalog types as
 * a reference (`tag_id`, `automation_ids`…) takes the rewrite of its own reference type when two
 * references share the id; every other string equal to a reference id takes that id's first rewrite.
 */
function rewriteConfig(kind: Json, config: Json, refs: Map<string, string>, typed: Map<string, Map<string, string>>): Json {
  if (!config || typeof config !== 'object' || Array.isArray(config) || typed.size === 0) return replaceWhole(config, refs);
  const fields = typeof kind === 'string' ? NODE_CATALOG.get(kind)?.fields : undefined;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(config)) {
    const field = fields?.find((f) => f.name === k && (f.type === 'ref' || f.type === 'refs'));
    const t = field?.ref;
    setOwn(out, k, t ? mapStrings(v, (s) => typed.get(s)?.get(t) ?? refs.get(s) ?? s) : replaceWhole(v, refs));
  }
  return out;
}

/** Applies rewrites to content; undefined when a target does not exist yet. */
export function applyRewrites(step: Pick<PlanStep, 'kind' | 'content' | 'rewrites'>, lookup: ItemLookup): Record<string, Json> | undefined {
  const content = (step.content ?? {}) as Record<string, Json>;
  const refs = new Map<string, string>();
  // An id two references of different types share: each typed config field takes its own type's.
  const typed = new Map<string, Map<string, string>>();
  const urls: [string, string][] = [];
  for (const rw of step.rewrites) {
    if (rw.kind === 'reference') {
      const id = resolveTarget(rw.target, lookup);
      if (id === undefined) return undefined;
      if (!rw.unlisted && !refs.has(rw.from)) refs.set(rw.from, id);
      if (rw.refType) {
        if (!typed.has(rw.from)) typed.set(rw.from, new Map());
        typed.get(rw.from)!.set(rw.refType, id);
      }
    } else {
      const url = resolveUrl(rw.target, lookup);
      if (url === undefined) return undefined;
      urls.push([rw.from, url]);
    }
  }
  // Longer addresses first, so one that extends another is replaced whole.
  urls.sort((a, b) => b[0].length - a[0].length || (a[0] < b[0] ? -1 : 1));
  let out: Record<string, Json> = content;
  if ((refs.size || typed.size) && step.kind === 'automation') {
    const doc = content.document as Record<string, Json>;
    const graph = doc.graph as Record<string, Json>;
    const nodes = (graph.nodes as Record<string, Json>[]).map((n) =>
      n.config === undefined ? n : { ...n, config: rewriteConfig(n.kind, n.config, refs, typed) },
    );
    // A reference's id is the id exactly as the graph writes it: it follows the graph's rewrite,
    // so the stored document lists the workspace ids its configs now carry (names stay for matching).
    const references = Array.isArray(doc.references)
      ? (doc.references as Record<string, Json>[]).map((r) => {
          if (typeof r?.id !== 'string' || !refs.has(r.id)) return r;
          return { ...r, id: typed.get(r.id)?.get(String(r.type)) ?? refs.get(r.id)! };
        })
      : undefined;
    out = { ...content, document: { ...doc, graph: { ...graph, nodes }, ...(references ? { references } : {}) } };
  } else if (refs.size && step.kind === 'smartList') {
    out = { ...content, filters: replaceFilterValues(content.filters, refs) };
  }
  if (urls.length) out = replaceInside(out, urls) as Record<string, Json>;
  return out;
}

/**
 * Resolves a creating or updating step; undefined when an item it needs does not exist yet.
 * `run` is the install run the creation belongs to (`InstallLedger.run`), part of its idempotency key.
 */
export function resolveStep(packId: string, step: PlanStep, lookup: ItemLookup, run?: string): ResolvedStep | undefined {
  const content = applyRewrites(step, lookup);
  if (!content) return undefined;
  const sourceHash = contentHash(content);
  let body: Record<string, unknown> = content;
  if (step.kind === 'pipeline' && step.stageKeys) {
    // Existing stages are addressed by id so they are updated in place, not replaced.
    const known = step.workspaceId ? (lookup(step.itemId)?.stages ?? {}) : {};
    const stages = (content.stages as Record<string, Json>[]).map((s, i) => {
      const id = getOwn(known, step.stageKeys![i]);
      return id ? { id, ...s } : { ...s };
    });
    body = { ...content, stages };
  } else if (step.kind === 'asset') {
    // An upload sends the bytes; the server computes the sha256 the content records.
    body = { file_name: content.file_name, mime_type: content.mime_type, data: step.extra?.data };
  }
  return { content, sourceHash, body, idempotencyKey: idempotencyKeyFor(packId, run, step.itemId, sourceHash) };
}

/** Prefix of every idempotency key an install of `packId` uses (to list them on resume). */
export const idempotencyPrefix = (packId: string) => `sp-${packId}-`;

/**
 * The idempotency key of creating `itemId` with the content hashing to `sourceHash` in install run
 * `run`. A key stands for one run's creation, and a resumed run is the same run (its ledger keeps
 * `run`), so a retried or resumed creation makes one object. A later run has a new `run`: its
 * creations are new objects, never an answer replayed from an earlier install, whose object may
 * since belong to the workspace (kept by an uninstall because the user edited it). A ledger
 * written before runs were recorded has none: its resume uses the keys of that time.
 */
export function idempotencyKeyFor(packId: string, run: string | undefined, itemId: string, sourceHash: string): string {
  const parts = run === undefined ? [packId, itemId, sourceHash] : [packId, run, itemId, sourceHash];
  return `${idempotencyPrefix(packId)}${sha256Hex(new TextEncoder().encode(canonicalJson(parts))).slice(0, 40)}`;
}

/**
 * The run a plan on `ledger` continues: an interrupted run's (`in_progress`), whose creations
 * before its last checkpoint are found by their idempotency keys; undefined for a new run.
 */
export const resumedRun = (ledger: InstallLedger | null): string | undefined => (ledger?.state === 'in_progress' ? ledger.run : undefined);

/**
 * The ledger entry after a write: `hash` is the content of the object the API returned, so a
 * later edit in the workspace shows as a different hash. Pipelines map stage keys to the
 * returned stage ids by position; media keep their address.
 */
export function ledgerItemAfterWrite(step: PlanStep, resolved: ResolvedStep, written: WorkspaceObject): LedgerItem {
  const item: LedgerItem = {
    kind: step.kind,
    key: step.key,
    collection: step.collection,
    workspaceId: written.id,
    hash: contentHash(projectWorkspaceObject(step.collection, written)),
    sourceHash: resolved.sourceHash,
    owned: true,
  };
  if (step.kind === 'pipeline' && step.stageKeys && Array.isArray(written.stages)) {
    const stages: Record<string, string> = {};
    const returned = written.stages as { id: string }[];
    step.stageKeys.forEach((k, i) => {
      if (returned[i]) setOwn(stages, k, returned[i].id);
    });
    item.stages = stages;
  }
  if (typeof written.url === 'string') item.url = written.url;
  return item;
}

/** The ledger entry for an existing object the plan keeps as it is (adopted, or already matching). */
export function ledgerItemForExisting(step: PlanStep, existing: WorkspaceObject, sourceHash: string, previous?: LedgerItem): LedgerItem {
  const item: LedgerItem = {
    kind: step.kind,
    key: step.key,
    collection: step.collection,
    workspaceId: existing.id,
    hash: contentHash(projectWorkspaceObject(step.collection, existing)),
    sourceHash,
    owned: step.owned,
  };
  if (previous?.stages) item.stages = previous.stages;
  if (step.kind === 'pipeline' && step.stageKeys && Array.isArray(existing.stages)) {
    const returned = existing.stages as { id: string }[];
    const stages: Record<string, string> = {};
    step.stageKeys.forEach((k, i) => {
      if (returned[i]) setOwn(stages, k, returned[i].id);
    });
    item.stages = stages;
  }
  if (typeof existing.url === 'string') item.url = existing.url;
  return item;
}
