// One server process per PGlite data directory. PGlite holds the database in the memory of the
// process that opened it and writes pages back to the directory, so a second process on the same
// directory would serve from its own copy and overwrite the first's writes. Before this lock, two
// `serve --data-dir D` both started and served (session 14).
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The lock's file name in the data directory. */
export const LOCK_FILE = 'workspace-server.pid';

/** Directories this process holds (a second open in one process is refused too). */
const held = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by another user
  }
}

/**
 * Takes the directory's lock (a file holding the owner's pid, created exclusively) and returns
 * its release. A lock whose process is gone — killed, or the machine restarted — is taken over.
 * As PostgreSQL's postmaster.pid does, a lock naming this process or its parent is stale too: a
 * container restarted after a crash gives its server the same small pid again.
 */
export function lockDataDir(dir: string): () => void {
  const file = join(dir, LOCK_FILE);
  if (held.has(file)) throw new Error(`The data directory ${dir} is already open in this process`);
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw e;
      let owner = NaN;
      try {
        owner = Number(readFileSync(file, 'utf8').trim());
      } catch {
        // Removed meanwhile: try again.
      }
      const stale = !Number.isInteger(owner) || owner <= 0 || owner === process.pid || owner === process.ppid || !alive(owner);
      if (!stale) {
        throw new Error(`The data directory ${dir} is in use by another workspace-server (process ${owner}): stop it, or give this one another --data-dir. If no server is running there, delete ${file}.`);
      }
      try {
        unlinkSync(file);
      } catch {
        // Gone already.
      }
    }
  }
  held.add(file);
  const release = () => {
    if (!held.delete(file)) return;
    process.removeListener('exit', release);
    try {
      unlinkSync(file);
    } catch {
      // Already gone: nothing to release.
    }
  };
  process.once('exit', release);
  return release;
}
