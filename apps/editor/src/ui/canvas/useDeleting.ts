// Deleting blocks and edges from the keyboard (Delete, Backspace, Cut), the focus kept on the canvas.
import type { Obj } from '../../model/json.js';
import { blockAfterDelete, deleteElements, deleteJoining } from '../../model/graph.js';
import { useFocusAfter } from '../focusAfter.js';
import type { CanvasProps } from './props.js';
import type { FlowGraph } from './useFlowGraph.js';
import type { CanvasSelection } from './useCanvasSelection.js';
import type { CanvasFocus } from './useCanvasFocus.js';

export type DeleteKeepingFocus = (nodes: string[], edges: string[]) => void;

/**
 * A block or edge deleted from the keyboard took the focus with it (the deleted block's element),
 * leaving it on the page's body. Once the delete is drawn, the block that took the deleted one's
 * place (blockAfterDelete: the next in the graph's list, else the one before; for an edge, its
 * source) is selected and focused, so the arrow keys go on from there; + Add block when no block
 * is left. Asked in the document drawn when the key is pressed, given in the first one after it
 * (the delete's: the edit is applied at once), while the deleted block's element is still drawn
 * (useFocusAfter).
 */
export function useDeleting(
  doc: Obj,
  { edit, notify }: Pick<CanvasProps, 'edit' | 'notify'>,
  graph: FlowGraph,
  selection: CanvasSelection,
  focus: CanvasFocus,
): DeleteKeepingFocus {
  const focusAfterDelete = useFocusAfter(doc);
  const { nodesRef, edgesRef } = graph;
  return (ns, es) => {
    const keep = focus.focusOnCanvas();
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
    if (joined) notify?.(`Joined "${joined[0]}" to "${joined[1]}", as the deleted block stood between them (Undo parts them again).`);
    if (!keep) return;
    const next = block;
    focusAfterDelete(() => {
      if (next === undefined) return void focus.addBlockButton.current?.focus();
      focus.focusBlock(next);
      selection.selectOnly([next]);
    });
  };
}
