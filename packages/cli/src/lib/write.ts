// Writing what a command makes (a pack, a report, a source folder's files) so that a write that
// fails part-way (a full disk, a read-only mount, a folder that is not writable) changes nothing
// and leaves nothing behind: docs/cli.md's "nothing is written". Every command that writes or
// rewrites a file goes through here.
import {
  access,
  chmod,
  mkdir,
  open,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  rmdir,
  stat,
  writeFile,
  type FileHandle,
} from 'node:fs/promises';
import { constants, fstatSync, realpathSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Output } from './context.js';
import { WriteError } from './errors.js';

/** What a file holds: text (written as UTF-8), bytes, or a writer that streams it (validate's report). */
export type Content = string | Uint8Array | ((out: Output) => Promise<void>);

export interface FileWrite {
  abs: string;
  content: Content;
  /** The path as an error names it (as the user gave it, or displayPath). */
  shown: string;
  /**
   * What the file held when the command read it (its bytes, or its text as decoded: UTF-8, a byte
   * order mark allowed), for a file rewritten in place (fmt, fix). It is replaced only if it still
   * holds that: one changed since (an editor saved it, another run wrote it) is refused, and keeps
   * what it holds now.
   */
  readAs?: Uint8Array | string;
}

/** Why a file rewritten in place (FileWrite.readAs) is refused. */
export const CHANGED_SINCE_READ = 'it changed since setup-pack read it, and was left as it is now: run the command again';

/** A failure's reason in a few words, for `cannot write '<path>': <reason>` (and fmt's `cannot read the source folder: …`). */
export function ioReason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  return REASONS[err?.code ?? ''] ?? String(err?.message ?? e);
}

const REASONS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  ENAMETOOLONG: 'file name too long',
  EEXIST: 'already exists',
  EIO: 'input/output error',
};

let serial = 0;
/**
 * A name beside `name` that no command reads: it starts with a dot, as every file a source folder
 * ignores. Only the start of `name` is kept, so a name the file system takes makes one it takes too.
 */
const tempName = (name: string) => `.${name.slice(0, 40)}.setup-pack-${process.pid}-${++serial}.tmp`;

const statOrUndefined = (abs: string) => stat(abs).catch(() => undefined);

const notADirectory = () => Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });

/**
 * Creates `dir` and the folders above it that are missing, returning the topmost one created (to
 * remove on failure), or undefined when none was. One folder at a time, from the nearest that
 * exists down, stopping at the first that cannot be made: not mkdir's `recursive`, which in Node
 * 20 loops for ever on a folder refused with ENOENT below one that exists (`/proc/nope/x`: it
 * makes `/proc`, which is there, and tries `/proc/nope` again). A failure part-way removes what
 * this made.
 */
async function makeParents(dir: string): Promise<string | undefined> {
  const missing: string[] = [];
  for (let p = resolve(dir); ;) {
    const st = await stat(p).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return undefined;
      throw e;
    });
    if (st) {
      // A file where a folder should be: said as such, not as the file that "already exists".
      if (!st.isDirectory()) throw notADirectory();
      break;
    }
    missing.push(p);
    const up = dirname(p);
    if (up === p) break;
    p = up;
  }
  let top: string | undefined;
  try {
    for (const p of missing.reverse()) {
      try {
        await mkdir(p);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        // Made meanwhile by someone else: a folder will do, a file will not.
        if (!(await stat(p)).isDirectory()) throw notADirectory();
        continue;
      }
      top ??= p;
    }
  } catch (e) {
    if (top) await rm(top, { recursive: true, force: true }).catch(() => {});
    throw e;
  }
  return top;
}

/**
 * Writes files so that a failure changes none of them: each is written whole into a temporary file
 * beside it (with the mode and owner of the file it replaces; writeTemp), and only once
 * every one is written are they renamed over their targets, a rename replacing a file at once. A
 * target that is a symbolic link is written where the link leads, and stays a link. Folders above
 * a target are created (`-o dist/pack.json`) unless `createFolders` is false. On failure the temporary files and the folders
 * created are removed, and WriteError names the file.
 */
export async function writeFiles(writes: readonly FileWrite[], options: { createFolders?: boolean } = {}): Promise<void> {
  const done: { temp: string; target: string; shown: string; readAs?: Uint8Array | string }[] = [];
  const through: { target: string; st: Stats; content: Content; shown: string }[] = [];
  const created: string[] = [];
  let current = '';
  try {
    for (const w of writes) {
      current = w.shown;
      // `-o dist/` names a folder: resolving drops the slash, and the file would be called dist.
      if (/[\\/]$/.test(w.shown)) throw new Error('it names a folder (it ends with /); give a file');
      const target = await realpath(w.abs).catch(() => w.abs);
      const st = await statOrUndefined(target);
      if (st?.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
      // A device, a pipe or a socket (`-o /dev/stdout`, `/dev/null`, a FIFO) is written into, as a
      // shell's > writes into it: a file renamed over it would replace the node itself (as root,
      // /dev/null or /dev/stdout made a regular file for every program) and write nothing where it
      // leads. Written last, once every file is in place; nothing of it can be taken back.
      if (st && !st.isFile()) {
        through.push({ target, st, content: w.content, shown: w.shown });
        continue;
      }
      // Renaming over a file needs only its folder to be writable: a file the user may not write
      // is refused as writing it in place would be.
      if (st) await access(target, constants.W_OK);
      const top = options.createFolders === false ? undefined : await makeParents(dirname(target));
      if (top) created.push(top);
      const temp = join(dirname(target), tempName(basename(target)));
      await writeTemp(temp, w.content, st);
      done.push({ temp, target, shown: w.shown, readAs: w.readAs });
    }
    // Last, just before the renames (each replaces its file at once): a file rewritten in place that
    // another program changed since the command read it is not overwritten, and nor is any other
    // file of this write.
    for (const d of done) {
      if (d.readAs === undefined) continue;
      current = d.shown;
      if (!(await holds(d.target, d.readAs))) throw new Error(CHANGED_SINCE_READ);
    }
    for (const d of done) {
      current = d.shown;
      await rename(d.temp, d.target);
      d.temp = '';
    }
    for (const t of through) {
      current = t.shown;
      await writeThrough(t.target, t.st, t.content);
    }
  } catch (e) {
    await Promise.all(done.flatMap((d) => (d.temp ? [rm(d.temp, { force: true }).catch(() => {})] : [])));
    for (const dir of created.reverse()) await rm(dir, { recursive: true, force: true }).catch(() => {});
    // A file is opened only to be created, so a missing path is a missing folder.
    throw new WriteError(current, (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : ioReason(e));
  }
}

/** One file, as writeFiles writes it; `readAs`: see FileWrite. */
export function writeFileSafely(
  abs: string,
  shown: string,
  content: Content,
  options?: { createFolders?: boolean; readAs?: Uint8Array | string },
): Promise<void> {
  return writeFiles([{ abs, shown, content, readAs: options?.readAs }], options);
}

/** Whether the file at `abs` holds `was` now: the same bytes, or (text) the same text in UTF-8, after a byte order mark if it has one. */
async function holds(abs: string, was: Uint8Array | string): Promise<boolean> {
  const now = await readFile(abs).catch(() => undefined);
  if (!now) return false; // gone, or no longer readable
  if (typeof was !== 'string') return now.equals(was);
  const text = now[0] === 0xef && now[1] === 0xbb && now[2] === 0xbf ? now.subarray(3) : now;
  return text.equals(Buffer.from(was, 'utf8'));
}

/**
 * Writes `content` into a new file `temp` (never an existing one). Given the file it will replace
 * (`was`), it takes that file's mode, and owner when the process may set it, and is flushed to disk
 * first: renamed over the old file before its bytes are on disk, it can be found empty after a
 * crash, the old bytes gone. A file that replaces none (a report or pack written for the first
 * time, as in CI) is not flushed: a crash loses nothing it held (3 ms a file on these machines).
 * On failure the temporary file is removed.
 */
async function writeTemp(temp: string, content: Content, was: Stats | undefined): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(temp, 'wx', was ? was.mode & 0o7777 : 0o666);
    if (was) {
      await fh.chmod(was.mode & 0o7777); // open's mode went through the umask
      await fh.chown(was.uid, was.gid).catch(() => {}); // when the process may (root; or a group it is in)
    }
    if (typeof content === 'function') await streamInto(fh, content);
    else await fh.writeFile(content);
    if (was) await fh.datasync();
    const closing = fh;
    fh = undefined;
    await closing.close();
  } catch (e) {
    await fh?.close().catch(() => {});
    await rm(temp, { force: true }).catch(() => {});
    throw e;
  }
}

/**
 * Writes `content` into a device, a pipe or a socket that is there already (writeFiles). The
 * command's own standard output or error (`-o /dev/stdout`, whatever it leads to) is written
 * through the process's stream, in order with what else the command writes there: a socket, which
 * a parent process often gives as stdout, cannot be opened by its path at all (ENXIO).
 */
async function writeThrough(target: string, st: Stats, content: Content): Promise<void> {
  const std = standardStream(st);
  if (std) {
    const out: Output = {
      write: (text) => std.write(text),
      drain: () => (std.writableNeedDrain ? new Promise<void>((done) => std.once('drain', done)) : Promise.resolve()),
      queued: () => std.writableLength,
    };
    if (typeof content === 'function') await content(out);
    else std.write(content);
    return out.drain!();
  }
  const fh = await open(target, 'w');
  try {
    if (typeof content === 'function') await streamInto(fh, content);
    else await fh.writeFile(content);
  } finally {
    await fh.close().catch(() => {});
  }
}

/** process.stdout or process.stderr when `st` is the file its descriptor leads to. */
function standardStream(st: Stats): NodeJS.WriteStream | undefined {
  for (const [fd, stream] of [
    [1, process.stdout],
    [2, process.stderr],
  ] as const) {
    try {
      const f = fstatSync(fd);
      if (f.dev === st.dev && f.ino === st.ino) return stream;
    } catch {
      // no such descriptor
    }
  }
  return undefined;
}

/**
 * Runs a streaming writer (writeChunks, with its backpressure) into an open file: each piece is
 * written in turn, and the first failure stops the writer (Output.closed) and is thrown. Not a
 * FileHandle's write stream: after a failed write its handle never closes.
 */
async function streamInto(fh: FileHandle, write: (out: Output) => Promise<void>): Promise<void> {
  let failure: { error: unknown } | undefined;
  let queued = 0;
  let chain = Promise.resolve();
  const out: Output = {
    write: (text) => {
      if (failure) return false;
      queued += text.length;
      chain = chain.then(async () => {
        try {
          if (!failure) await fh.writeFile(text); // at the current position, all of it
        } catch (error) {
          failure ??= { error };
        } finally {
          queued -= text.length;
        }
      });
      return queued < HIGH_WATER;
    },
    get closed() {
      return failure !== undefined;
    },
    drain: () => chain,
    queued: () => queued,
  };
  await write(out);
  await chain;
  if (failure) throw failure.error;
}

/** What streamInto holds unwritten before it asks the writer to wait (as a stream's highWaterMark). */
const HIGH_WATER = 64 * 1024;

/**
 * Writes a folder's files (`files`: paths inside it with / separators → bytes) so that a failure
 * leaves no folder and changes none: they are written into a temporary folder, then moved into
 * place. A folder that does not exist or is empty is the temporary folder renamed (created beside
 * it); into a folder that holds files (`replace`: `unpack --force`), the entries named by
 * `replace` are swapped for the new ones, and everything else in it is left alone. Folders above
 * are created. A link to a folder is written where it leads. On failure what was written and the
 * folders created are removed, and WriteError names the folder as `shown`.
 */
export async function writeFolder(
  given: string,
  shown: string,
  files: ReadonlyMap<string, string | Uint8Array>,
  replace?: readonly string[],
): Promise<void> {
  const root = await realpath(given).catch(() => given); // a link to a folder: the folder, and the link stays
  const st = await statOrUndefined(root);
  let created: string | undefined;
  let temp: string | undefined;
  try {
    if (st && !st.isDirectory()) throw notADirectory();
    const empty = !st || (await readdir(root)).length === 0;
    if (empty) {
      created = await makeParents(dirname(root));
      temp = join(dirname(root), tempName(basename(root)));
      await mkdir(temp);
      await writeInto(temp, files);
      if (st) await chmod(temp, st.mode & 0o7777);
      await rename(temp, root).catch(async (e: NodeJS.ErrnoException) => {
        // Renaming onto an empty folder replaces it on POSIX; elsewhere, make way first.
        if (!st || !['EEXIST', 'ENOTEMPTY', 'EPERM', 'EACCES'].includes(e.code ?? '')) throw e;
        await rmdir(root).catch(() => {
          throw e;
        });
        await rename(temp!, root);
      });
      temp = undefined;
      return;
    }
    // Inside the folder, starting with a dot: on the same file system, and read by no command.
    temp = join(root, tempName('new'));
    await mkdir(temp);
    await writeInto(temp, files);
    await swapIn(root, temp, replace ?? []);
    temp = undefined;
  } catch (e) {
    if (temp) await rm(temp, { recursive: true, force: true }).catch(() => {});
    if (created) await rm(created, { recursive: true, force: true }).catch(() => {});
    throw new WriteError(shown, ioReason(e));
  }
}

async function writeInto(dir: string, files: ReadonlyMap<string, string | Uint8Array>): Promise<void> {
  const made = new Set<string>();
  for (const [rel, bytes] of files) {
    const abs = join(dir, ...rel.split('/'));
    const parent = dirname(abs);
    if (!made.has(parent)) {
      await makeParents(parent); // inside the temporary folder: nothing to remove but it
      made.add(parent);
    }
    await writeFile(abs, bytes, { flag: 'wx' });
  }
}

/**
 * Moves the entries of `root` named by `replace` aside, and the entries of `fresh` (a folder inside
 * `root`) into their places; then removes what was moved aside and `fresh`. Renames within one
 * folder need no space; should one still fail, what was moved is moved back.
 */
async function swapIn(root: string, fresh: string, replace: readonly string[]): Promise<void> {
  const aside = join(root, tempName('old'));
  await mkdir(aside);
  const movedAside: string[] = [];
  const movedIn: string[] = [];
  try {
    for (const name of replace) {
      try {
        await rename(join(root, name), join(aside, name));
        movedAside.push(name);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    for (const name of await readdir(fresh)) {
      await rename(join(fresh, name), join(root, name));
      movedIn.push(name);
    }
  } catch (e) {
    for (const name of movedIn) await rm(join(root, name), { recursive: true, force: true }).catch(() => {});
    for (const name of movedAside) await rename(join(aside, name), join(root, name)).catch(() => {});
    await rm(aside, { recursive: true, force: true }).catch(() => {});
    throw e;
  }
  // Written: a leftover here is a dot folder no command reads, not a reason to say it failed.
  await rm(aside, { recursive: true, force: true }).catch(() => {});
  await rm(fresh, { recursive: true, force: true }).catch(() => {});
}

/**
 * Where a path leads once every symbolic link on the way is followed, for a path that may not exist
 * yet (an output file): its nearest existing folder's real path, and the rest as given. Synchronous:
 * validate -o asks it of every file it checks.
 */
export function realLocation(abs: string): string {
  const rest: string[] = [];
  for (let p = resolve(abs); ;) {
    try {
      return join(realpathSync(p), ...rest.reverse());
    } catch {
      const up = dirname(p);
      if (up === p) return abs;
      rest.push(basename(p));
      p = up;
    }
  }
}
