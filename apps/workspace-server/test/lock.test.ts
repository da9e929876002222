import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LOCK_FILE, lockDataDir } from '../src/db/lock.js';

const lockJs = fileURLToPath(new URL('../dist/db/lock.js', import.meta.url));

/**
 * Starts `n` processes that each try, at one instant, to take `dir`'s lock; resolves with what each
 * said. One that takes it holds it until every one has answered (its stdin is closed then), so a
 * process that starts late on a loaded machine still meets the lock held.
 */
function contend(dir: string, n: number): Promise<string[]> {
  // Each waits for one instant, so their attempts overlap.
  const at = Date.now() + 1000;
  const script = `import(${JSON.stringify(lockJs)}).then(({ lockDataDir }) => {
    while (Date.now() < ${at});
    try { lockDataDir(${JSON.stringify(dir)}); process.stdout.write('ok\\n'); process.stdin.resume(); process.stdin.on('end', () => process.exit(0)); }
    catch (e) { process.stdout.write((/in use by another/.test(e.message) ? 'refused' : 'error: ' + e.message) + '\\n'); }
  });`;
  const children = Array.from({ length: n }, () => spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] }));
  const said = children.map(
    (child) =>
      new Promise<string>((resolve) => {
        let out = '';
        child.stdout!.on('data', (d) => {
          out += d;
          if (out.endsWith('\n')) resolve(out.trim());
        });
        child.on('exit', () => resolve(out.trim()));
      }),
  );
  return Promise.all(said).then(async (answers) => {
    for (const child of children) child.stdin!.end();
    await Promise.all(children.map((c) => (c.exitCode !== null ? undefined : new Promise((r) => c.on('exit', r)))));
    return answers;
  });
}

describe('the PGlite data directory lock (db/lock.ts)', () => {
  it('is taken by exactly one of several servers starting at once over a stale lock', async () => {
    if (!existsSync(lockJs)) throw new Error('apps/workspace-server/dist is missing: run `npx tsc -b apps/workspace-server` first');
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    for (let round = 0; round < 6; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'ws-lock-race-'));
      // Left by a server killed with -9: every starter finds it stale and wants to take it over.
      writeFileSync(join(dir, 'workspace-server.pid'), `${gone}\n`);
      const said = await contend(dir, 4);
      expect(
        said.filter((s) => s === 'ok'),
        said.join(', '),
      ).toHaveLength(1);
      expect(said.filter((s) => s === 'refused')).toHaveLength(3);
      // Released at exit; the takeover's own file never stays behind.
      expect(readdirSync(dir)).toEqual([]);
    }
  });
});

/** /proc/<pid>/stat's state letter, or undefined when there is no such process (or no /proc). */
function stateOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2);
  } catch {
    return undefined;
  }
}

const noProc = existsSync('/proc/self/stat') ? '' : 'no /proc here (Linux only)';
describe.skipIf(noProc)(`the lock of a server that died and was not reaped${noProc ? ` (skipped: ${noProc})` : ''}`, () => {
  it('is taken over: a zombie owner is gone, though it still answers kill(pid, 0)', async () => {
    // `sleep 0` exits at once and stays a zombie: its parent became `sleep 30`, which never reaps it.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const zombie = await new Promise<number>((resolve) => parent.stdout!.once('data', (d) => resolve(Number(String(d).trim()))));
      for (let i = 0; i < 200 && stateOf(zombie) !== 'Z'; i++) await new Promise((r) => setTimeout(r, 10));
      expect(stateOf(zombie)).toBe('Z');
      expect(() => process.kill(zombie, 0)).not.toThrow();
      const dir = mkdtempSync(join(tmpdir(), 'ws-lock-zombie-'));
      writeFileSync(join(dir, LOCK_FILE), `${zombie}\n`);
      const release = lockDataDir(dir);
      expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe(`${process.pid}\n`);
      release();
      // A live owner still holds it.
      writeFileSync(join(dir, LOCK_FILE), `${parent.pid}\n`);
      expect(() => lockDataDir(dir)).toThrow(/in use by another workspace-server \(process \d+\)/);
    } finally {
      parent.kill();
    }
  });
});
