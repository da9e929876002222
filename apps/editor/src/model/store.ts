// The editor's state outside React: the history of pack states, what it was opened from, and
// what is being edited. Components subscribe with useSyncExternalStore and call these methods.
import { createHistory, push, redo, undo, type History } from './history.js';
import { newPack, targetAfter, type PackValue, type Target } from './pack.js';
import type { Origin } from './serialize.js';
import { followLost, type DuplicateNotKept, type NumberNotKept } from './fileText.js';

export interface EditorState {
  history: History<PackValue>;
  origin?: Origin;
  /**
   * The numbers of the file the pack was opened from that it holds as others (`1e-400` as 0:
   * lostOnOpen): listed as findings while their places still hold them, asked about on export.
   * Placed in the present pack: each edit moves them with their items (followLost), so removing
   * an item before one does not leave its finding on the item that takes its index.
   */
  numbers?: readonly NumberNotKept[];
  /**
   * The properties the file writes more than once, of which the pack holds the last (lostOnOpen):
   * listed as findings while their places hold what they read as, asked about on export.
   */
  duplicates?: readonly DuplicateNotKept[];
  /** Where the pack came from (file name or URL), for the title bar. */
  source: string;
  target: Target;
  /** The pack state last exported or opened: differs from present when there are unsaved changes. */
  savedPack: PackValue;
  /** A message for the status line (e.g. a refused connection). */
  notice?: { text: string; at: number };
  /** How many packs this store has opened: views of one pack (a fix's report) key on it, so they end with it. */
  opened: number;
}

export type Listener = () => void;

export class EditorStore {
  private state: EditorState;
  private listeners = new Set<Listener>();
  /** What the opened file lost, as placed in each pack state of the history (undo and redo go back to a state's own). */
  private placed = new WeakMap<PackValue, Pick<EditorState, 'numbers' | 'duplicates'>>();

  constructor(initial?: EditorState) {
    const pack = newPack();
    this.state = initial ?? {
      history: createHistory(pack),
      source: 'new pack',
      target: { kind: 'automations', index: 0 },
      savedPack: pack,
      opened: 0,
    };
  }

  getState = (): EditorState => this.state;
  get pack(): PackValue {
    return this.state.history.present;
  }
  get dirty(): boolean {
    return this.state.history.present !== this.state.savedPack;
  }

  subscribe = (l: Listener): (() => void) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };

  private set(next: EditorState) {
    this.state = next;
    for (const l of this.listeners) l();
  }

  /**
   * Opens a pack value; `text` is what it was parsed from (kept for a byte-identical export);
   * `numbers`, the numbers of the file it holds as others, and `duplicates`, the properties it
   * writes more than once (lostOnOpen, or a restored draft's).
   */
  open(
    pack: PackValue,
    source: string,
    text?: string,
    options: { dirty?: boolean; target?: Target; numbers?: readonly NumberNotKept[]; duplicates?: readonly DuplicateNotKept[] } = {},
  ) {
    const hasAutomations = Array.isArray(pack.automations) && pack.automations.length > 0;
    this.placed = new WeakMap([[pack, { numbers: options.numbers, duplicates: options.duplicates }]]);
    this.set({
      history: createHistory(pack),
      origin: text !== undefined ? { value: pack, text } : undefined,
      numbers: options.numbers,
      duplicates: options.duplicates,
      source,
      target: options.target ?? (hasAutomations ? { kind: 'automations', index: 0 } : { kind: 'pack' }),
      savedPack: options.dirty ? {} : pack,
      opened: this.state.opened + 1,
    });
  }

  /** Applies an edit as one undoable step (edits with the same `coalesce` key merge). */
  commit(fn: (pack: PackValue) => PackValue, coalesce?: string) {
    const next = fn(this.pack);
    if (next === this.pack) return;
    this.set({ ...this.state, history: push(this.state.history, next, coalesce), ...this.lostIn(next) });
  }

  // Undo and redo show what they brought back, and never leave shown an item that is gone (targetAfter).
  undo() {
    const history = undo(this.state.history);
    this.set({
      ...this.state,
      history,
      target: targetAfter(this.pack, history.present, this.state.target),
      ...this.lostIn(history.present),
    });
  }
  redo() {
    const history = redo(this.state.history);
    this.set({
      ...this.state,
      history,
      target: targetAfter(this.pack, history.present, this.state.target),
      ...this.lostIn(history.present),
    });
  }

  /** What the opened file lost, placed in `next`: its own when it was a state before, else followed from the present pack's. */
  private lostIn(next: PackValue): Pick<EditorState, 'numbers' | 'duplicates'> {
    const known = this.placed.get(next);
    if (known) return known;
    const { numbers, duplicates } = this.state;
    const lost = {
      numbers: numbers && followLost(this.pack, next, numbers),
      duplicates: duplicates && followLost(this.pack, next, duplicates),
    };
    this.placed.set(next, lost);
    return lost;
  }

  select(target: Target) {
    this.set({ ...this.state, target });
  }

  markSaved() {
    this.set({ ...this.state, savedPack: this.pack });
  }

  notify(text: string) {
    this.set({ ...this.state, notice: { text, at: Date.now() } });
  }
}
