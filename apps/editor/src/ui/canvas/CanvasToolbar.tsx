// The canvas's own buttons. Before the canvas in the page, so the first Tab from the sidebar
// reaches them, not every block first.
import type { RefObject } from 'react';
import { showIds } from '../preference.js';

export function CanvasToolbar({
  addBlockButton,
  onAdd,
  onTidy,
  ids,
}: {
  addBlockButton: RefObject<HTMLButtonElement | null>;
  onAdd: () => void;
  onTidy: () => void;
  ids: string;
}) {
  return (
    <div className="canvas-toolbar">
      <button ref={addBlockButton} className="primary" onClick={onAdd} aria-label="Add block" title="Add block (/)">
        + Add block
      </button>
      <button onClick={onTidy} aria-label="Tidy up layout">
        Tidy up
      </button>
      <button
        onClick={() => showIds.set(ids === 'shown' ? 'hidden' : 'shown')}
        aria-pressed={ids === 'shown'}
        title="Show each block's id on its card (the inspector always shows it)"
      >
        Show ids
      </button>
    </div>
  );
}
