// One block on the canvas: its kind's icon in its category's colour, the catalog label, its config
// in words (references by name, as links), handles per kind (named on a row of their own unless
// `next`), and its findings as one badge.
import { createContext, memo, useCallback, useContext, useEffect, useRef, useSyncExternalStore } from 'react';
import { Handle, Position, useUpdateNodeInternals, type Node, type NodeProps } from '@xyflow/react';
import { count, plural, type PackItemOfReference, type ReferenceType } from '@setup-pack/core';
import { CircleAlert, TriangleAlert } from 'lucide-react';
import { blockIcon } from './icons.js';
import type { RefIndex } from '../model/references.js';

/** Text, or a reference said by name; `item` when it resolves inside the pack (then a link to it). */
export type SummaryItem = string | { text: string; ref: ReferenceType; id: string; item?: PackItemOfReference };

/** The pack's items by reference type and key, and how to open one (absent on a read-only
 * canvas: references are then names, not links). */
export const ReferencesContext = createContext<{ refs: RefIndex; open: (item: PackItemOfReference) => void } | undefined>(undefined);

const summaryText = (items: readonly SummaryItem[]) => items.map((x) => (typeof x === 'string' ? x : x.text)).join('');

/**
 * A summary's words, each reference by name and, where it resolves in the pack, as a link that
 * opens it. On the canvas the links are not Tab stops (blocks are reached with the arrow keys; the
 * inspector's field links to the same item) and nodrag/nopan, so a click opens the item instead
 * of starting a drag; in a form (`tabbable`) they are ordinary links.
 */
export function SummaryWords({ items, tabbable = false }: { items: readonly SummaryItem[]; tabbable?: boolean }) {
  const open = useContext(ReferencesContext)?.open;
  return items.map((x, i) => {
    if (typeof x === 'string') return x;
    const what = `${x.ref.replace(/_/g, ' ')} ${x.text}${x.text !== x.id ? ` (${x.id})` : ''}`;
    if (!x.item || !open)
      return (
        <span key={i} className="ref-name" title={what}>
          {x.text}
        </span>
      );
    const item = x.item;
    return (
      <a
        key={i}
        href="#"
        tabIndex={tabbable ? undefined : -1}
        className="ref-link nodrag nopan"
        title={`Open ${what}`}
        onClick={(e) => {
          e.preventDefault();
          e.stopPropagation();
          open(item);
        }}
      >
        {x.text}
      </a>
    );
  });
}

function Summary({ items }: { items: readonly SummaryItem[] }) {
  return (
    <div className="summary" title={summaryText(items)}>
      <SummaryWords items={items} />
    </div>
  );
}

export interface BlockData extends Record<string, unknown> {
  kind: string;
  label: string;
  group: string;
  summary: SummaryItem[];
  /** The summary as one string, to compare rebuilt blocks cheaply. */
  summaryKey: string;
  handles: string[];
  isTrigger: boolean;
  errors: number;
  warnings: number;
  diff?: 'added' | 'removed' | 'changed';
  /** The block's id in the pack, when its canvas id differs (an earlier block has the same id). */
  packId?: string;
}

export type BlockNodeType = Node<BlockData, 'block'>;

/**
 * Each block's summary, held beside React Flow's nodes rather than in them: typing in a block's
 * field changes its summary on every keystroke, and a new node object for that would update React
 * Flow's store, whose several subscribers per block, handle and edge all run again (about a quarter
 * of a keystroke's script on a 200-block graph). Only the block whose summary changed hears of it.
 */
export class SummaryStore {
  private readonly items = new Map<string, { key: string; summary: SummaryItem[] }>();
  private readonly listeners = new Map<string, Set<() => void>>();

  get(id: string): SummaryItem[] | undefined {
    return this.items.get(id)?.summary;
  }

  subscribe(id: string, listener: () => void): () => void {
    let set = this.listeners.get(id);
    if (!set) this.listeners.set(id, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(id);
    };
  }

  /** Takes the summaries of freshly built blocks and tells the blocks whose summary changed. */
  update(nodes: readonly BlockNodeType[]): void {
    const changed: string[] = [];
    for (const n of nodes) {
      const had = this.items.get(n.id);
      if (had?.key === n.data.summaryKey) continue;
      this.items.set(n.id, { key: n.data.summaryKey, summary: n.data.summary });
      if (had) changed.push(n.id);
    }
    if (this.items.size > nodes.length) {
      const ids = new Set(nodes.map((n) => n.id));
      for (const id of this.items.keys()) if (!ids.has(id)) this.items.delete(id);
    }
    for (const id of changed) for (const l of [...(this.listeners.get(id) ?? [])]) l();
  }
}

/** The canvas's summaries (absent: a block shows the summary its node data carries). */
export const SummaryContext = createContext<SummaryStore | undefined>(undefined);

const noSubscription = () => () => {};

/** The block's summary as the canvas last built it. */
function useSummary(id: string, fallback: SummaryItem[]): SummaryItem[] {
  const store = useContext(SummaryContext);
  const subscribe = useCallback((l: () => void) => store?.subscribe(id, l) ?? (() => {}), [store, id]);
  return useSyncExternalStore(store ? subscribe : noSubscription, () => store?.get(id) ?? fallback);
}

/** A block's findings as one badge: how many, in the colour of the worst, each severity said in words. */
function FindingsBadge({ errors, warnings }: { errors: number; warnings: number }) {
  if (errors + warnings === 0) return null;
  const worst = errors > 0 ? 'error' : 'warning';
  const Icon = errors > 0 ? CircleAlert : TriangleAlert;
  const said = [errors > 0 ? plural(errors, 'error') : '', warnings > 0 ? plural(warnings, 'warning') : ''].filter(Boolean).join(', ');
  return (
    <span className={`badge ${worst}`} role="img" aria-label={said} title={said}>
      <Icon aria-hidden="true" />
      {count(errors + warnings)}
    </span>
  );
}

const GROUP_NAMES: Record<string, string> = { trigger: 'Trigger', action: 'Action', control: 'Control' };

export const BlockNode = memo(function BlockNode({ id, data }: NodeProps<BlockNodeType>) {
  const summary = useSummary(id, data.summary);
  const shown = data.packId ?? id;
  const n = data.handles.length;
  const leftOf = (i: number) => `${((i + 1) / (n + 1)) * 100}%`;
  const labelled = data.handles.some((h) => h !== 'next');
  const Icon = blockIcon(data.kind, data.group);
  // Handles come and go with the config (AI branch outcomes): React Flow must re-measure them.
  const updateNodeInternals = useUpdateNodeInternals();
  const handleKey = data.handles.join('\n');
  const measuredKey = useRef(handleKey);
  useEffect(() => {
    if (measuredKey.current === handleKey) return; // the first measurement is React Flow's own
    measuredKey.current = handleKey;
    updateNodeInternals(id);
  }, [handleKey, id, updateNodeInternals]);
  return (
    <div
      className={`block ${data.group}${labelled ? ' branches' : ''}${data.diff ? ` diff-${data.diff}` : ''}`}
      data-testid={`node-${id}`}
      title={`${data.kind} (${shown})`}
    >
      {!data.isTrigger && <Handle type="target" position={Position.Top} title={`Input of ${shown}`} />}
      <div className="head">
        {/* The category by colour and icon; the kind by its own icon. */}
        <span className="icon" aria-hidden="true">
          <Icon size={16} strokeWidth={2} />
        </span>
        <div className="titles">
          {/* The block's id as it is written (ids are case-sensitive), shown when asked (Show ids). */}
          <div className="group">
            {GROUP_NAMES[data.group] ?? 'Unknown kind'} <code className="node-id">{shown}</code>
          </div>
          <div className="label">{data.label}</div>
        </div>
      </div>
      {summary.length > 0 && <Summary items={summary} />}
      <div className="badges">
        <FindingsBadge errors={data.errors} warnings={data.warnings} />
        {data.diff && <span className={`badge ${data.diff === 'added' ? 'count' : 'warning'}`}>{data.diff}</span>}
      </div>
      {/* Branch names get a row of their own under the summary, each above its handle and no
          wider than its share of the block, so they never run into the summary or each other
          (the canvas scales as a whole, so this holds at every zoom). */}
      {labelled && (
        <div className="handle-labels" aria-hidden="true">
          {data.handles.map((h, i) => (
            <span key={h} title={h} style={{ left: leftOf(i), maxWidth: `calc(${100 / (n + 1)}% - 4px)` }}>
              {h}
            </span>
          ))}
        </div>
      )}
      {data.handles.map((h, i) => (
        <Handle key={h} type="source" id={h} position={Position.Bottom} style={{ left: leftOf(i) }} title={`Output ${h} of ${shown}`} />
      ))}
    </div>
  );
});

export const nodeTypes = { block: BlockNode };
