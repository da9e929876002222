// The editor's state outside React: the history of pack states, what it was opened from, and
// what is being edited. Components subscribe with useSyncExternalStore and call these methods.
import { createHistory, push, redo, undo, type History } from './history.js';
import { newPack, type PackValue, type Target } from './pack.js';
import type { Origin } from './serialize.js';
import type { DuplicateNotKept, NumberNotKept } from './fileText.js';

export interface EditorState {
  history: History<PackValue>;
  origin?: Origin;
  /**
   * The numbers of the file the pack was opened from that it holds as others (`1e-400` as 0:
   * lostOnOpen): listed as findings while their places still hold them, asked about on export.
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

  constructor(initial?: EditorState) {
    const pack = newPack();
    this.state = initial ?? { history: createHistory(pack), source: 'new pack', target: { kind: 'automations', index: 0 }, savedPack: pack, opened: 0 };
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
  open(pack: PackValue, source: string, text?: string, options: { dirty?: boolean; target?: Target; numbers?: readonly NumberNotKept[]; duplicates?: readonly DuplicateNotKept[] } = {}) {
    const hasAutomations = Array.isArray(pack.automations) && pack.automations.length > 0;
    this.set({
      history: createHistory(pack),
      origin: text !== undefined ? { value: pack, text } : undefined,
      numbers: options.numbers,
      duplicates: options.duplicates,
      source,
      target: options.target ?? (hasAutomations ? { kind: 'automations', index: 0 } : { kind: 'pack' }),
      savedPack: options.dirty ? ({} as PackValue) : pack,
      opened: this.state.opened + 1,
    });
  }

  /** Applies an edit as one undoable step (edits with the same `coalesce` key merge). */
  commit(fn: (pack: PackValue) => PackValue, coalesce?: string) {
    const next = fn(this.pack);
    if (next === this.pack) return;
    this.set({ ...this.state, history: push(this.state.history, next, coalesce) });
  }

  undo() {
    this.set({ ...this.state, history: undo(this.state.history) });
  }
  redo() {
    this.set({ ...this.state, history: redo(this.state.history) });
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
