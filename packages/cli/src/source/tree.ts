// Reading and writing a source folder as a SourceFiles map.
import { readFileSync } from 'node:fs';
import { lstat, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { inLayout, LAYOUT_PATHS, type SourceFiles } from './layout.js';
import { ioReason, realLocation, writeFolder } from '../lib/write.js';
import { linkProblem, specialKind } from '../lib/files.js';

const SKIP_DIRS = new Set(['node_modules']);

/** A source folder as read: its files, and the linked files left unread because they lead out. */
export interface SourceTree {
  files: SourceFiles;
  /** Path in the folder → where its link leads (a real path outside `boundary`). */
  outside: Map<string, string>;
  /**
   * Path in the folder → why its link cannot be read (files.ts's linkProblem: it leads to nothing,
   * or round in a loop). Each is build's error, never a file left out without a word.
   */
  broken: Map<string, string>;
  /**
   * Path in the folder → why it is not read: it is a pipe, a socket or a device (or a link to one),
   * not a file (specialKind). Reading one could wait forever or never end; each is build's error,
   * never a file left out without a word. Only paths build reads or would read (the layout's) are here.
   */
  special: Map<string, string>;
  /** The repository holding the folder (the nearest folder above it with a `.git`), else the folder. */
  boundary: string;
  /** Whether `boundary` is a repository (true) or the source folder itself. */
  repository: boolean;
}

/**
 * Reads every file below `root` (files and folders starting with a dot, and `node_modules`, skipped). A symbolic link counts as the
 * file it leads to (a shared logo linked into assets/, say) when that file is inside the
 * repository holding the folder, or, outside any repository, inside the folder itself. A link
 * that leads further is not read: otherwise a change that turns assets/logo.png into a link to
 * ~/.ssh/id_rsa or /proc/self/environ gets that file built into the pack a CI job publishes.
 * Linked folders are not walked. With `select`, only the folders and files it accepts (paths
 * inside the folder, `dir` telling which) are walked and read: fmt reads the JSON files and no
 * asset's bytes.
 */
export async function readTree(root: string, select?: (rel: string, dir: boolean) => boolean): Promise<SourceTree> {
  const files: SourceFiles = new Map();
  const outside = new Map<string, string>();
  const broken = new Map<string, string>();
  const special = new Map<string, string>();
  const { boundary, repository } = await boundaryOf(root);
  const inside = (real: string) => real === boundary || real.startsWith(boundary.endsWith(sep) ? boundary : boundary + sep);
  const walk = async (dir: string, prefix: string) => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      // Files and folders starting with a dot (.git, .vscode, .DS_Store, a draft saved as
      // resources/.x.json) are not part of the pack: the layout says so, and none is read.
      if (e.name.startsWith('.')) continue;
      const rel = prefix ? `${prefix}/${e.name}` : e.name;
      const abs = join(dir, e.name);
      if (select && !select(rel, e.isDirectory())) continue;
      if (e.isSymbolicLink()) {
        let real: string;
        try {
          real = await realpath(abs);
        } catch (e) {
          // A link to nothing, or round in a loop: said as validate says such a link it meets.
          broken.set(rel, linkProblem(abs, e) ?? ioReason(e));
          continue;
        }
        const target = await stat(real).catch(() => undefined);
        if (!target || target.isDirectory()) continue; // a folder: not walked
        if (!inside(real)) outside.set(rel, real);
        else if (target.isFile()) files.set(rel, bytesOf(real));
        else if (inLayout(rel)) special.set(rel, `it is a symbolic link to '${await readlink(abs)}', ${specialKind(target)}, not a file`);
      } else if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) await walk(abs, rel);
      } else if (e.isFile()) files.set(rel, bytesOf(abs));
      else if (inLayout(rel)) special.set(rel, `it is ${specialKind(e)}, not a file`);
    }
  };
  await walk(root, '');
  return { files, outside, broken, special, boundary, repository };
}

/**
 * A file's bytes, read synchronously: fs/promises' readFile is four thread-pool round trips per
 * file (open, stat, read, close), most of reading a folder of hundreds of small files, as it was of
 * a folder of packs (pack files are read the same way). A plain Uint8Array view of the Buffer, not
 * a copy.
 */
function bytesOf(path: string): Uint8Array {
  const b = readFileSync(path);
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/** The nearest folder at or above `root` (real path) holding a `.git` (a folder, or a file in a worktree); else `root`. */
async function boundaryOf(root: string): Promise<{ boundary: string; repository: boolean }> {
  const real = await realpath(root);
  for (let dir = real; ;) {
    if (
      await lstat(join(dir, '.git')).then(
        () => true,
        () => false,
      )
    )
      return { boundary: dir, repository: true };
    const up = dirname(dir);
    if (up === dir) return { boundary: real, repository: false };
    dir = up;
  }
}

/**
 * Writes a source folder (unpack, new, export), all of it or nothing (lib/write.ts's writeFolder):
 * into a folder that holds files, the layout's files and folders are replaced and nothing else is
 * touched. `shown`: the folder as an error names it.
 */
export async function writeTree(root: string, shown: string, files: SourceFiles): Promise<void> {
  await writeFolder(root, shown, files, LAYOUT_PATHS);
}

/**
 * Whether `abs`, once links are followed (it need not exist yet), is a file of the source folder
 * `root` that build reads or would read: its manifest.json or assets.json, or a file below a folder
 * of its layout. An output written there would replace an input (`build dir -o dir/manifest.json`);
 * one beside them (`dir/dist/pack.json`, `dir/out.json`) is no input.
 */
export function isSourceFile(root: string, abs: string): boolean {
  const rel = relative(realLocation(root), realLocation(abs));
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel) && inLayout(rel.split(sep).join('/'));
}

/**
 * Whether a folder a command is to write into is empty: undefined when there is nothing there to
 * list. A path that exists but cannot be listed (a file; a folder that may not be read) counts as
 * not empty; one that cannot be reached (a file above it, a name too long) as not there, and
 * writing it says why, rather than "exists and is not empty".
 */
export async function isEmptyDir(dir: string): Promise<boolean | undefined> {
  try {
    return (await readdir(dir)).length === 0;
  } catch {
    return (await stat(dir).then(
      () => true,
      () => false,
    ))
      ? false
      : undefined;
  }
}
