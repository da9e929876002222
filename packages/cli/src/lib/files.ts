// Turning command-line paths and globs into files, and reading them.
import {
  fstatSync,
  lstatSync,
  readFileSync,
  readlinkSync,
  readdir,
  readdirSync,
  realpath,
  realpathSync,
  stat as statCb,
  statSync,
  type Dirent,
} from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { encodingProblem, KEYED_ITEM_KINDS, utf8Problem } from '@setup-pack/core';
import { isUtf8 } from 'node:buffer';
import type { ReadAhead } from './context.js';
import { UsageError } from './errors.js';
import { ASSETS_INDEX, LAYOUT_PATHS, MANIFEST } from '../source/layout.js';
import { ioReason } from './write.js';

const GLOB_CHARS = /[*?[\]{}!]/;

/** Path as shown: relative to cwd when inside it, with / separators. */
export function displayPath(abs: string, cwd: string): string {
  // The common case, a file below the working directory on POSIX, without path.relative's work
  // (a folder of 1,000 packs asks once per file): the same answer (test: files.test.ts).
  if (sep === '/') {
    const prefix = cwd.endsWith('/') ? cwd : `${cwd}/`;
    if (abs.length > prefix.length && abs.startsWith(prefix) && !abs.endsWith('/') && !abs.includes('/.') && !abs.includes('//'))
      return abs.slice(prefix.length);
  }
  const rel = relative(cwd, abs);
  return (rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs).split(sep).join('/');
}

const statOrUndefined = (abs: string, link = false) => {
  try {
    return link ? lstatSync(abs, { throwIfNoEntry: false }) : statSync(abs, { throwIfNoEntry: false });
  } catch {
    return undefined; // not readable: said as a path that does not exist, as before
  }
};

/**
 * Why a folder a command is to write into (`new`, `unpack`, `export -o dir/`) cannot be one: it is
 * a file, or below one (`pack.json/sub/`); undefined when it is a folder or does not exist yet.
 * `shown` is the path as the user gave it. Asked before whether the folder is empty, which for a
 * file would say "exists and is not empty".
 */
export function notAFolder(dir: string, shown: string, cwd: string): string | undefined {
  const st = statOrUndefined(dir);
  if (st) return st.isDirectory() ? undefined : `'${shown}' is ${st.isFile() ? 'a file' : 'there'}, not a folder`;
  for (let up = dirname(dir); ; up = dirname(up)) {
    const above = statOrUndefined(up);
    if (above)
      return above.isDirectory()
        ? undefined
        : `'${shown}' is below '${displayPath(up, cwd)}', which is ${above.isFile() ? 'a file' : 'there'}, not a folder`;
    if (dirname(up) === up) return undefined;
  }
}

/** The text after a UTF-8 byte order mark, which a pack file or a source file may start with (build reads past it). */
const withoutBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/**
 * What `dir`'s manifest.json makes of it: `'source'`, a pack source folder (a manifest whose item
 * lists are lists of keys); `'maybe'`, one whose manifest is being edited (see mayBeSourceFolder);
 * `'missing'`, one that lost its manifest (manifestMissing: build says it is missing);
 * undefined, neither. The manifest is read once, and synchronously, as validate reads its files
 * (fs/promises is not loaded for it): every folder a command's files are in is asked this.
 */
function sourceFolderKind(dir: string): 'source' | 'maybe' | 'missing' | undefined {
  let text: string;
  try {
    text = withoutBom(readFileSync(resolve(dir, 'manifest.json'), 'utf8'));
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' && manifestMissing(dir) ? 'missing' : undefined;
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    manifest = undefined;
  }
  if (
    isObject(manifest) &&
    manifest.format === 'service.setup-pack' &&
    !('assets' in manifest) &&
    KEYED_ITEM_KINDS.every(
      (k) => manifest[k] === undefined || (Array.isArray(manifest[k]) && (manifest[k] as unknown[]).every((v) => typeof v === 'string')),
    )
  )
    return 'source';
  if (!LAYOUT_ENTRIES.some((e) => statOrUndefined(resolve(dir, e)) !== undefined)) return undefined;
  if (manifest === undefined) return 'maybe'; // does not parse yet
  // A manifest that parses must say it is ours: a web app's manifest.json beside an assets/
  // folder (a PWA's public/ folder) is not a pack source folder, and neither are the packs below it.
  if (!isObject(manifest) || manifest.format !== 'service.setup-pack') return undefined;
  return !Array.isArray(manifest.assets) &&
    KEYED_ITEM_KINDS.every(
      (k) => !Array.isArray(manifest[k]) || (manifest[k] as unknown[]).every((v) => v === null || typeof v !== 'object'),
    )
    ? 'maybe'
    : undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The layout's entries that only a source folder holds: its JSON folders (automations/, …) and assets.json (an assets/ folder alone is any web app's). */
const SOURCE_ONLY_ENTRIES = LAYOUT_PATHS.filter((p) => p !== MANIFEST && p !== 'assets');

/**
 * Whether `dir`, which has no manifest.json, is a source folder that lost it: it holds the
 * layout's JSON folders or assets.json, and the JSON files read in them are source files, not
 * packs. A folder of packs sorted into folders named as the layout's (`packs/templates/`) is not
 * one: a pack among the first few JSON files of such a folder says so. A few files are read, only
 * for a folder without a manifest that holds one of those folders.
 */
function manifestMissing(dir: string): boolean {
  let sources = 0;
  const read = (abs: string): unknown => {
    try {
      return JSON.parse(withoutBom(readFileSync(abs, 'utf8')));
    } catch {
      return undefined; // unreadable or not JSON yet: says nothing either way
    }
  };
  for (const entry of SOURCE_ONLY_ENTRIES) {
    const abs = resolve(dir, entry);
    const st = statOrUndefined(abs);
    if (!st) continue;
    if (entry === ASSETS_INDEX) {
      if (Array.isArray(read(abs))) sources++;
      continue;
    }
    if (!st.isDirectory()) continue;
    let names: string[];
    try {
      names = readdirSync(abs)
        .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
        .sort();
    } catch {
      continue;
    }
    for (const name of names.slice(0, 3)) {
      const value = read(resolve(abs, name));
      if (isObject(value) && value.format === 'service.setup-pack') return false;
      if (value !== undefined) sources++;
    }
  }
  return sources > 0;
}

/** Is `dir` a pack source folder: a manifest.json whose item lists are lists of keys? */
export async function isSourceFolder(dir: string): Promise<boolean> {
  return sourceFolderKind(dir) === 'source';
}

/** The files and folders a pack source folder may hold beside its manifest (the layout's). */
const LAYOUT_ENTRIES = LAYOUT_PATHS.filter((p) => p !== MANIFEST);

/**
 * Is `dir` a pack source folder, or one whose manifest is being edited: a manifest.json that does
 * not parse yet, or is not a pack with items (its item lists hold no object), beside at least one
 * of the layout's other files or folders, or no manifest.json beside the layout's source files
 * (it was deleted: manifestMissing). Every command that finds source folders among its
 * arguments (validate, fix, fmt) asks this rather than isSourceFolder: a folder whose manifest has
 * a typo is still a source folder, and its files (a JSON asset's bytes above all) must not be
 * taken for packs. validate and build then report the manifest's problem in manifest.json.
 */
export async function mayBeSourceFolder(dir: string): Promise<boolean> {
  return sourceFolderKind(dir) !== undefined;
}

/**
 * The pack source folder holding a file (the nearest folder above it that `isFolder` accepts), or
 * undefined. A file belongs to that folder when it is at its top (manifest.json, a README) or below
 * one of the layout's folders (automations/, assets/, …); a file in any other folder below it
 * (a pack built into dist/, a packs/ folder beside the layout) is no part of it, and is a pack.
 * The search goes up no further than the file's project (searchStopsAt): a manifest.json above it
 * (in a home folder, a scratch folder, a folder a repository was cloned into) does not capture it.
 * Each folder is asked once however many files are in it or below it: the answer for a folder is
 * kept, and a walk up stops at the first folder already answered, so a folder of 1,000 packs costs
 * one question per folder above them, not one per pack.
 */
export function sourceFolderOf(
  cwd: string,
  isFolder: (dir: string) => Promise<boolean> = mayBeSourceFolder,
): (abs: string) => Promise<string | undefined> {
  const known = new Map<string, string | null>();
  const stopsAt = searchStopsAt(cwd);
  const enclosing = async (dir: string): Promise<string | undefined> => {
    const answer = known.get(dir);
    if (answer !== undefined) return answer ?? undefined;
    const up = dirname(dir);
    const found = (await isFolder(dir)) ? dir : up === dir || stopsAt(dir) ? undefined : await enclosing(up);
    known.set(dir, found ?? null);
    return found;
  };
  return async (abs) => {
    const root = await enclosing(dirname(abs));
    return root !== undefined && belongsTo(root, abs) ? root : undefined;
  };
}

const holdsGit = (dir: string) => statOrUndefined(resolve(dir, '.git'), true) !== undefined;

/**
 * Where the search for the source folder holding a file stops (the folder is searched, none above
 * it): the repository holding the file (the nearest folder with a `.git`, a folder or a worktree's
 * file: the boundary links are held to, source/tree.ts), or, when no repository holds it, the working
 * directory, or for a file outside it the nearest folder above both. So `cd packs/buyer/automations
 * && setup-pack validate welcome.json` finds packs/buyer inside a repository, and a stray
 * manifest.json above the repository, or above the working directory outside one, captures nothing.
 * Each folder's answer is asked once.
 */
function searchStopsAt(cwd: string): (dir: string) => boolean {
  const repository = new Map<string, boolean>();
  /** Whether `dir` or a folder above it holds a .git. */
  const inRepository = (dir: string): boolean => {
    let answer = repository.get(dir);
    if (answer === undefined) {
      const up = dirname(dir);
      answer = holdsGit(dir) || (up !== dir && inRepository(up));
      repository.set(dir, answer);
    }
    return answer;
  };
  const atOrAboveCwd = (dir: string) => dir === cwd || cwd.startsWith(dir.endsWith(sep) ? dir : dir + sep);
  return (dir) => holdsGit(dir) || (atOrAboveCwd(dir) && !inRepository(dir));
}

/**
 * Why a path named cannot be read, when stat finds nothing there: no such file, or a link that
 * leads to none or round in a loop (said as such, not as a file that does not exist), or the file
 * system's reason (permission denied on a folder above it).
 */
function whyNotThere(abs: string): string {
  try {
    statSync(abs);
  } catch (e) {
    return linkProblem(abs, e) ?? ioReason(e);
  }
  return 'no such file or directory';
}

/** What a directory entry that is no file, folder or link is, in words: `a named pipe (FIFO)`, `a socket`, a device. */
export function specialKind(e: { isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (e.isFIFO()) return 'a named pipe (FIFO)';
  if (e.isSocket()) return 'a socket';
  if (e.isCharacterDevice()) return 'a character device';
  if (e.isBlockDevice()) return 'a block device';
  return 'an entry of another kind';
}

/** Whether a directory entry or a stat is a pipe, a socket or a device: no file, folder or link. */
const isSpecial = (e: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }) =>
  !e.isFile() && !e.isDirectory() && !e.isSymbolicLink();

/** When `e`, met opening `abs`, is a link's fault: a link that leads to nothing, or round in a loop, said as such. */
export function linkProblem(abs: string, e: unknown): string | undefined {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code === 'ELOOP') return 'it is a symbolic link that leads round in a loop';
  if (code !== 'ENOENT' || !statOrUndefined(abs, true)?.isSymbolicLink()) return undefined;
  try {
    return `it is a symbolic link to '${readlinkSync(abs)}', which does not exist`;
  } catch {
    return undefined; // gone since: said as missing
  }
}

/** Whether a file below the source folder `root` is part of it: at its top, or below one of the layout's folders. */
function belongsTo(root: string, abs: string): boolean {
  const rel = abs.slice(root.endsWith(sep) ? root.length : root.length + 1);
  const slash = rel.indexOf(sep);
  return slash < 0 || LAYOUT_ENTRIES.includes(rel.slice(0, slash));
}

/** Whether a file is part of the nearest of `folders` (source folders) above it; one look-up per folder above it. */
function partOfAny(abs: string, folders: ReadonlySet<string>): boolean {
  for (let dir = dirname(abs); ;) {
    if (folders.has(dir)) return belongsTo(dir, abs);
    const up = dirname(dir);
    if (up === dir) return false;
    dir = up;
  }
}

export interface InputEntry {
  type: 'file' | 'source-folder';
  abs: string;
  /**
   * Why the file is not read (readText's `notAFile`): a directory walk or a glob met it, and it is
   * a pipe, a socket or a device, or a link to one. Named on the command line such a file is read
   * as the file it streams (`validate <(generate-pack)`); met by a walk it is not (a FIFO no program
   * writes would be waited on for ever), and is said to be a file that cannot be read rather than
   * left out.
   */
  notAFile?: string;
}

/**
 * Expands files, directories (every *.json below, node_modules skipped; pack source folders
 * become one entry each) and globs, in argument order without duplicates. A path that does not
 * exist or a glob that matches nothing is a usage error, so a typo in CI never passes as
 * "0 files, no errors".
 *
 * `ignore` (validate's --ignore) are globs relative to the working directory, as ESLint's and
 * Prettier's are, whatever the input: a directory walked, a glob, a file named (skipped without a
 * word: a pre-commit hook passes every changed file), or a source folder given (skipped when its
 * manifest.json is). A directory or glob left with no file says --ignore took them.
 */
export async function expandEntries(
  inputs: readonly string[],
  cwd: string,
  ignore: readonly string[] = [],
  options: { sourceFolders?: boolean | ((dir: string) => Promise<boolean>); wholeFolders?: boolean } = {},
): Promise<InputEntry[]> {
  const ask = typeof options.sourceFolders === 'function' ? options.sourceFolders : mayBeSourceFolder;
  const asked = new Map<string, Promise<boolean>>();
  const isFolder = (dir: string) => {
    let answer = asked.get(dir);
    if (!answer) asked.set(dir, (answer = ask(dir)));
    return answer;
  };
  const out: InputEntry[] = [];
  const seen = new Map<string, InputEntry>();
  const x: Expansion = {
    cwd,
    ignore,
    isFolder,
    sourceFolders: !!options.sourceFolders,
    linksMet: false,
    ignored: ignore.length ? ignoredBy(ignore, cwd) : undefined,
    // validate and fix: a file inside a source folder (named, matched by a glob, or found in a
    // directory that is part of one) stands for the folder, which is checked or fixed once as a
    // whole; none of its files is read as a pack. The question is asked once per folder.
    folderOf: options.sourceFolders && options.wholeFolders ? sourceFolderOf(cwd, isFolder) : undefined,
    add: (type, abs, notAFile) => {
      const known = seen.get(abs);
      if (!known) {
        const entry: InputEntry = notAFile === undefined ? { type, abs } : { type, abs, notAFile };
        seen.set(abs, entry);
        out.push(entry);
      } else if (notAFile !== undefined) known.notAFile ??= notAFile; // met by a walk too: not read, wherever it was named
    },
  };
  for (const input of inputs) await expandInput(x, input);
  // Two arguments that reach one file, one of them through a link a walk followed (`validate
  // shared a` with shared/alias -> ../a): the file is read once, under the first name.
  return x.linksMet ? onceEach(out) : out;
}

/** What expanding the arguments of one command shares. */
interface Expansion {
  cwd: string;
  ignore: readonly string[];
  ignored: ((abs: string) => Promise<boolean>) | undefined;
  sourceFolders: boolean;
  isFolder: (dir: string) => Promise<boolean>;
  folderOf: ((file: string) => Promise<string | undefined>) | undefined;
  /** An entry, once per path, in the order met. */
  add: (type: InputEntry['type'], abs: string, notAFile?: string) => void;
  /** Whether a walk followed a link (entries may then reach one file twice). */
  linksMet: boolean;
}

/** One argument: a file (or what is read as one), a directory or a source folder walked, or a glob. */
async function expandInput(x: Expansion, input: string): Promise<void> {
  const abs = resolve(x.cwd, input);
  // Synchronous, as the files are read: one call per argument, and fs/promises is not loaded
  // by a run that has no other use for it (scripts/bundle-cli.mjs, LAZY_BUILTINS).
  const st = statOrUndefined(abs);
  // A file, or what is read as one: a pipe (`validate <(…)`, a FIFO) or a device (`/dev/stdin`).
  if (st && !st.isDirectory()) {
    if (await x.ignored?.(abs)) return;
    const root = await x.folderOf?.(abs);
    if (root !== undefined) x.add('source-folder', root);
    else x.add('file', abs);
    return;
  }
  const isDir = st?.isDirectory() ?? false;
  if (!isDir && !GLOB_CHARS.test(input)) throw new UsageError(`cannot read '${input}': ${whyNotThere(abs)}`);
  // A source folder named: checked as one, and the packs below it outside its layout (a pack
  // built into dist/, a repository's packs beside a root that is a source folder) are read on,
  // by a walk that skips the layout's own folders.
  const layoutRoot = isDir && x.sourceFolders && (await x.isFolder(abs));
  const rootAdded = layoutRoot && !(await x.ignored?.(resolve(abs, MANIFEST)));
  if (rootAdded) x.add('source-folder', abs);
  const search = await searcher(x, input, abs, isDir, layoutRoot);
  const { matches, notFiles } = await walkMatches(x, search);
  // A source folder that lost its manifest.json has no JSON file outside its layout: it is the one entry.
  if (!matches.length && rootAdded) return;
  if (!matches.length) {
    const what = isDir ? `.json files in '${input}'` : `files matching '${input}'`;
    if (x.ignored && (await search([])).found.length) throw new UsageError(`all ${what} are ignored (--ignore)`);
    throw new UsageError(isDir ? `no .json files in '${input}'` : `no files match '${input}'`);
  }
  const { folders, files } = await foldersAmong(x, matches, isDir);
  for (const f of [...folders].sort()) x.add('source-folder', f);
  for (const m of files.sort()) x.add('file', m, notFiles.get(m));
}

type Search = (
  ignoring: readonly string[],
  brokenAsFiles?: ReadonlySet<string>,
) => Promise<{ found: string[]; links: string[]; broken: string[]; special: Map<string, string> }>;

/** The walk of a directory or glob: the .json files it reaches, and the links and other entries it met. */
async function searcher(x: Expansion, input: string, abs: string, isDir: boolean, layoutRoot: boolean): Promise<Search> {
  const { glob, convertPathToPattern } = await import('tinyglobby');
  // A directory is walked from itself, node_modules skipped below it; with --ignore patterns,
  // which are relative to the working directory, from there (the same files, matched by the
  // directory's path: `g/**/*.json`, or `../g/**/*.json` outside it).
  const dirPattern = isDir && x.ignored ? convertPathToPattern(relative(x.cwd, abs)) : '';
  return (ignoring, brokenAsFiles) => {
    const walk = linkWatchingFs(brokenAsFiles);
    const patterns = !isDir ? [input.split(sep).join('/')] : dirPattern ? [`${dirPattern}/**/*.json`] : ['**/*.json'];
    const skip = [dirPattern ? `${dirPattern}/**/node_modules/**` : '**/node_modules/**', ...ignoring];
    if (layoutRoot) skip.push(...LAYOUT_ENTRIES.map((e) => `${dirPattern ? `${dirPattern}/` : ''}${e}/**`));
    // tinyglobby's absolute paths use /; elsewhere than POSIX they are made native.
    return glob(patterns, {
      cwd: isDir && !x.ignored ? abs : x.cwd,
      absolute: true,
      onlyFiles: true,
      ignore: skip,
      expandDirectories: false,
      fs: walk.fs,
    }).then((found) => ({
      found: sep === '/' ? found : found.map((m) => resolve(m)),
      links: walk.links,
      broken: walk.broken,
      special: walk.special,
    }));
  };
}

/** What a walk matched, with the entries it met that are not files said, once per real file. */
async function walkMatches(x: Expansion, search: Search): Promise<{ matches: string[]; notFiles: Map<string, string> }> {
  const { found, links, broken, special } = await search(x.ignore);
  let matches = found;
  // A link the walk met that leads nowhere or round in a loop is no file it can take, but one the
  // pattern names (`packs/x.json -> ../gone.json`): kept, so that reading it says what it is
  // (exit 2), rather than left out without a word. So is a pipe, a socket or a device the walk
  // met (the walk takes none for a file). The walk is asked again, taking those for files, to
  // know which of them the pattern, --ignore and node_modules leave.
  const foundSet = new Set(found);
  const unfound = [...broken, ...[...special.keys()].filter((p) => !foundSet.has(p))];
  if (unfound.length) {
    const asFiles = new Set(unfound.map((b) => resolve(b)));
    const named = (await search(x.ignore, asFiles)).found.filter((m) => asFiles.has(resolve(m)));
    if (named.length) matches = [...matches, ...named];
  }
  // A pipe (or a link to one) the walk kept is said, when read, not to be read: never waited on.
  const notFiles = new Map<string, string>();
  for (const m of matches) {
    const why = special.get(resolve(m));
    if (why !== undefined) notFiles.set(m, `${why}, and a directory or a glob reads only files; name it to read what it streams`);
  }
  if (links.length) {
    matches = oncePerRealFile(matches, links);
    x.linksMet = true;
  }
  return { matches, notFiles };
}

/** The source folders among a walk's matches (each once) and the files read as packs. */
async function foldersAmong(x: Expansion, matches: string[], isDir: boolean): Promise<{ folders: Set<string>; files: string[] }> {
  const folders = new Set<string>();
  if (x.folderOf) {
    const plain: string[] = [];
    for (const m of matches) {
      const root = await x.folderOf(m);
      if (root === undefined) plain.push(m);
      else folders.add(root);
    }
    return { folders, files: plain };
  }
  if (isDir && x.sourceFolders) {
    // fmt: source folders below the directory are formatted as folders, not file by file as packs.
    for (const m of matches) if (m.endsWith(`${sep}manifest.json`) && (await x.isFolder(dirname(m)))) folders.add(dirname(m));
    if (folders.size) return { folders, files: matches.filter((m) => !partOfAny(m, folders)) };
  }
  return { folders, files: matches };
}

/**
 * Whether a file is matched by `patterns`, globs relative to `cwd`: asked of files named on the
 * command line, with the matcher the walks use (tinyglobby's), so a pattern means the same for a
 * file named and a file found. One look at the file's folder per file named.
 */
function ignoredBy(patterns: readonly string[], cwd: string): (abs: string) => Promise<boolean> {
  return async (abs) => {
    const { glob, convertPathToPattern } = await import('tinyglobby');
    const found = await glob([convertPathToPattern(relative(cwd, abs))], {
      cwd,
      onlyFiles: true,
      ignore: [...patterns],
      expandDirectories: false,
    });
    return found.length === 0;
  };
}

function onceEach(entries: InputEntry[]): InputEntry[] {
  const seen = new Set<string>();
  return entries.filter((e) => {
    let real = e.abs;
    try {
      real = realpathSync(e.abs);
    } catch {
      // Gone since the walk: kept, and reading it will say why.
    }
    if (seen.has(real)) return false;
    seen.add(real);
    return true;
  });
}

/**
 * The file system the glob walks, noting every symbolic link it resolves, and those it cannot
 * (`broken`: a link to nothing, a loop of links), which `brokenAsFiles` makes it take for files. The walk follows links
 * (a shared folder linked in is read), and asks `realpath` only of links, so a tree without
 * any costs nothing more; a tree with some says which paths may be a file seen twice.
 */
function linkWatchingFs(brokenAsFiles?: ReadonlySet<string>) {
  const links: string[] = [];
  const broken: string[] = [];
  // A pipe, a socket or a device met (path, resolved), or a link to one: what it is, in words.
  const special = new Map<string, string>();
  const watched: typeof realpath = ((path: string, ...rest: unknown[]) => {
    const callback = rest[rest.length - 1] as (error: NodeJS.ErrnoException | null, resolved: string) => void;
    if (brokenAsFiles?.has(resolve(path))) return callback(null, path);
    realpath(path, (error, resolved) => {
      if (!error) {
        links.push(path);
        // One more stat for a link (links are few): what it leads to, when that is no file or folder.
        const target = statOrUndefined(resolved);
        if (target && isSpecial(target))
          special.set(resolve(path), `it is a symbolic link to '${readlinkSync(path)}', ${specialKind(target)}`);
      } else if (error.code === 'ENOENT' || error.code === 'ELOOP') broken.push(path);
      callback(error, resolved);
    });
  }) as typeof realpath;
  // The walk's listing of a folder: a pipe, a socket or a device in it is noted (the walk takes
  // none for a file), and one in `brokenAsFiles` is shown as a file (the second walk).
  const listing = ((path: string, options: unknown, callback: (error: NodeJS.ErrnoException | null, entries: Dirent[]) => void) => {
    (readdir as (p: string, o: unknown, cb: (error: NodeJS.ErrnoException | null, entries: Dirent[]) => void) => void)(
      path,
      options,
      (error, entries) => {
        if (error || !Array.isArray(entries)) return callback(error, entries);
        callback(
          null,
          entries.map((e) => {
            if (typeof e !== 'object' || !isSpecial(e)) return e;
            const at = resolve(path, e.name);
            special.set(at, `it is ${specialKind(e)}`);
            return brokenAsFiles?.has(at) ? Object.assign(Object.create(e) as Dirent, { isFile: () => true }) : e;
          }),
        );
      },
    );
  }) as unknown as typeof readdir;
  // A link that leads nowhere, taken for a file (the second walk of expandEntries).
  const stat = ((path: string, ...rest: unknown[]) => {
    const callback = rest[rest.length - 1] as (error: NodeJS.ErrnoException | null, st?: unknown) => void;
    if (brokenAsFiles?.has(resolve(path)))
      return callback(null, { isFile: () => true, isDirectory: () => false, isSymbolicLink: () => false });
    (statCb as (p: string, cb: (error: NodeJS.ErrnoException | null, st?: unknown) => void) => void)(path, callback);
  }) as typeof statCb;
  return { links, broken, special, fs: { readdir: listing, readdirSync, realpath: watched, realpathSync, stat, statSync } };
}

/**
 * Each file once, however many linked paths lead to it: a folder linked twice (`current ->
 * v2`) or a link back up (`a/up -> ..`, which the walk follows one level) otherwise validates
 * one file under several names and counts it as several. The path kept is the one that goes
 * through no link when there is one, else the first in order. Runs only for a walk that met a
 * link, so resolving every path costs nothing in the common case.
 */
function oncePerRealFile(matches: string[], links: readonly string[]): string[] {
  const linked = new Set(links);
  const below = links.map((l) => (l.endsWith(sep) ? l : l + sep));
  const throughLink = (m: string) => linked.has(m) || below.some((l) => m.startsWith(l));
  const ordered = [...matches].sort((a, b) => Number(throughLink(a)) - Number(throughLink(b)) || (a < b ? -1 : a > b ? 1 : 0));
  const seen = new Set<string>();
  const kept = new Set<string>();
  for (const m of ordered) {
    let real = m;
    try {
      real = realpathSync(m);
    } catch {
      // Gone since the walk: kept under its own name, and reading it will say why.
    }
    if (!seen.has(real)) {
      seen.add(real);
      kept.add(m);
    }
  }
  return matches.filter((m) => kept.has(m));
}

/**
 * Reads a text file; the error is a one-line reason (no such file, permission denied, ...).
 * `notAFile` (an InputEntry's): the file is not to be read, and why (a pipe a walk met).
 * Synchronous underneath: fs/promises' readFile costs four thread-pool round trips per file (open,
 * fstat, read, close), which is most of the time on a folder of 1,000 small packs, and the
 * validation that follows blocks the thread anyway. A file the binary began to read while the
 * command loaded (`ahead`: bin/setup-pack.js) is taken from there, once; a read-ahead that fell
 * short leaves the file to be read here.
 */
export async function readText(abs: string, ahead?: ReadAhead, notAFile?: string): Promise<{ text: string } | { error: string }> {
  if (notAFile !== undefined) return { error: `cannot read the file: ${notAFile}` };
  try {
    const early = ahead?.get(abs);
    ahead?.delete(abs);
    const bytes = early && (await early);
    if (!bytes) return decodeText(readFileSync(abs), 'the file');
    const text = decodeText(bytes, 'the file');
    // The buffer was made before the command loaded, so V8 has moved it among the old objects,
    // which a run this short never collects: its memory (the file's size) would stay held to the
    // end. Moved to a new object by a transfer, it goes with the next minor collection.
    try {
      structuredClone(bytes.buffer, { transfer: [bytes.buffer as ArrayBuffer] });
    } catch {
      // not transferable: the memory is held a while longer, and nothing else changes
    }
    return text;
  } catch (e) {
    return { error: `cannot read the file: ${linkProblem(abs, e) ?? readFailure(e)}` };
  }
}

/** Why a read failed, in a few words: write.ts's reasons, a missing input being a missing file. */
function readFailure(e: unknown): string {
  return (e as NodeJS.ErrnoException)?.code === 'ENOENT' ? 'no such file' : ioReason(e);
}

/**
 * Reads all of stdin as pack text, or says why it cannot be read. A directory as stdin (`validate
 * --stdin < somedir`) reads as no bytes at all through the stream, which would be reported as an
 * empty pack: it is asked first.
 */
export async function readStdin(stream: AsyncIterable<unknown> = process.stdin): Promise<{ text: string } | { error: string }> {
  try {
    if (fstatSync(0).isDirectory()) return { error: 'cannot read stdin: is a directory' };
  } catch {
    // No descriptor 0 to ask about: the stream's own read says what is wrong.
  }
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
  } catch (e) {
    return { error: `cannot read stdin: ${readFailure(e)}` };
  }
  return decodeText(Buffer.concat(chunks), 'stdin');
}

/**
 * Pack bytes as text: decoded as UTF-8, or, for a file in another encoding, why not (core's
 * encodingProblem names it from the first bytes, before anything is decoded). `what` is what the
 * reason says could not be read (the file, stdin).
 */
export function decodeText(bytes: Buffer, what: string): { text: string } | { error: string } {
  const why = encodingProblem(bytes.subarray(0, 4));
  if (why) return { error: `cannot read ${what}: ${why}` };
  // Bytes that are not UTF-8 (a pack saved as Latin-1) would decode to U+FFFD: the pack would
  // validate with its names changed, and fmt would write the change back. isUtf8 costs about 1 ms
  // for 20 MB; the line is looked for only when it fails.
  if (!isUtf8(bytes)) return { error: `cannot read ${what}: ${utf8Problem(bytes)}` };
  return { text: bytes.toString('utf8') };
}

/** Runs `fn` over `items` with at most `limit` in flight, keeping the result order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
