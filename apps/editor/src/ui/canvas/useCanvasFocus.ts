// The keyboard's focus on the canvas: whether it is there, and giving it to a block.
import { useRef, type RefObject } from 'react';

export interface CanvasFocus {
  /** React Flow's element. */
  flowEl: RefObject<HTMLDivElement | null>;
  /** + Add block: where the focus goes when no block is left to take it. */
  addBlockButton: RefObject<HTMLButtonElement | null>;
  /**
   * Whether the keyboard's focus is on this canvas (a block), or lost to the page's body: the
   * canvas's keys then keep it here, as they move the selection.
   */
  focusOnCanvas: () => boolean;
  /**
   * Focuses a block's element (React Flow's node wrapper, a Tab stop): without scrolling the
   * canvas's box, which React Flow pans itself (onto a block focused from the keyboard outside the view).
   */
  focusBlock: (id: string) => void;
}

export function useCanvasFocus(): CanvasFocus {
  const flowEl = useRef<HTMLDivElement>(null);
  const addBlockButton = useRef<HTMLButtonElement>(null);
  const focusOnCanvas = () => {
    const a = document.activeElement;
    return !a || a === document.body || !!flowEl.current?.contains(a);
  };
  const focusBlock = (id: string) =>
    flowEl.current?.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`)?.focus({ preventScroll: true });
  return { flowEl, addBlockButton, focusOnCanvas, focusBlock };
}
