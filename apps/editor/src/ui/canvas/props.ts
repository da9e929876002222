// What the canvas is given: its own file, so the canvas's hooks read it without importing the
// component that composes them.
import type { FindingIndex } from '../../model/findings.js';
import type { Obj } from '../../model/json.js';
import type { RefIndex } from '../../model/references.js';
import type { DiffMark } from '../flow.js';

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
