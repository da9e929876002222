// Reading and writing a source folder as a SourceFiles map.
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { SourceFiles } from './layout.js';

const SKIP_DIRS = new Set(['.git', 'node_modules']);

export async function readTree(root: string): Promise<SourceFiles> {
  const files: SourceFiles = new Map();
  const walk = async (dir: string, prefix: string) => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const rel = prefix ? `${prefix}/${e.name}` : e.name;
      // Symlinks count as what they point to (a shared logo linked into assets/, say).
      const target = e.isSymbolicLink() ? await stat(join(dir, e.name)).catch(() => undefined) : e;
      if (target?.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.isSymbolicLink()) await walk(join(dir, e.name), rel);
      } else if (target?.isFile()) files.set(rel, new Uint8Array(await readFile(join(dir, e.name))));
    }
  };
  await walk(root, '');
  return files;
}

/** The paths a pack source folder owns; `unpack --force` clears them before writing. */
export const LAYOUT_PATHS = ['manifest.json', 'assets.json', 'automations', 'smart-lists', 'templates', 'pipelines', 'resources', 'assets'];

export async function writeTree(root: string, files: SourceFiles, clear: boolean): Promise<void> {
  if (clear) for (const p of LAYOUT_PATHS) await rm(join(root, p), { recursive: true, force: true });
  for (const [rel, bytes] of files) {
    const abs = join(root, ...rel.split('/'));
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, bytes);
  }
}

export async function isEmptyDir(dir: string): Promise<boolean | undefined> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : false;
  }
}
