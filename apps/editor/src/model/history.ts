// Undo/redo as a history of immutable pack states. Consecutive edits with the same
// `coalesce` key (typing in one field) merge into one step.
export interface History<T> {
  past: T[];
  present: T;
  future: T[];
  /** Key of the last edit, for coalescing; reset by undo/redo. */
  lastKey?: string;
}

export const MAX_HISTORY = 300;

export function createHistory<T>(present: T): History<T> {
  return { past: [], present, future: [] };
}

export function push<T>(h: History<T>, next: T, coalesce?: string): History<T> {
  if (next === h.present) return h;
  if (coalesce && h.lastKey === coalesce && h.past.length > 0) return { past: h.past, present: next, future: [], lastKey: coalesce };
  const past = [...h.past, h.present];
  if (past.length > MAX_HISTORY) past.shift();
  return { past, present: next, future: [], lastKey: coalesce };
}

export function undo<T>(h: History<T>): History<T> {
  if (h.past.length === 0) return h;
  return { past: h.past.slice(0, -1), present: h.past[h.past.length - 1], future: [h.present, ...h.future] };
}

export function redo<T>(h: History<T>): History<T> {
  if (h.future.length === 0) return h;
  return { past: [...h.past, h.present], present: h.future[0], future: h.future.slice(1) };
}

export const canUndo = (h: History<unknown>) => h.past.length > 0;
export const canRedo = (h: History<unknown>) => h.future.length > 0;
