// Vitest global setup: every test run gets a temporary directory of its own (TMPDIR, which
// os.tmpdir() and every process the tests start read), removed when the run ends, so the
// directories tests make for packs, builds, stores and browser profiles are not left in /tmp.
// Projects inherit this file, so it runs once per project: the first makes the directory, the
// others find it, and only the first removes it.
//
// The embedded store's saved fresh database (apps/workspace-server/src/db/image.ts) is kept in
// node_modules/.cache rather than the user's own cache: the tests open many stores, each
// in under a second from it where initdb would take four, and leave nothing outside the clone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function setup() {
  process.env.SETUP_PACK_CACHE_DIR ??= fileURLToPath(new URL('../node_modules/.cache/setup-pack', import.meta.url));
  if (process.env.SETUP_PACK_TEST_TMPDIR) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'setup-pack-tests-'));
  process.env.SETUP_PACK_TEST_TMPDIR = dir;
  process.env.TMPDIR = dir;
  return () => {
    if (!process.env.KEEP_TEST_TMPDIR) rmSync(dir, { recursive: true, force: true });
  };
}
