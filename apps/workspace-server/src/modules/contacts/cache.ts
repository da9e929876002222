import type { Queryable } from '../../db/db.js';

// The contact text cache and the list page cache: what they hold and when an entry may be used.
// The statements that read pages and fill them are modules/contacts/list.ts's.

/**
 * Contacts' JSON text by id, each at the row version (xmin) and the workspace's lookup generation
 * it was written at (docs/store.md, "The contact text cache"). An entry is used only when both
 * still match what the page's statement reads, so it is never stale, in this process or another:
 * every write that changes what a contact reads as writes its row (a new xmin), and a rename or
 * deletion of a tag, stage, lead source or member moves the generation (migration 5's triggers).
 * Entries not read recently go first once the cache holds `capacity` characters; an entry older
 * than an hour is not used (xmin is a 32-bit transaction id: it could repeat only after 2^32
 * transactions, far more than an hour holds).
 */
export class ContactTextCache {
  private entries = new Map<string, { version: string; lookups: string; text: string; at: number; used: boolean }>();
  private size = 0;
  /** Characters of text held. */
  get used(): number {
    return this.size;
  }
  /** Entries held. */
  get count(): number {
    return this.entries.size;
  }
  /** Reads answered from the cache (tests, benchmarks and GET /admin/stats look at it). */
  hits = 0;
  /** Reads not answered: nothing held for the key, or not at the version and generation asked for. */
  misses = 0;
  /** Entries another process wrote and sent here (receive). */
  received = 0;
  /**
   * Called with the texts this process wrote (`written`, not those it received), a batch per turn
   * of the event loop: `serve --workers` sends them to its sibling processes, which `receive` them
   * (docs/store.md, "Texts shared between workers"). Unset, nothing is kept for it.
   */
  onWritten?: (texts: WrittenText[]) => void;
  private outgoing: WrittenText[] | null = null;
  constructor(readonly capacity: number) {}
  /** Forgets every entry (bench/explain.mjs shows a page read rather than held). */
  clear(): void {
    this.entries.clear();
    this.size = 0;
  }
  /** The entry held for `id` at whatever version, unless older than an hour; not counted as a hit. */
  held(id: string, now: number): { version: string; lookups: string } | undefined {
    const e = this.entries.get(id);
    return e && now - e.at <= MAX_ENTRY_AGE_MS ? e : undefined;
  }
  get(id: string, version: string, lookups: string, now: number): string | undefined {
    const e = this.entries.get(id);
    if (!e || e.version !== version || e.lookups !== lookups || now - e.at > MAX_ENTRY_AGE_MS) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Marked, not moved: deleting and re-inserting on every hit cost 5 µs a hit in a Map of
    // 100,000 entries (V8 compacts the table as deletions pile up); eviction gives a marked
    // entry a second chance instead (the CLOCK approximation of least recently used).
    e.used = true;
    return e.text;
  }
  /**
   * Holds a text this process's statements wrote (or a creation's response) and, when another
   * process listens (onWritten), queues it for them: the key is the row version and the lookup
   * generation, which are the database's, so the entry is as valid there as here.
   */
  written(id: string, version: string, lookups: string, text: string, now: number): void {
    if (!this.set(id, version, lookups, text, now) || !this.onWritten) return;
    if (this.outgoing === null) {
      this.outgoing = [];
      setImmediate(() => {
        const texts = this.outgoing!;
        this.outgoing = null;
        this.onWritten?.(texts);
      });
    }
    this.outgoing.push([id, version, lookups, text]);
  }
  /** Holds texts another process wrote (its onWritten's), at this process's time; not sent on again. */
  receive(texts: readonly WrittenText[], now: number): void {
    for (const [id, version, lookups, text] of texts) this.set(id, version, lookups, text, now);
    this.received += texts.length;
  }
  /** Holds `text` for `id` at that version and generation; false when it is larger than the whole cache (not held). */
  set(id: string, version: string, lookups: string, text: string, now: number): boolean {
    if (text.length > this.capacity) return false;
    const old = this.entries.get(id);
    if (old) {
      this.size -= old.text.length;
      this.entries.delete(id);
    }
    this.entries.set(id, { version, lookups, text, at: now, used: false });
    this.size += text.length;
    // Oldest first; an entry read since it was last passed goes to the back once.
    for (const [k, e] of this.entries) {
      if (this.size <= this.capacity) break;
      this.entries.delete(k);
      if (e.used) {
        e.used = false;
        this.entries.set(k, e);
      } else this.size -= e.text.length;
    }
    return true;
  }
}

/** A contact's text as a process wrote it: id, row version, lookup generation, text (compact for IPC). */
export type WrittenText = [id: string, version: string, lookups: string, text: string];

const MAX_ENTRY_AGE_MS = 3_600_000;
/** The default size of a store's contact text cache, in characters (about 50,000 contacts' text). */
export const DEFAULT_CONTACT_CACHE_CHARS = 32 * 1024 * 1024;
const textCaches = new WeakMap<object, ContactTextCache>();
/**
 * Per store: list pages' response bodies by page (contactListQuery's pageKey), each at the
 * workspace's write generation and lookup generation it was read at (docs/store.md, "A page that
 * did not change"). It holds a share of the text cache's size (PAGE_SHARE), and is off with it.
 */
const pageCaches = new WeakMap<object, ContactTextCache>();
const PAGE_SHARE = 0.5;

/** Sets a store's contact text cache size in characters (and its page cache's, a share of it); 0 turns both off. */
export function setContactTextCache(db: Queryable, chars: number): ContactTextCache {
  const cache = new ContactTextCache(chars);
  textCaches.set(db, cache);
  pageCaches.set(db, new ContactTextCache(Math.floor(chars * PAGE_SHARE)));
  return cache;
}

/** The list page cache of a store: its hits are the lists answered without reading their page. */
export function contactPageCache(db: Queryable): ContactTextCache {
  if (!pageCaches.has(db)) contactTextCache(db);
  return pageCaches.get(db)!;
}

/** The contact text cache of a store (created at the default size on first use). */
export function contactTextCache(db: Queryable): ContactTextCache {
  return textCaches.get(db) ?? setContactTextCache(db, DEFAULT_CONTACT_CACHE_CHARS);
}
