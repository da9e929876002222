// Autosave to localStorage: the draft pack and the text it was opened from, restored on reload.
import type { PackValue } from './pack.js';

export const DRAFT_KEY = 'setup-pack-editor:draft';

export interface Draft {
  savedAt: string;
  /** The pack as last edited. */
  pack: PackValue;
  /** The text it was opened from (export of an untouched pack reproduces it). */
  originText?: string;
  source?: string;
  dirty: boolean;
}

export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export function saveDraft(store: KeyValueStore, draft: Draft): boolean {
  try {
    store.setItem(DRAFT_KEY, JSON.stringify(draft));
    return true;
  } catch {
    return false; // quota exceeded: keep editing, the beforeunload warning still protects the work
  }
}

export function loadDraft(store: KeyValueStore): Draft | undefined {
  try {
    const text = store.getItem(DRAFT_KEY);
    if (!text) return undefined;
    const d = JSON.parse(text) as Draft;
    return d && typeof d === 'object' && d.pack && typeof d.pack === 'object' ? d : undefined;
  } catch {
    return undefined;
  }
}

export function clearDraft(store: KeyValueStore): void {
  try {
    store.removeItem(DRAFT_KEY);
  } catch {
    /* ignore */
  }
}
