// Pack graph → React Flow nodes and edges. Nodes without a saved position are placed by dagre
// for display only (nothing is written until the author moves or tidies them).
import { MarkerType, type Edge } from '@xyflow/react';
import { describeConfig, nodeKindInfo, type SummaryPart } from '@setup-pack/core';
import { asArr, asObj, isObj, objs, sameEach, str, type Obj } from '../model/json.js';
import type { PackValue } from '../model/pack.js';
import { canvasIds, graphOf, handleOf, handlesOfNode, isTrigger, nodesOf } from '../model/graph.js';
import { tidyUp } from '../model/layout.js';
import { nodeKey, type FindingIndex } from '../model/findings.js';
import type { RefIndex } from '../model/references.js';
import type { BlockNodeType, SummaryItem } from './BlockNode.js';

export type DiffMark = 'added' | 'removed' | 'changed';

/**
 * A block's summary (core's describeConfig) with each reference said by name: the pack item's
 * name, linked to it; else the name the automation's references give it; else its id.
 */
export function summaryItems(kind: string, config: Obj, doc: Obj, refs?: RefIndex): SummaryItem[] {
  return nameParts(describeConfig(kind, config), refs, objs(doc.references));
}

/** Core's summary parts with each reference said by name (see summaryItems); `listed` are an automation's references. */
export function nameParts(parts: readonly SummaryPart[], refs?: RefIndex, listed: readonly Obj[] = []): SummaryItem[] {
  return parts.map((part) => {
    if (typeof part === 'string') return part;
    const item = refs?.get(part.ref)?.get(part.id);
    if (item) return { text: item.name ?? part.id, ref: part.ref, id: part.id, item };
    const named = listed.find((r) => r.type === part.ref && r.id === part.id);
    return { text: str(named?.name) || part.id, ref: part.ref, id: part.id };
  });
}

/** Built nodes by pack node object: an edit replaces only the nodes it touches, so the rest are reused. */
export type NodeCache = WeakMap<
  Obj,
  {
    findings?: FindingIndex;
    diff?: ReadonlyMap<string, DiffMark>;
    refs?: RefIndex;
    references: unknown;
    automation: number;
    node: BlockNodeType;
  }
>;

export function buildNodes(
  doc: Obj,
  automation: number,
  findings?: FindingIndex,
  diff?: ReadonlyMap<string, DiffMark>,
  cache?: NodeCache,
  refs?: RefIndex,
): BlockNodeType[] {
  let nodes = asArr(graphOf(doc).nodes);
  if (nodesOf(doc).some((n) => typeof asObj(n.position).x !== 'number' || typeof asObj(n.position).y !== 'number')) {
    nodes = asArr(graphOf(tidyUp(doc, { onlyNew: true })).nodes);
    cache = undefined; // placed copies are new objects every time
  }
  // Every block is drawn, one that repeats an earlier block's id too (core reports it), under an
  // id of its own on the canvas (canvasIds): React Flow tells blocks apart by id.
  const cids = canvasIds(nodes);
  const out: BlockNodeType[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    if (!isObj(n)) continue;
    const own = str(n.id);
    if (!own) continue;
    const id = cids[i];
    const hit = cache?.get(n);
    if (
      hit &&
      hit.findings === findings &&
      hit.diff === diff &&
      hit.refs === refs &&
      hit.references === doc.references &&
      hit.automation === automation
    ) {
      out.push(hit.node);
      continue;
    }
    const kind = str(n.kind);
    const info = nodeKindInfo(kind);
    const counts = findings?.byNode.get(nodeKey(automation, id));
    const pos = asObj(n.position);
    const summary = summaryItems(kind, asObj(n.config), doc, refs);
    const built: BlockNodeType = {
      id,
      type: 'block',
      position: { x: Number(pos.x) || 0, y: Number(pos.y) || 0 },
      data: {
        kind,
        label: info?.label ?? (kind || 'Unknown block'),
        group: info?.group ?? 'unknown',
        summary,
        summaryKey: JSON.stringify(summary),
        handles: handlesOfNode(n),
        isTrigger: isTrigger(n),
        errors: counts?.error ?? 0,
        warnings: counts?.warning ?? 0,
        diff: diff?.get(id),
        ...(own === id ? {} : { packId: own }),
      },
      ariaLabel: `${info?.label ?? kind} block ${own}${own === id ? '' : ' (an earlier block has this id)'}`,
    };
    cache?.set(n, { findings, diff, refs, references: doc.references, automation, node: built });
    out.push(built);
  }
  return out;
}

export function buildEdges(doc: Obj, automation: number, findings?: FindingIndex, diff?: ReadonlyMap<string, DiffMark>): Edge[] {
  const handles = new Map<string, string[]>();
  for (const n of nodesOf(doc)) if (!handles.has(str(n.id))) handles.set(str(n.id), handlesOfNode(n));
  // Each edge under an id of its own on the canvas (canvasIds), so two edges sharing an id are
  // both drawn, and selecting or deleting one never touches the other.
  const list = asArr(graphOf(doc).edges);
  const ids = canvasIds(list);
  const out: Edge[] = [];
  list.forEach((raw, i) => {
    if (!isObj(raw)) return;
    const e = raw;
    const id = ids[i];
    const handle = handleOf(e);
    // An edge from a handle the block does not have (core reports it) is still drawn, from the
    // block's first output, so the author can see and fix it: dashed, and labelled with the handle
    // it names and that the block has no such output (even `next`, which an edge without a handle
    // leaves through), so it cannot pass for the branch it is drawn from.
    const outputs = handles.get(str(e.source));
    const stray = !!outputs && !outputs.includes(handle);
    const drawnFrom = stray ? outputs[0] : handle;
    const counts = findings?.byEdge.get(nodeKey(automation, id));
    const mark = diff?.get(id);
    const color =
      mark === 'added'
        ? '#16a34a'
        : mark === 'removed'
          ? '#dc2626'
          : mark === 'changed'
            ? '#d97706'
            : counts?.error
              ? '#dc2626'
              : '#64748b';
    // Colours come from CSS classes, not an inline stroke, so React Flow's selected and focus
    // styles (and ours, in styles.css) can win over them.
    const className =
      [mark ? `edge-${mark}` : counts?.error ? 'edge-error' : '', stray ? 'edge-stray' : ''].filter(Boolean).join(' ') || undefined;
    out.push({
      id,
      source: str(e.source),
      target: str(e.target),
      sourceHandle: drawnFrom,
      label: stray ? `${handle}: not an output of this block` : handle !== 'next' ? handle : undefined,
      markerEnd: { type: MarkerType.ArrowClosed, color },
      ...(className ? { className } : {}),
      ariaLabel: `Connection ${str(e.source)} ${handle}${stray ? ' (not an output of this block)' : ''} to ${str(e.target)}`,
    });
  });
  return out;
}

/** `prev` itself when `next` holds the same objects in the same order: no new array, so React
 * Flow's store is not updated (and its 600-odd subscribers not re-checked) for nothing, e.g.
 * when a drag's end writes the positions the canvas already shows. */
export function sameItems<T>(prev: T[], next: T[]): T[] {
  return sameEach(prev, next, () => false) ? prev : next;
}

/** `prev` itself when `next` resolves every reference to the same item and name: typing that
 * does not touch a key or a name leaves the canvas's blocks as they were. */
export function stableRefIndex(prev: RefIndex | undefined, next: RefIndex): RefIndex {
  if (!prev || prev.size !== next.size) return next;
  for (const [type, items] of next) {
    const before = prev.get(type);
    if (!before || before.size !== items.size) return next;
    for (const [key, at] of items) {
      const b = before.get(key);
      if (!b || b.kind !== at.kind || b.index !== at.index || b.stage !== at.stage || b.name !== at.name) return next;
    }
  }
  return prev;
}

/**
 * Whether `a` and `b` carry the same items a reference can resolve to (what core's
 * packItemsByReferenceType reads: resources, templates, smart lists and pipelines, and each
 * automation's key and name), judged by identity first: typing in a block's field replaces one
 * automation and none of the rest, so the index is not rebuilt (thousands of entries on a pack at
 * every limit) on every keystroke.
 */
export function sameReferenceItems(a: PackValue, b: PackValue): boolean {
  if (a === b) return true;
  if (
    a.resources !== b.resources ||
    a.messageTemplates !== b.messageTemplates ||
    a.smartLists !== b.smartLists ||
    a.pipelines !== b.pipelines
  )
    return false;
  if (a.automations === b.automations) return true;
  if (!Array.isArray(a.automations) || !Array.isArray(b.automations)) return false;
  return sameEach(a.automations, b.automations, (x, y) => {
    if (!isObj(x) || !isObj(y) || x.key !== y.key) return false;
    const dx = x.document;
    const dy = y.document;
    return (isObj(dx) ? dx.name : undefined) === (isObj(dy) ? dy.name : undefined);
  });
}

/**
 * Whether buildEdges draws `b`'s edges exactly as `a`'s: the same edge list and, block by block,
 * the same ids and output handles (an edge is drawn from its source's handles). Typing in a
 * block's field replaces that block and nothing else, so its 200-odd edges are not built again.
 */
export function sameEdgeInputs(a: Obj, b: Obj): boolean {
  if (a === b) return true;
  const ga = asObj(a.graph);
  const gb = asObj(b.graph);
  if (ga.edges !== gb.edges || !Array.isArray(ga.nodes) || !Array.isArray(gb.nodes)) return false;
  return sameEach(
    ga.nodes,
    gb.nodes,
    (m, n) => isObj(m) && isObj(n) && m.id === n.id && handlesOfNode(m).join('\n') === handlesOfNode(n).join('\n'),
  );
}
