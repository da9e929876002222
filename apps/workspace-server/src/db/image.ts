// A fresh embedded database, saved once and loaded by every later new store. Creating a PGlite
// database runs initdb in WebAssembly, about 4 s of one core, and the migrations another half
// second; loading the saved files of one takes under 1 s. The image is a tarball of the data
// directory (PGlite's dumpDataDir) right after the migrations, named by what decides its content:
// PGlite's version, the extensions and the migrations. A store whose migrations changed finds no
// image under the new name and makes one. The image is only a shortcut: a cache that cannot be
// read or written is passed over, and the store is created as if there were none.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Migration } from './migrate.js';

/** The embedded store's extensions, by name: part of the image's name, as they are of its content. */
export const PGLITE_EXTENSIONS = ['pg_trgm', 'btree_gin'] as const;

/**
 * Where images are kept: `SETUP_PACK_CACHE_DIR`, else `$XDG_CACHE_HOME/setup-pack`, else
 * `~/.cache/setup-pack`. `SETUP_PACK_CACHE_DIR=off` keeps none: every new store runs initdb.
 */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const set = env.SETUP_PACK_CACHE_DIR;
  if (set === 'off') return undefined;
  if (set) return set;
  const base = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'setup-pack');
}

/** PGlite's own version, read from its package; undefined where it cannot be found (no image then). */
function pgliteVersion(): string | undefined {
  try {
    const main = import.meta.resolve('@electric-sql/pglite');
    return (JSON.parse(readFileSync(new URL('../package.json', main), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** The image's file for this PGlite and these migrations, or undefined when none is kept. */
export function imageFile(migrations: readonly Migration[], env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = cacheDir(env);
  const version = pgliteVersion();
  if (!dir || !version) return undefined;
  const hash = createHash('sha256')
    .update(JSON.stringify({ version, extensions: PGLITE_EXTENSIONS, migrations }))
    .digest('hex')
    .slice(0, 16);
  return join(dir, `pglite-${version}-${hash}.tar`);
}

/** Images read in this process: a test process opens many stores. */
const loaded = new Map<string, Blob>();

/** The saved image, or undefined when there is none or it cannot be read. */
export function readImage(file: string): Blob | undefined {
  const known = loaded.get(file);
  if (known) return known;
  try {
    const image = new Blob([readFileSync(file)]);
    loaded.set(file, image);
    return image;
  } catch {
    return undefined;
  }
}

/**
 * Saves an image whole or not at all: written beside its name and renamed onto it, so a process
 * reading it (or another saving it at the same time) never sees half a file.
 */
export async function saveImage(file: string, image: Blob): Promise<void> {
  const part = `${file}.${process.pid}.${Date.now()}.part`;
  try {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(part, Buffer.from(await image.arrayBuffer()));
    renameSync(part, file);
    loaded.set(file, image);
  } catch {
    try {
      rmSync(part, { force: true });
    } catch {
      // Nothing was written where nothing can be.
    }
  }
}

/** An image PGlite could not load is removed, so the next store makes a good one. */
export function dropImage(file: string): void {
  loaded.delete(file);
  rmSync(file, { force: true });
}
