// Autosave: the draft pack and the text it was opened from, restored on reload. IndexedDB in
// the browser (a pack at every limit is ~19 MiB of JSON, beyond localStorage's quota); the
// draft is stored as a structured clone, so no JSON round-trip is needed.
import type { PackValue } from './pack.js';

export interface Draft {
  savedAt: string;
  /** The pack as last edited. */
  pack: PackValue;
  /** The text it was opened from (export of an untouched pack reproduces it). */
  originText?: string;
  source?: string;
  dirty: boolean;
}

export interface DraftStore {
  load(): Promise<Draft | undefined>;
  save(draft: Draft): Promise<void>;
  clear(): Promise<void>;
}

const isDraft = (d: unknown): d is Draft => !!d && typeof d === 'object' && !!(d as Draft).pack && typeof (d as Draft).pack === 'object';

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
    r.onerror = () => reject(r.error);
  });
}

export function indexedDbDraftStore(factory: IDBFactory = indexedDB): DraftStore {
  let db: Promise<IDBDatabase> | undefined;
  const open = () =>
    (db ??= new Promise((resolve, reject) => {
      const r = factory.open(DB, 1);
      r.onupgradeneeded = () => r.result.createObjectStore(STORE);
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    }));
  const tx = async (mode: IDBTransactionMode) => (await open()).transaction(STORE, mode).objectStore(STORE);
  return {
    async load() {
      const d = await request((await tx('readonly')).get(KEY));
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

/** IndexedDB when the browser has it, else memory (nothing survives a reload, but nothing breaks). */
export function defaultDraftStore(): DraftStore {
  try {
    if (typeof indexedDB !== 'undefined') return indexedDbDraftStore();
  } catch {
    /* private modes may refuse IndexedDB */
  }
  return memoryDraftStore();
}
