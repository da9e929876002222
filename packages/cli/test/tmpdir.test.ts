// The run's own temporary directory (scripts/test-tmpdir.mjs): what tests and the processes they
// start write to os.tmpdir() lands in it, so nothing is left in /tmp when the run ends.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

describe("the test run's temporary directory", () => {
  const runDir = process.env.SETUP_PACK_TEST_TMPDIR;

  it('exists, and tests and the processes they start make their folders in it', () => {
    expect(runDir).toBeTruthy();
    expect(existsSync(runDir!)).toBe(true);
    expect(tmpdir()).toBe(runDir);
    expect(tempDir().startsWith(`${runDir}/`)).toBe(true);
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(require("os").tmpdir())'], { encoding: 'utf8' });
    expect(child.stdout).toBe(runDir);
  });
});
