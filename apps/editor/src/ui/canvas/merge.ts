// A rebuild of the canvas's nodes and edges from the pack, merged into React Flow's state: an
// unchanged node or edge stays the same object (so only edited blocks re-render), and the
// selection and measurements React Flow keeps are carried over.
import type { Edge } from '@xyflow/react';
import type { BlockNodeType } from '../BlockNode.js';
import { sameItems } from '../flow.js';

function sameNode(a: BlockNodeType, b: BlockNodeType): boolean {
  if (a.position.x !== b.position.x || a.position.y !== b.position.y || a.ariaLabel !== b.ariaLabel) return false;
  const x = a.data;
  const y = b.data;
  // The summary is not compared: blocks read it from the canvas's SummaryStore.
  return (
    x.kind === y.kind &&
    x.label === y.label &&
    x.group === y.group &&
    x.isTrigger === y.isTrigger &&
    x.errors === y.errors &&
    x.warnings === y.warnings &&
    x.diff === y.diff &&
    x.handles.join('\n') === y.handles.join('\n')
  );
}

function sameEdge(a: Edge, b: Edge): boolean {
  return (
    a.source === b.source &&
    a.target === b.target &&
    a.sourceHandle === b.sourceHandle &&
    a.label === b.label &&
    a.className === b.className
  );
}

/** `built` in place of `prev`; `select`, when given, is the selection (else each node keeps its own). */
export function mergeNodes(prev: BlockNodeType[], built: BlockNodeType[], select: ReadonlySet<string> | null): BlockNodeType[] {
  const byId = new Map(prev.map((n) => [n.id, n]));
  return sameItems(
    prev,
    built.map((n) => {
      const p = byId.get(n.id);
      const selected = select ? select.has(n.id) : p?.selected;
      if (p && sameNode(p, n) && !!p.selected === !!selected) return p;
      return { ...n, selected, measured: p?.measured };
    }),
  );
}

/** `built` in place of `prev`; with a new selection of blocks (`select`) no edge stays selected. */
export function mergeEdges(prev: Edge[], built: Edge[], select: ReadonlySet<string> | null): Edge[] {
  const byId = new Map(prev.map((e) => [e.id, e]));
  return sameItems(
    prev,
    built.map((e) => {
      const p = byId.get(e.id);
      const selected = !select && !!p?.selected;
      if (p && sameEdge(p, e) && !!p.selected === selected) return p;
      return selected ? { ...e, selected } : e;
    }),
  );
}
