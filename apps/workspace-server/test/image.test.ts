// The saved fresh database (src/db/image.ts): made by the first new embedded store, loaded by the
// next ones instead of initdb, and never more than a shortcut.
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheDir, imageFile } from '../src/db/image.js';
import type { PgliteDb } from '../src/db/pglite.js';
import { migrations } from '../src/migrations.js';
import { openStore, type Store } from '../src/open-store.js';

const before = process.env.SETUP_PACK_CACHE_DIR;
const opened: Store[] = [];
afterEach(async () => {
  process.env.SETUP_PACK_CACHE_DIR = before;
  for (const s of opened.splice(0)) await s.close();
});

/** A cache directory of its own: images read earlier in this process are not found there. */
function freshCache(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sp-image-'));
  process.env.SETUP_PACK_CACHE_DIR = dir;
  return dir;
}

/** The cache the first test made its image in. */
let made: string | undefined;

async function open(opts: Parameters<typeof openStore>[0]) {
  const store = await openStore(opts);
  opened.push(store);
  return { store, created: (store.db as PgliteDb).created };
}

const tables = async (s: Store) =>
  (await s.db.query<{ t: string }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map((r) => r.t);
const versions = async (s: Store) =>
  (await s.db.query<{ v: number }>('SELECT version AS v FROM schema_migrations ORDER BY 1')).rows.map((r) => Number(r.v));

describe('the fresh database image', () => {
  it('is made by the first new store and loaded by the next: the same tables and migrations, and nothing of the first store’s data', async () => {
    const dir = (made = freshCache());
    const first = await open({ memory: true });
    expect(first.created).toBe(true);
    const file = imageFile(migrations)!;
    expect(file.startsWith(dir)).toBe(true);
    expect(existsSync(file)).toBe(true);
    await first.store.db.query("INSERT INTO workspaces (id, name, slug, created_at) VALUES ('ws_one', 'One', 'one', now())");

    const second = await open({ memory: true });
    expect(second.created).toBe(false);
    expect(await tables(second.store)).toEqual(await tables(first.store));
    expect(await versions(second.store)).toEqual(migrations.map((m) => m.version).sort((a, b) => a - b));
    expect((await second.store.db.query('SELECT id FROM workspaces')).rows).toEqual([]);
    // Loaded, it is a working database: a write and its read.
    await second.store.db.query("INSERT INTO workspaces (id, name, slug, created_at) VALUES ('ws_two', 'Two', 'two', now())");
    expect((await second.store.db.query('SELECT id FROM workspaces')).rows).toEqual([{ id: 'ws_two' }]);
  }, 60_000);

  it('starts a new data directory, which then keeps its data across a restart', async () => {
    // The image the first test made; run alone, this test makes one.
    if (made) process.env.SETUP_PACK_CACHE_DIR = made;
    else {
      freshCache();
      await open({ memory: true });
    }
    const dataDir = join(mkdtempSync(join(tmpdir(), 'sp-data-')), 'db');
    const a = await open({ dataDir });
    expect(a.created).toBe(false);
    await a.store.db.query("INSERT INTO workspaces (id, name, slug, created_at) VALUES ('ws_kept', 'Kept', 'kept', now())");
    await a.store.close();
    opened.splice(opened.indexOf(a.store), 1);
    const b = await open({ dataDir });
    expect(b.created).toBe(false);
    expect((await b.store.db.query('SELECT id FROM workspaces')).rows).toEqual([{ id: 'ws_kept' }]);
  }, 60_000);

  it('that cannot be loaded is passed over and replaced: the store is made by initdb, and a data directory keeps nothing of the failed load', async () => {
    freshCache();
    const file = imageFile(migrations)!;
    writeFileSync(file, 'not a tarball');
    const dataDir = mkdtempSync(join(tmpdir(), 'sp-data-'));
    const s = await open({ dataDir });
    expect(s.created).toBe(true);
    expect(await versions(s.store)).toHaveLength(migrations.length);
    expect(readdirSync(dataDir)).toContain('PG_VERSION');
    // The bad image was removed and a good one saved in its place.
    const next = await open({ memory: true });
    expect(next.created).toBe(false);
  }, 60_000);

  it('is not kept with SETUP_PACK_CACHE_DIR=off, and is named by the migrations it holds', () => {
    process.env.SETUP_PACK_CACHE_DIR = 'off';
    expect(cacheDir()).toBeUndefined();
    expect(imageFile(migrations)).toBeUndefined(); // so openStore neither reads nor saves one

    const dir = freshCache();
    const more = [...migrations, { version: 999_999, name: 'later', sql: 'SELECT 1' }];
    expect(imageFile(more)).not.toBe(imageFile(migrations));
    expect(imageFile(more)!.startsWith(dir)).toBe(true);
    expect(cacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/setup-pack');
  });

  it('that cannot be written costs nothing but the shortcut', async () => {
    const dir = freshCache();
    writeFileSync(join(dir, 'file'), '');
    process.env.SETUP_PACK_CACHE_DIR = join(dir, 'file'); // a file where the directory should be
    const s = await open({ memory: true });
    expect(s.created).toBe(true);
    expect(await versions(s.store)).toHaveLength(migrations.length);
  }, 60_000);
});
