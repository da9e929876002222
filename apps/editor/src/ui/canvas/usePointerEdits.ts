// The edits made with the pointer on React Flow: a connection drawn (or dropped on empty canvas,
// which opens the palette), an edge's end moved, blocks dragged. Each is one undoable edit; a
// refused one says why.
import { useCallback } from 'react';
import type { Connection, Edge, FinalConnectionState, ReactFlowInstance } from '@xyflow/react';
import { connect, moveNodes, reconnect } from '../../model/graph.js';
import type { Obj } from '../../model/json.js';
import type { BlockNodeType } from '../BlockNode.js';
import type { CanvasProps } from './props.js';
import type { BlockAdding } from './useBlockAdding.js';
import type { ConnectHint } from './useConnectHint.js';

/** Applies `fn`'s document as one edit, then says the error it gave, if any. */
function editOrSay(
  edit: NonNullable<CanvasProps['edit']>,
  notify: CanvasProps['notify'],
  fn: (d: Obj) => { doc: Obj; error?: string },
): void {
  let error: string | undefined;
  edit((d) => {
    const r = fn(d);
    error = r.error;
    return r.doc;
  });
  if (error) notify?.(error);
}

export interface PointerEdits {
  onConnect: (c: Connection) => void;
  onReconnect: (old: Edge, c: Connection) => void;
  onConnectEnd: (event: MouseEvent | TouchEvent, state: FinalConnectionState) => void;
  onNodeDragStop: (event: unknown, node: unknown, dragged: BlockNodeType[]) => void;
}

export function usePointerEdits(
  flow: ReactFlowInstance,
  { edit, notify }: Pick<CanvasProps, 'edit' | 'notify'>,
  { connectHint, setConnectHint }: ConnectHint,
  setPalette: BlockAdding['setPalette'],
): PointerEdits {
  // Made anew only when `edit` changes, so React Flow is not handed new handlers on every render;
  // `notify` is the one given with that `edit`.
  const onConnect = useCallback(
    (c: Connection) => {
      if (!edit) return;
      editOrSay(edit, notify, (d) => connect(d, { source: c.source, handle: c.sourceHandle ?? 'next', target: c.target }));
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [edit],
  );
  // Dragging an edge's end to another block moves the edge (same rules as a new connection).
  const onReconnect = useCallback(
    (old: Edge, c: Connection) => {
      if (!edit) return;
      editOrSay(edit, notify, (d) => reconnect(d, old.id, { source: c.source, handle: c.sourceHandle ?? 'next', target: c.target }));
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [edit],
  );
  // A connection dropped on empty canvas opens the palette; the picked block is added and connected.
  const onConnectEnd = useCallback(
    (event: MouseEvent | TouchEvent, state: FinalConnectionState) => {
      if (state.isValid === false && state.toNode && connectHint) {
        // A refused drop does nothing to the graph; the reason stays on screen a moment.
        notify?.(`Not connected: ${connectHint}`);
      }
      setConnectHint(null);
      if (!edit || state.isValid === true || state.toNode || !state.fromNode || state.fromHandle?.type !== 'source') return;
      const target = event.target as Element | null;
      if (!target?.classList.contains('react-flow__pane')) return;
      const point = 'changedTouches' in event ? event.changedTouches[0] : event;
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
  return { onConnect, onReconnect, onConnectEnd, onNodeDragStop };
}
