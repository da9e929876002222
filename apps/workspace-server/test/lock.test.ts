import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

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
      expect(said.filter((s) => s === 'ok'), said.join(', ')).toHaveLength(1);
      expect(said.filter((s) => s === 'refused')).toHaveLength(3);
      // Released at exit; the takeover's own file never stays behind.
      expect(readdirSync(dir)).toEqual([]);
    }
  });
});
