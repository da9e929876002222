// The automation canvas: a thin React Flow view over the model's graph functions. Every edit
// goes through `edit` (one undoable step); dragging is local until the drag ends.
import { useCallback, useEffect, useRef, useState } from 'react';
import { plural } from '@setup-pack/core';
import {
  Background, Controls, MiniMap, ReactFlow, ReactFlowProvider, applyEdgeChanges, applyNodeChanges, useReactFlow,
  type Connection, type Edge, type EdgeChange, type FinalConnectionState, type Node, type NodeChange, type OnSelectionChangeParams,
} from '@xyflow/react';
import { blockAfterDelete, deleteJoining, addConnectedNode, addNode, canConnect, canReconnect, clipboardText, connect, reconnect, copyNodes, deleteElements, duplicateNodes, moveNodes, nodeAt, pasteNodes, readClipboardText, type Clipboard, type XY } from '../model/graph.js';
import { freeSpot, tidyUp } from '../model/layout.js';
import { neighbour, type Direction } from '../model/navigation.js';
import type { FindingIndex } from '../model/findings.js';
import { asObj, type Obj } from '../model/json.js';
import { nodeTypes, SummaryContext, SummaryStore, type BlockNodeType } from './BlockNode.js';
import { buildEdges, buildNodes, sameEdgeInputs, sameItems, type DiffMark, type NodeCache } from './flow.js';
import type { RefIndex } from '../model/references.js';
import { Palette } from './Palette.js';
import { renderCounts } from './renderCounts.js';
import { useFocusAfter } from './focusAfter.js';
import { showIds, usePreference } from './preference.js';
import { FirstRun } from './FirstRun.js';

export interface CanvasProps {
  doc: Obj;
  automation: number;
  findings?: FindingIndex;
  /** Applies one undoable edit to the document; absent for a read-only canvas (diff view). */
  edit?: (fn: (doc: Obj) => Obj, coalesce?: string) => void;
  onSelection?: (nodes: string[], edges: string[]) => void;
  /** Select (and center on) a node, or select blocks (`nodeIds`: centred when one); none clears the selection. */
  focus?: { nodeId?: string; nodeIds?: string[]; edgeId?: string; seq: number };
  diff?: ReadonlyMap<string, DiffMark>;
  edgeDiff?: ReadonlyMap<string, DiffMark>;
  notify?: (text: string) => void;
  /** The pack's items by reference type and key: summaries name what they refer to. */
  refs?: RefIndex;
  /** Adds a block of this kind where + Add block would (the command palette's "Add block"). */
  add?: { kind: string; seq: number };
}

function sameNode(a: BlockNodeType, b: BlockNodeType): boolean {
  if (a.position.x !== b.position.x || a.position.y !== b.position.y || a.ariaLabel !== b.ariaLabel) return false;
  const x = a.data;
  const y = b.data;
  // The summary is not compared: blocks read it from the canvas's SummaryStore.
  return x.kind === y.kind && x.label === y.label && x.group === y.group && x.isTrigger === y.isTrigger &&
    x.errors === y.errors && x.warnings === y.warnings && x.diff === y.diff && x.handles.join('\n') === y.handles.join('\n');
}

function sameEdge(a: Edge, b: Edge): boolean {
  return a.source === b.source && a.target === b.target && a.sourceHandle === b.sourceHandle && a.label === b.label && a.className === b.className;
}

// The minimap draws each block in its category's colour (styles.css), by class.
const minimapClass = (n: Node) => String((n.data as { group?: string }).group ?? 'unknown');
const fitViewOptions = { padding: 0.2, maxZoom: 1.2 };
const multiSelectionKeyCode = ['Meta', 'Control'];

// The last blocks copied here: pasted when the browser gives a paste no clipboard data. Copies
// also go to the system clipboard as JSON, so they paste into another tab, or another pack.
let clipboard: Clipboard | undefined;
let lastClipText: string | undefined;

// A field, or a control that handles its own keys (a reference picker's list, `data-own-keys`): the canvas's keys are not for it.
const inField = (t: EventTarget | null) => t instanceof HTMLElement && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) || t.closest('[data-own-keys]') !== null);

function Flow(props: CanvasProps) {
  const { doc, automation, findings, diff, edgeDiff, edit, refs } = props;
  const readOnly = !edit;
  const flow = useReactFlow();
  // Built once, on mount (lazily: React would evaluate an eager argument on every render, i.e. on
  // every pointer move of a drag); later pack states are merged in by the effect below.
  const nodeCache = useRef<NodeCache>(new WeakMap());
  const summaries = useRef<SummaryStore>(null);
  summaries.current ??= new SummaryStore();
  const [nodes, setNodes] = useState<BlockNodeType[]>(() => {
    const built = buildNodes(doc, automation, findings, diff, nodeCache.current, refs);
    summaries.current!.update(built);
    return built;
  });
  const [edges, setEdges] = useState<Edge[]>(() => buildEdges(doc, automation, findings, edgeDiff));
  // Drag positions, selection and measurements live in this state (React Flow's changes); the
  // pack only hears of a move when the drag ends (onNodeDragStop: one undoable step).
  const onNodesChange = useCallback((changes: NodeChange<BlockNodeType>[]) => setNodes((nds) => applyNodeChanges(changes, nds)), []);
  const onEdgesChange = useCallback((changes: EdgeChange<Edge>[]) => setEdges((eds) => applyEdgeChanges(changes, eds)), []);
  const [palette, setPalette] = useState<{ at: XY; from?: { source: string; handle: string } } | null>(null);
  const pendingSelect = useRef<string[] | null>(null);
  const docRef = useRef(doc);
  docRef.current = doc;
  const nodesRef = useRef(nodes);
  nodesRef.current = nodes;
  const edgesRef = useRef(edges);
  edgesRef.current = edges;
  const pasteCount = useRef(0);
  const flowEl = useRef<HTMLDivElement>(null);
  const ids = usePreference(showIds);
  const addBlockButton = useRef<HTMLButtonElement>(null);

  // Rebuild from the pack whenever it (or its findings) change, keeping selection and
  // measurements, and reusing unchanged nodes so only edited blocks re-render.
  const builtFrom = useRef({ doc, findings, diff, edgeDiff, refs });
  useEffect(() => {
    const from = builtFrom.current;
    if (from.doc === doc && from.findings === findings && from.diff === diff && from.edgeDiff === edgeDiff && from.refs === refs && !pendingSelect.current) return; // the initial state already is this
    builtFrom.current = { doc, findings, diff, edgeDiff, refs };
    const built = buildNodes(doc, automation, findings, diff, nodeCache.current, refs);
    // A changed summary goes to its block alone; the node objects stay as they were unless something else changed.
    summaries.current!.update(built);
    // The blocks to select once they exist: a rebuild for other reasons (a validation result
    // arriving before the edit lands) must not use up the selection of a block not yet built.
    const pending = pendingSelect.current;
    const select = pending && pending.every((id) => built.some((n) => n.id === id)) ? new Set(pending) : null;
    if (select) pendingSelect.current = null;
    setNodes((prev) => {
      const byId = new Map(prev.map((n) => [n.id, n]));
      const next = sameItems(prev, built.map((n) => {
        const p = byId.get(n.id);
        const selected = select ? select.has(n.id) : p?.selected;
        if (p && sameNode(p, n) && !!p.selected === !!selected) return p;
        return { ...n, selected, measured: p?.measured };
      }));
      if (next !== prev) renderCounts.canvasNodes++;
      return next;
    });
    // Edges are rebuilt only when something they are drawn from changed (not on a keystroke in a field).
    if (!select && from.findings === findings && from.edgeDiff === edgeDiff && sameEdgeInputs(from.doc, doc)) return;
    setEdges((prev) => {
      const byId = new Map(prev.map((e) => [e.id, e]));
      return sameItems(prev, buildEdges(doc, automation, findings, edgeDiff).map((e) => {
        const p = byId.get(e.id);
        const selected = !select && !!p?.selected;
        if (p && sameEdge(p, e) && !!p.selected === selected) return p;
        return selected ? { ...e, selected } : e;
      }));
    });
  }, [doc, automation, findings, diff, edgeDiff, refs, setNodes, setEdges]);

  const selectOnly = useCallback(
    (ids: string[], center = false) => {
      const set = new Set(ids);
      setNodes((nds) => nds.map((n) => (n.selected === set.has(n.id) ? n : { ...n, selected: set.has(n.id) })));
      setEdges((eds) => eds.map((e) => (e.selected ? { ...e, selected: false } : e)));
      if (center && ids.length === 1) {
        // A block the same edit added (a copy) is in the pack before it is among the rendered nodes.
        const at = nodesRef.current.find((x) => x.id === ids[0])?.position ?? asObj(nodeAt(docRef.current, ids[0]!)?.position);
        if (typeof at.x === 'number' && typeof at.y === 'number') void flow.setCenter(at.x + 110, at.y + 32, { zoom: Math.max(flow.getZoom(), 0.9), duration: 200 });
      }
    },
    [flow, setNodes, setEdges],
  );

  // A clicked finding about an edge selects that edge alone and centres it (between its blocks),
  // drawn as a selected edge is, so Delete removes what the finding names.
  const selectEdge = useCallback(
    (id: string) => {
      setNodes((nds) => nds.map((n) => (n.selected ? { ...n, selected: false } : n)));
      setEdges((eds) => eds.map((e) => (!!e.selected === (e.id === id) ? e : { ...e, selected: e.id === id })));
      const edge = edgesRef.current.find((e) => e.id === id);
      const ends = edge ? [edge.source, edge.target].map((n) => nodesRef.current.find((x) => x.id === n)).filter((n) => !!n) : [];
      if (ends.length) {
        const x = ends.reduce((sum, n) => sum + n.position.x + 110, 0) / ends.length;
        const y = ends.reduce((sum, n) => sum + n.position.y + 32, 0) / ends.length;
        void flow.setCenter(x, y, { zoom: Math.max(flow.getZoom(), 0.9), duration: 200 });
      }
    },
    [flow, setNodes, setEdges],
  );

  useEffect(() => {
    if (!props.focus) return;
    if (props.focus.edgeId) selectEdge(props.focus.edgeId);
    else selectOnly(props.focus.nodeIds ?? (props.focus.nodeId ? [props.focus.nodeId] : []), true);
  }, [props.focus, selectOnly, selectEdge]);

  // Whether the keyboard's focus is on this canvas (a block), or lost to the page's body: the
  // canvas's keys then keep it here, as they move the selection.
  const focusOnCanvas = () => {
    const a = document.activeElement;
    return !a || a === document.body || !!flowEl.current?.contains(a);
  };
  // Focuses a block's element (React Flow's node wrapper, a Tab stop): without scrolling the
  // canvas's box, which React Flow pans itself (onto a block focused from the keyboard outside the view).
  const focusBlock = (id: string) => flowEl.current?.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`)?.focus({ preventScroll: true });

  // A block or edge deleted from the keyboard took the focus with it (the deleted block's element),
  // leaving it on the page's body. Once the delete is drawn, the block that took the deleted
  // one's place (blockAfterDelete: the next in the graph's list, else the one before; for an edge,
  // its source) is selected and focused, so the arrow keys go on from there; + Add block when no
  // block is left. Asked in the document drawn when the key is pressed, given in the first one
  // after it (the delete's: the edit is applied at once), while the deleted block's element is
  // still drawn (useFocusAfter).
  const focusAfterDelete = useFocusAfter(doc);

  /** Deletes blocks and edges from the keyboard (Delete, Backspace, Cut), the focus kept on the canvas (focusAfterDelete). */
  const deleteKeepingFocus = (ns: string[], es: string[]) => {
    const keep = focusOnCanvas();
    const sources = es.map((id) => edgesRef.current.find((x) => x.id === id)?.source);
    let block: string | undefined;
    let joined: [string, string] | undefined;
    edit!((d) => {
      // One block of a straight chain: its neighbours are joined in the same edit (one undo parts them).
      const one = ns.length === 1 && es.length === 0 ? deleteJoining(d, ns[0]) : undefined;
      const after = one ? one.doc : deleteElements(d, ns, es);
      joined = one?.joined;
      block = ns.length ? blockAfterDelete(d, after, ns) : sources.find((id) => nodesRef.current.some((n) => n.id === id));
      return after;
    });
    if (joined) props.notify?.(`Joined "${joined[0]}" to "${joined[1]}", as the deleted block stood between them (Undo parts them again).`);
    if (!keep) return;
    const next = block;
    focusAfterDelete(() => {
      if (next === undefined) return void addBlockButton.current?.focus();
      focusBlock(next);
      selectOnly([next]);
    });
  };

  const onSelectionChange = useCallback(
    ({ nodes: ns, edges: es }: OnSelectionChangeParams) => props.onSelection?.(ns.map((n) => n.id), es.map((e) => e.id)),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [props.onSelection],
  );

  // While an edge's end is dragged, the live hint judges the move without the edge itself (as the
  // drop does), so putting it back, or reversing it, is not shown as a duplicate or a cycle.
  const reconnecting = useRef<string | null>(null);
  // Why the connection under the pointer is refused (core's reason), shown while dragging and
  // for a moment after a refused drop.
  const [connectHint, setConnectHint] = useState<string | null>(null);
  const isValidConnection = useCallback((c: Connection | Edge) => {
    const spec = { source: c.source, handle: c.sourceHandle ?? 'next', target: c.target };
    const r = reconnecting.current ? canReconnect(docRef.current, reconnecting.current, spec) : canConnect(docRef.current, spec);
    setConnectHint(r.ok ? null : r.reason ?? null);
    return r.ok;
  }, []);
  const onReconnectStart = useCallback((_: unknown, edge: Edge) => {
    reconnecting.current = edge.id;
  }, []);
  const onReconnectEnd = useCallback(() => {
    reconnecting.current = null;
  }, []);

  const onConnect = useCallback(
    (c: Connection) => {
      if (!edit) return;
      let error: string | undefined;
      edit((d) => {
        const r = connect(d, { source: c.source, handle: c.sourceHandle ?? 'next', target: c.target });
        error = r.error;
        return r.doc;
      });
      if (error) props.notify?.(error);
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [edit],
  );

  // Dragging an edge's end to another block moves the edge (same rules as a new connection).
  const onReconnect = useCallback(
    (old: Edge, c: Connection) => {
      if (!edit) return;
      let error: string | undefined;
      edit((d) => {
        const r = reconnect(d, old.id, { source: c.source, handle: c.sourceHandle ?? 'next', target: c.target });
        error = r.error;
        return r.doc;
      });
      if (error) props.notify?.(error);
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [edit],
  );

  // A connection dropped on empty canvas opens the palette; the picked block is added and connected.
  const onConnectEnd = useCallback(
    (event: MouseEvent | TouchEvent, state: FinalConnectionState) => {
      if (state.isValid === false && state.toNode && connectHint) {
        // A refused drop does nothing to the graph; the reason stays on screen a moment.
        props.notify?.(`Not connected: ${connectHint}`);
      }
      setConnectHint(null);
      if (!edit || state.isValid === true || state.toNode || !state.fromNode || state.fromHandle?.type !== 'source') return;
      const target = event.target as Element | null;
      if (!target?.classList.contains('react-flow__pane')) return;
      const point = 'changedTouches' in event ? event.changedTouches[0]! : event;
      const at = flow.screenToFlowPosition({ x: point.clientX, y: point.clientY });
      setPalette({ at: { x: at.x - 110, y: at.y }, from: { source: state.fromNode.id, handle: state.fromHandle.id ?? 'next' } });
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [edit, flow, connectHint],
  );

  const onNodeDragStop = useCallback(
    (_: unknown, __: unknown, dragged: BlockNodeType[]) => {
      if (!edit) return;
      edit((d) => moveNodes(d, new Map(dragged.map((n) => [n.id, n.position]))));
    },
    [edit],
  );

  const viewportCenter = (): XY => {
    const el = document.querySelector('.react-flow');
    const r = el?.getBoundingClientRect();
    const p = flow.screenToFlowPosition({ x: (r?.left ?? 0) + (r?.width ?? 800) / 2, y: (r?.top ?? 0) + (r?.height ?? 600) / 2 });
    return { x: p.x - 110, y: p.y - 32 };
  };

  /** Where a new block goes: below the selected block, or in the middle of the view, never on top of another. */
  const newBlockSpot = (): XY => {
    const sel = nodesRef.current.filter((n) => n.selected);
    const want = sel.length === 1 ? { x: sel[0]!.position.x, y: sel[0]!.position.y + 120 } : viewportCenter();
    return freeSpot(docRef.current, want);
  };
  const openPalette = () => setPalette({ at: newBlockSpot() });

  const pick = (kind: string) => {
    if (!palette) return;
    setPalette(null);
    addBlock(kind, palette.at, palette.from);
  };

  /** Adds a block of `kind` at `at` (connected from `from`), selects it and keeps it in view. */
  const addBlock = (kind: string, at: XY, from?: { source: string; handle: string }) => {
    if (!edit) return;
    let error: string | undefined;
    edit((d) => {
      const r: { doc: Obj; id: string; error?: string } = from ? addConnectedNode(d, kind, at, from) : addNode(d, kind, at);
      error = r.error;
      pendingSelect.current = [r.id];
      return r.doc;
    });
    if (error) props.notify?.(error);
    // Keep the whole new block in view (not just its middle: half a block under the panel's edge
    // is not in view), centring on it when any part of it is outside.
    setTimeout(() => {
      const vp = document.querySelector('.react-flow')?.getBoundingClientRect();
      const a = flow.flowToScreenPosition({ x: at.x, y: at.y });
      const b = flow.flowToScreenPosition({ x: at.x + 220, y: at.y + 64 });
      const margin = 24;
      if (vp && (a.x < vp.left + margin || a.y < vp.top + margin || b.x > vp.right - margin || b.y > vp.bottom - margin)) {
        void flow.setCenter(at.x + 110, at.y + 32, { zoom: flow.getZoom(), duration: 150 });
      }
    }, 30);
  };

  // A block asked for from outside the canvas (the command palette), placed as + Add block places one.
  // Read through a ref: the effect runs once per request, not on every render.
  // A request made before this canvas was (another automation's) is not one for it.
  const addSeen = useRef(props.add);
  const addAsked = useRef(() => {});
  addAsked.current = () => {
    if (!props.add || props.add === addSeen.current) return;
    addSeen.current = props.add;
    addBlock(props.add.kind, newBlockSpot());
  };
  useEffect(() => addAsked.current(), [props.add]);

  const selectedIds = () => nodesRef.current.filter((n) => n.selected).map((n) => n.id);

  const tidy = () => {
    if (!edit) return;
    edit((d) => tidyUp(d));
    setTimeout(() => void flow.fitView({ duration: 200 }), 50);
  };

  // Copy, cut and paste go through the clipboard events (Ctrl/Cmd+C, X, V and the browser's
  // menus), so copied blocks reach the system clipboard. Text fields and selected text keep the
  // browser's own behaviour.
  const clipHandler = useRef<(e: ClipboardEvent) => void>(() => {});
  clipHandler.current = (e: ClipboardEvent) => {
    if (inField(e.target) || inField(document.activeElement) || palette) return;
    if (e.type === 'paste') {
      const text = e.clipboardData?.getData('text/plain');
      const clip = text ? readClipboardText(text) : clipboard;
      if (!clip) return;
      e.preventDefault();
      if ('refused' in clip) return props.notify?.(clip.refused);
      // Pasting the same blocks again offsets each copy a little further.
      if (text && text !== lastClipText) pasteCount.current = 0;
      lastClipText = text || lastClipText;
      clipboard = clip;
      pasteCount.current++;
      const offset = { x: 40 * pasteCount.current, y: 40 * pasteCount.current };
      edit!((d) => {
        const r = pasteNodes(d, clip, offset);
        pendingSelect.current = r.ids;
        return r.doc;
      });
      return;
    }
    const selection = window.getSelection();
    if (selection && !selection.isCollapsed) return; // the user is copying text
    const ns = selectedIds();
    if (!ns.length) return;
    e.preventDefault();
    clipboard = copyNodes(docRef.current, ns);
    lastClipText = clipboardText(clipboard);
    e.clipboardData?.setData('text/plain', lastClipText);
    pasteCount.current = 0;
    if (e.type === 'cut') deleteKeepingFocus(ns, []);
    props.notify?.(`${plural(ns.length, 'block')} ${e.type === 'cut' ? 'cut' : 'copied'}`);
  };
  useEffect(() => {
    if (readOnly) return;
    const onClip = (e: ClipboardEvent) => clipHandler.current(e);
    for (const type of ['copy', 'cut', 'paste'] as const) document.addEventListener(type, onClip);
    return () => {
      for (const type of ['copy', 'cut', 'paste'] as const) document.removeEventListener(type, onClip);
    };
  }, [readOnly]);

  // Keyboard: delete, duplicate, select all, arrows between nodes, / to add.
  // The handler is refreshed every render but subscribed once (no churn while dragging).
  const keyHandler = useRef<(e: KeyboardEvent) => void>(() => {});
  keyHandler.current = (e: KeyboardEvent) => {
    if (inField(e.target) || palette) return;
    const mod = e.ctrlKey || e.metaKey;
    const key = e.key.toLowerCase();
    if (key === 'delete' || key === 'backspace') {
      const ns = selectedIds();
      const es = edgesRef.current.filter((x) => x.selected).map((x) => x.id);
      if (ns.length || es.length) {
        e.preventDefault();
        deleteKeepingFocus(ns, es);
      }
    } else if (mod && key === 'd') {
      const ids = selectedIds();
      if (!ids.length) return;
      edit!((d) => {
        const r = duplicateNodes(d, ids);
        pendingSelect.current = r.ids;
        return r.doc;
      });
      e.preventDefault();
    } else if (mod && key === 'a') {
      e.preventDefault();
      setNodes((nds) => nds.map((n) => ({ ...n, selected: true })));
    } else if (!mod && e.shiftKey && key.startsWith('arrow')) {
      // Shift+arrows nudge the selected blocks (one undo step per burst).
      const sel = nodesRef.current.filter((n) => n.selected);
      if (!sel.length) return;
      e.preventDefault();
      e.stopPropagation();
      const d = { arrowup: [0, -10], arrowdown: [0, 10], arrowleft: [-10, 0], arrowright: [10, 0] }[key] ?? [0, 0];
      edit!((doc) => moveNodes(doc, new Map(sel.map((n) => [n.id, { x: n.position.x + d[0]!, y: n.position.y + d[1]! }]))), 'nudge');
    } else if (!mod && key.startsWith('arrow')) {
      const sel = selectedIds();
      const dir = key.slice(5) as Direction;
      const next = sel.length === 0 ? nodesRef.current[0]?.id : neighbour(nodesRef.current, sel[0]!, dir);
      if (next) {
        // Ahead of React Flow's own arrow handling (which would nudge the block).
        e.preventDefault();
        e.stopPropagation();
        // The focus goes with the selection (from a block, or from nowhere), so a screen reader
        // names the block and Delete after it keeps the place.
        if (focusOnCanvas()) focusBlock(next);
        selectOnly([next], true);
      }
    } else if (!mod && (key === '/' || key === 'n')) {
      e.preventDefault();
      openPalette();
    }
  };
  useEffect(() => {
    if (readOnly) return;
    const onKey = (e: KeyboardEvent) => keyHandler.current(e);
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [readOnly]);

  return (
    <>
      {/* Before the canvas in the page, so the first Tab from the sidebar reaches it, not every block first. */}
      {!readOnly && (
        <div className="canvas-toolbar">
          <button ref={addBlockButton} className="primary" onClick={openPalette} aria-label="Add block" title="Add block (/)">+ Add block</button>
          <button onClick={tidy} aria-label="Tidy up layout">Tidy up</button>
          <button onClick={() => showIds.set(ids === 'shown' ? 'hidden' : 'shown')} aria-pressed={ids === 'shown'} title="Show each block's id on its card (the inspector always shows it)">Show ids</button>
        </div>
      )}
      {!readOnly && nodes.length === 0 && (
        <FirstRun title="No blocks yet" action="Add a trigger" onAction={openPalette}>
          An automation starts with a trigger: what makes it run for a contact. Then add what happens next.
        </FirstRun>
      )}
      <SummaryContext.Provider value={summaries.current}>
      <ReactFlow<BlockNodeType, Edge>
        ref={flowEl}
        className={ids === 'shown' ? 'show-ids' : undefined}
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onSelectionChange={onSelectionChange}
        onConnect={onConnect}
        onReconnect={readOnly ? undefined : onReconnect}
        onReconnectStart={readOnly ? undefined : onReconnectStart}
        onReconnectEnd={readOnly ? undefined : onReconnectEnd}
        onConnectEnd={onConnectEnd}
        onNodeDragStop={onNodeDragStop}
        isValidConnection={isValidConnection}
        nodesDraggable={!readOnly}
        nodesConnectable={!readOnly}
        deleteKeyCode={null}
        selectionKeyCode="Shift"
        multiSelectionKeyCode={multiSelectionKeyCode}
        fitView
        fitViewOptions={fitViewOptions}
        minZoom={0.1}
        onlyRenderVisibleElements={nodes.length > 120}
        aria-label="Automation canvas"
        // Edges are picked with the mouse (and then deleted with Delete); as Tab stops they came
        // before every block, invisible. Blocks stay focusable, with arrow keys between them.
        edgesFocusable={false}
      >
        <Background gap={20} />
        <MiniMap position="top-right" pannable zoomable ariaLabel="Minimap" nodeClassName={minimapClass} />
        <Controls />
      </ReactFlow>
      </SummaryContext.Provider>
      {connectHint && <div className="connect-hint" role="status">Can't connect: {connectHint}</div>}
      {palette && <Palette onPick={pick} onClose={() => setPalette(null)} allowTriggers={!palette.from} />}
    </>
  );
}

export function Canvas(props: CanvasProps) {
  return (
    <ReactFlowProvider>
      <Flow {...props} />
    </ReactFlowProvider>
  );
}
