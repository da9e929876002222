// One server process per PGlite data directory. PGlite holds the database in the memory of the
// process that opened it and writes pages back to the directory, so a second process on the same
// directory would serve from its own copy and overwrite the first's writes: without this lock two
// `serve --data-dir D` would both start and serve.
import { linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The lock's file name in the data directory. */
export const LOCK_FILE = 'workspace-server.pid';

/** Directories this process holds (a second open in one process is refused too). */
const held = new Set<string>();

/** Tries at taking a stale lock over, the wait between them, and when a takeover's file is abandoned. */
const TAKEOVER_ATTEMPTS = 100;
const TAKEOVER_WAIT_MS = 20;
const STALE_TAKEOVER_MS = 10_000;

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
}

/**
 * Creates `file` holding `text`, or throws EEXIST when it exists, in one step: written to a file of
 * this process's own, then hard-linked into place. A file created with flag 'wx' is empty until it
 * is written, and a second server reading it then would take the empty lock for a stale one and
 * remove it. On a file system without hard links, 'wx' it is.
 */
function createWith(file: string, text: string): void {
  const own = `${file}.${process.pid}`;
  writeFileSync(own, text);
  try {
    linkSync(own, file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw e;
    writeFileSync(file, text, { flag: 'wx' });
  } finally {
    unlinkQuietly(own);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' && !dead(pid); // exists, owned by another user
  }
  return !dead(pid);
}

/**
 * Whether `pid` has exited and only waits for its parent to reap it: a zombie still answers
 * kill(pid, 0), so a server killed with SIGKILL and not yet reaped (its parent busy, or not
 * reaping) held its lock until then. Linux says so in /proc/<pid>/stat (state Z, or X while it
 * goes); where there is no /proc, a process that answers is taken as running.
 */
function dead(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // "<pid> (<command>) <state> …": the command may hold spaces and parentheses, so the state
  // follows the last ")".
  const state = stat.charAt(stat.lastIndexOf(')') + 2);
  return state === 'Z' || state === 'X';
}

/**
 * Takes the directory's lock (a file holding the owner's pid, created exclusively) and returns
 * its release. A lock whose process is gone — killed (a zombie not yet reaped is gone), or the
 * machine restarted — is taken over.
 * As PostgreSQL's postmaster.pid does, a lock naming this process or its parent is stale too: a
 * container restarted after a crash gives its server the same small pid again.
 */
export function lockDataDir(dir: string): () => void {
  const file = join(dir, LOCK_FILE);
  if (held.has(file)) throw new Error(`The data directory ${dir} is already open in this process`);
  const takeover = `${file}.takeover`;
  for (let attempt = 0; ; attempt++) {
    try {
      createWith(file, `${process.pid}\n`);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= TAKEOVER_ATTEMPTS) throw e;
    }
    let text: string | undefined;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue; // removed meanwhile: try again
    }
    const owner = Number(text.trim());
    const stale = !Number.isInteger(owner) || owner <= 0 || owner === process.pid || owner === process.ppid || !alive(owner);
    if (!stale) {
      throw new Error(
        `The data directory ${dir} is in use by another workspace-server (process ${owner}): stop it, or give this one another --data-dir. If no server is running there, delete ${file}.`,
      );
    }
    // A stale lock is removed by one process at a time, and only while it still holds what was read:
    // two servers starting together could otherwise both remove it, one of them the other's new lock.
    try {
      writeFileSync(takeover, `${process.pid}\n`, { flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // Another is taking it over; one that died doing so left its file behind.
      if (ageMs(takeover) > STALE_TAKEOVER_MS) unlinkQuietly(takeover);
      else sleep(TAKEOVER_WAIT_MS);
      continue;
    }
    try {
      let now: string | undefined;
      try {
        now = readFileSync(file, 'utf8');
      } catch {
        // Gone already.
      }
      if (now === text) unlinkQuietly(file);
    } finally {
      unlinkQuietly(takeover);
    }
  }
  held.add(file);
  const release = () => {
    if (!held.delete(file)) return;
    process.removeListener('exit', release);
    unlinkQuietly(file);
  };
  process.once('exit', release);
  return release;
}
