// Keys for items exported from a workspace set up by hand: derived from names, so they are
// readable and two exports of the same workspace give the same keys (not from ids or order).

/** "Hot lead (2024)" → "hot-lead-2024": lower-case ASCII letters and digits joined by hyphens. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120)
    .replace(/-+$/, '');
  return slug || 'item';
}

/** The prefix of a reference id derived from a name (`tag-…`, `deal-stage-…`): the type, hyphenated. */
export const referenceIdPrefix = (type: string) => type.replace(/_/g, '-');

/** Hands out keys unique across the whole pack (a reference id then means one item only). */
export class KeyAllocator {
  private readonly used = new Set<string>();

  /** Marks keys taken (keys kept from an install ledger). */
  reserve(key: string): void {
    this.used.add(key);
  }

  has(key: string): boolean {
    return this.used.has(key);
  }

  /** `${prefix}-${slug}`, or with -2, -3… when taken. */
  take(prefix: string, name: string): string {
    const base = prefix ? `${prefix}-${slugify(name)}` : slugify(name);
    let key = base;
    // Counting on from the last suffix given for this base: 5,000 media files named image.png
    // would otherwise try 2, 3, … again for each one.
    let n = this.next.get(base) ?? 2;
    while (this.used.has(key)) key = `${base}-${n++}`;
    if (key !== base) this.next.set(base, n);
    this.used.add(key);
    return key;
  }

  /** The suffix to try first for a base already taken. */
  private readonly next = new Map<string, number>();
}

/**
 * The order keys are handed out in: by name, then by what the object holds (content, never
 * ids), so objects of one name get the same suffixes in every export of the same workspace.
 * Export --all's content also says where the workspace uses the object, which tells twins apart.
 */
export function byNameThenContent<T>(items: T[], name: (t: T) => string, content: (t: T) => string): T[] {
  const keyed = items.map((t) => ({ t, slug: slugify(name(t)), name: name(t), content: content(t) }));
  keyed.sort((a, b) => cmp(a.slug, b.slug) || cmp(a.name, b.name) || cmp(a.content, b.content));
  return keyed.map((k) => k.t);
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
