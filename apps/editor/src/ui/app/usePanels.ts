// What is open around the editor: the plan preview, the Flow map (in place of the canvas) and the
// Simulate panel, the comparison of two releases, the command palette or the shortcuts list, and
// the requests other parts pass on (a block to add, the connect dialog to open).
import { useCallback, useState, type Dispatch, type SetStateAction } from 'react';
import type { CompareState } from '../CompareForm.js';

/** What the pack will do: the Flow map (in place of the canvas) and the Simulate panel. */
export interface Views {
  flowMap: boolean;
  simulate: boolean;
}

export type Dialog = 'commands' | 'shortcuts';

export interface Panels {
  planOpen: boolean;
  setPlanOpen: Dispatch<SetStateAction<boolean>>;
  closePlan: () => void;
  view: Views;
  setView: Dispatch<SetStateAction<Views>>;
  /** The compare form: both releases chosen, in any order, then shown (the pack being edited is one choice). */
  diff: CompareState;
  setDiff: Dispatch<SetStateAction<CompareState>>;
  dialog: Dialog | undefined;
  setDialog: Dispatch<SetStateAction<Dialog | undefined>>;
  /** A block the palette asked the canvas to add. */
  addRequest: { kind: string; seq: number } | undefined;
  setAddRequest: Dispatch<SetStateAction<{ kind: string; seq: number } | undefined>>;
  /** Bumped to open the connect dialog (asked from the palette). */
  connectRequest: number;
  setConnectRequest: Dispatch<SetStateAction<number>>;
  /** The toolbar's toggles. */
  togglePlan: () => void;
  toggleCompare: () => void;
  toggleFlowMap: () => void;
  toggleSimulate: () => void;
  closeFlowMap: () => void;
}

export function usePanels(): Panels {
  const [planOpen, setPlanOpen] = useState(false);
  const closePlan = useCallback(() => setPlanOpen(false), []);
  const [view, setView] = useState<Views>({ flowMap: false, simulate: false });
  const [diff, setDiff] = useState<CompareState>({ open: false });
  const [dialog, setDialog] = useState<Dialog>();
  const [addRequest, setAddRequest] = useState<{ kind: string; seq: number }>();
  const [connectRequest, setConnectRequest] = useState(0);
  return {
    planOpen,
    setPlanOpen,
    closePlan,
    view,
    setView,
    diff,
    setDiff,
    dialog,
    setDialog,
    addRequest,
    setAddRequest,
    connectRequest,
    setConnectRequest,
    togglePlan: () => setPlanOpen((o) => !o),
    toggleCompare: () => setDiff((d) => ({ ...d, open: !d.open, shown: false })),
    toggleFlowMap: () => setView((v) => ({ ...v, flowMap: !v.flowMap })),
    toggleSimulate: () => setView((v) => ({ ...v, simulate: !v.simulate })),
    closeFlowMap: () => setView((v) => ({ ...v, flowMap: false })),
  };
}
