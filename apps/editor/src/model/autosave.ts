// Autosave: the draft pack and the text it was opened from, restored on reload. IndexedDB in
// the browser (a pack at every limit is ~19 MiB of JSON, beyond localStorage's quota); the
// draft is stored as a structured clone, so no JSON round-trip is needed.
import type { PackValue } from './pack.js';
import { parsePackText, type DuplicateNotKept, type NumberNotKept } from './fileText.js';

export interface Draft {
  savedAt: string;
  /**
   * The pack as last edited; absent when it is the pack as opened, `originText` parsed: storing
   * the text alone is a copy of one string instead of a structured clone of every object of the
   * pack (about 100 ms of the main thread's CPU for a pack at every limit just opened).
   */
  pack?: PackValue;
  /** The text it was opened from, while the pack is untouched (export of an untouched pack reproduces it). */
  originText?: string;
  source?: string;
  /**
   * The numbers of the file the pack was opened from that it holds as others (EditorState's
   * `numbers`; a few small objects, so not found again in `originText` on restore, which would
   * read a big pack's text twice more): restored, the panel still lists them and export still asks.
   */
  numbers?: readonly NumberNotKept[];
  /** The same for the properties the file writes more than once (EditorState's `duplicates`). */
  duplicates?: readonly DuplicateNotKept[];
  dirty: boolean;
  /** Which page load wrote it (see Leaving). */
  page?: string;
}

export interface DraftStore {
  load(): Promise<Draft | undefined>;
  save(draft: Draft): Promise<void>;
  clear(): Promise<void>;
}

const isDraft = (d: unknown): d is Draft =>
  !!d &&
  typeof d === 'object' &&
  ((!!(d as Draft).pack && typeof (d as Draft).pack === 'object') || typeof (d as Draft).originText === 'string');

/** The draft's pack: as stored, or its text parsed as opening it did; undefined if that text is no pack. */
export const packOfDraft = (d: Draft): PackValue | undefined =>
  d.pack ?? (d.originText === undefined ? undefined : parsePackText(d.originText).value);

export function memoryDraftStore(): DraftStore {
  let saved: Draft | undefined;
  return {
    load: async () => (saved ? structuredClone(saved) : undefined),
    save: async (d) => void (saved = structuredClone(d)),
    clear: async () => void (saved = undefined),
  };
}

const DB = 'setup-pack-editor';
const STORE = 'drafts';
const KEY = 'current';

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
  });
}

export function indexedDbDraftStore(factory: IDBFactory = indexedDB): DraftStore {
  let db: Promise<IDBDatabase> | undefined;
  const open = () =>
    (db ??= new Promise((resolve, reject) => {
      const r = factory.open(DB, 1);
      r.onupgradeneeded = () => r.result.createObjectStore(STORE);
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
    }));
  const tx = async (mode: IDBTransactionMode) => (await open()).transaction(STORE, mode).objectStore(STORE);
  return {
    async load() {
      const d: unknown = await request((await tx('readonly')).get(KEY));
      return isDraft(d) ? d : undefined;
    },
    async save(draft) {
      await request((await tx('readwrite')).put(draft, KEY));
    },
    async clear() {
      await request((await tx('readwrite')).delete(KEY));
    },
  };
}

/**
 * Whether the page held unsaved work when it was last left (pagehide, or hidden), and when. An
 * IndexedDB write started as the page goes away is dropped with it as often as not (Chromium
 * aborts the transaction), so the draft may still hold an earlier state; this note is written at
 * once, in localStorage, and tells the next page whether that draft is still the work left.
 */
export interface Leaving {
  /** The page load left (the `page` its drafts carry): another tab's leaving says nothing of this one's draft. */
  page: string;
  at: number;
  dirty: boolean;
}

const LEAVING_KEY = 'setup-pack-editor:left';

/** Notes, synchronously, that the page is being left with (or without) unsaved work. */
export function noteLeaving(page: string, dirty: boolean, storage: Pick<Storage, 'setItem'> | undefined = globalThis.localStorage): void {
  try {
    storage?.setItem(LEAVING_KEY, JSON.stringify({ page, at: Date.now(), dirty } satisfies Leaving));
  } catch {
    /* storage refused (private mode, quota): the draft alone decides, as before */
  }
}

export function readLeaving(storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage): Leaving | undefined {
  try {
    const v: unknown = JSON.parse(storage?.getItem(LEAVING_KEY) ?? 'null');
    return v &&
      typeof v === 'object' &&
      typeof (v as Leaving).page === 'string' &&
      typeof (v as Leaving).at === 'number' &&
      typeof (v as Leaving).dirty === 'boolean'
      ? (v as Leaving)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a draft of unsaved work is out of date: the page that wrote it was left later with no
 * unsaved work (every edit undone, or exported), and the write that would have said so did not
 * land. Such a draft is not restored: it would bring back work the author had undone.
 */
export function draftSuperseded(draft: Draft, left: Leaving | undefined): boolean {
  if (!draft.dirty || !left || left.dirty || draft.page !== left.page) return false;
  const saved = Date.parse(draft.savedAt);
  return !Number.isFinite(saved) || left.at >= saved;
}

/** IndexedDB when the browser has it, else memory (nothing survives a reload, but nothing breaks). */
export function defaultDraftStore(): DraftStore {
  try {
    if (typeof indexedDB !== 'undefined') return indexedDbDraftStore();
  } catch {
    /* private modes may refuse IndexedDB */
  }
  return memoryDraftStore();
}
