// The automation canvas: a thin React Flow view over the model's graph functions. Every edit
// goes through `edit` (one undoable step); dragging is local until the drag ends. Flow reads as
// its hooks (canvas/), one concern each: the nodes and edges, selection, focus, deleting, adding
// blocks, connecting, the clipboard and the keys.
import { ReactFlowProvider, useReactFlow } from '@xyflow/react';
import { tidyUp } from '../model/layout.js';
import { Palette } from './Palette.js';
import { showIds, usePreference } from './preference.js';
import { FirstRun } from './FirstRun.js';
import { CanvasToolbar } from './canvas/CanvasToolbar.js';
import { FlowView } from './canvas/FlowView.js';
import { useBlockAdding } from './canvas/useBlockAdding.js';
import { useCanvasFocus } from './canvas/useCanvasFocus.js';
import { useCanvasKeys } from './canvas/useCanvasKeys.js';
import { useCanvasSelection } from './canvas/useCanvasSelection.js';
import { useClipboard } from './canvas/useClipboard.js';
import { useConnectHint } from './canvas/useConnectHint.js';
import { useDeleting } from './canvas/useDeleting.js';
import { useFlowGraph } from './canvas/useFlowGraph.js';
import { usePointerEdits } from './canvas/usePointerEdits.js';
import type { CanvasProps } from './canvas/props.js';

export type { CanvasProps } from './canvas/props.js';

function Flow(props: CanvasProps) {
  const { doc, edit } = props;
  const readOnly = !edit;
  const flow = useReactFlow();
  const ids = usePreference(showIds);
  const graph = useFlowGraph(props);
  const focus = useCanvasFocus();
  const selection = useCanvasSelection(flow, graph, props);
  const deleteKeepingFocus = useDeleting(doc, props, graph, selection, focus);
  const { palette, setPalette, openPalette, pick } = useBlockAdding(flow, graph, props);
  const hint = useConnectHint(graph.docRef);
  const pointer = usePointerEdits(flow, props, hint, setPalette);
  useClipboard(readOnly, { paletteOpen: palette !== null, edit, notify: props.notify, graph, selection, deleteKeepingFocus });
  useCanvasKeys(readOnly, { paletteOpen: palette !== null, edit, graph, selection, focus, deleteKeepingFocus, openPalette });
  const tidy = () => {
    if (!edit) return;
    edit((d) => tidyUp(d));
    setTimeout(() => void flow.fitView({ duration: 200 }), 50);
  };

  return (
    <>
      {!readOnly && <CanvasToolbar addBlockButton={focus.addBlockButton} onAdd={openPalette} onTidy={tidy} ids={ids} />}
      {!readOnly && graph.nodes.length === 0 && (
        <FirstRun title="No blocks yet" action="Add a trigger" onAction={openPalette}>
          An automation starts with a trigger: what makes it run for a contact. Then add what happens next.
        </FirstRun>
      )}
      <FlowView
        graph={graph}
        readOnly={readOnly}
        ids={ids}
        flowEl={focus.flowEl}
        onSelectionChange={selection.onSelectionChange}
        hint={hint}
        pointer={pointer}
      />
      {hint.connectHint && (
        <div className="connect-hint" role="status">
          Can't connect: {hint.connectHint}
        </div>
      )}
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
