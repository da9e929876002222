// Why the connection under the pointer is refused (core's reason), shown while dragging and for a
// moment after a refused drop. React Flow asks isValidConnection as the pointer moves.
import { useCallback, useRef, useState, type RefObject } from 'react';
import type { Connection, Edge } from '@xyflow/react';
import { canConnect, canReconnect } from '../../model/graph.js';
import type { Obj } from '../../model/json.js';

export interface ConnectHint {
  connectHint: string | null;
  setConnectHint: (hint: string | null) => void;
  isValidConnection: (c: Connection | Edge) => boolean;
  onReconnectStart: (event: unknown, edge: Edge) => void;
  onReconnectEnd: () => void;
}

export function useConnectHint(docRef: RefObject<Obj>): ConnectHint {
  // While an edge's end is dragged, the live hint judges the move without the edge itself (as the
  // drop does), so putting it back, or reversing it, is not shown as a duplicate or a cycle.
  const reconnecting = useRef<string | null>(null);
  const [connectHint, setConnectHint] = useState<string | null>(null);
  const isValidConnection = useCallback(
    (c: Connection | Edge) => {
      const spec = { source: c.source, handle: c.sourceHandle ?? 'next', target: c.target };
      const r = reconnecting.current ? canReconnect(docRef.current, reconnecting.current, spec) : canConnect(docRef.current, spec);
      setConnectHint(r.ok ? null : (r.reason ?? null));
      return r.ok;
    },
    [docRef],
  );
  const onReconnectStart = useCallback((_: unknown, edge: Edge) => {
    reconnecting.current = edge.id;
  }, []);
  const onReconnectEnd = useCallback(() => {
    reconnecting.current = null;
  }, []);
  return { connectHint, setConnectHint, isValidConnection, onReconnectStart, onReconnectEnd };
}
