import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

// Tests import sibling packages from source, so a stale dist/ never hides a change.
const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// Each project is named by its part and its kind, so `vitest --project <name>` (or a glob such as
// `--project '*-unit'`) runs one kind: unit tests need no workspace server, browser or PostgreSQL;
// e2e tests start the server (PGlite, and PostgreSQL too when TEST_DATABASE_URL is set) or the
// CLI's binary; browser tests need Chromium. `npm run test:unit` runs the unit projects
// (docs/testing.md lists what each holds).
const unit = ['src/**/*.test.ts'];
/**
 * A project run after the others (groups run in order), one file at a time: vitest runs the
 * projects of one group together, so each of these has a group of its own.
 */
const alone = (groupOrder: number) => ({ maxWorkers: 1, sequence: { groupOrder } });
/**
 * The project's files share their worker process (vitest's `isolate: false`) instead of each
 * starting a fresh one: a fresh process imports the server, PGlite and core again and compiles
 * PGlite's WebAssembly again, a second or so of CPU per file. Only for projects whose files close
 * what they open and set no process-wide state. The timed and PostgreSQL suites keep a process per
 * file: they kill servers and clusters and wait on deadlines, and a connection one file leaves
 * behind can hold back the next file's webhook fan-out past them (the outbox waits for every
 * writing transaction older than its events). The editor's browser files keep theirs too: the
 * canvas is fitted once, at the page's size when its blocks first appear, and a test's workspace
 * server answering sooner in a warm process moves that moment, so a screenshot can come out at
 * another zoom than its committed image.
 */
const shared = { isolate: false };
/**
 * The server's suites that wait on wall-clock deadlines (a process replaced within its wait, a
 * webhook claimed at once rather than at the next poll, a batch window, a readiness bound): a
 * core shared with another test file misses them, so they run after the rest, one file at a time.
 */
const timedServerSuites = [
  'test/processes.test.ts',
  'test/cli.test.ts',
  'test/webhooks.process.test.ts',
  'test/webhooks.pglite.test.ts',
  'test/batching.test.ts',
  'test/batching-pglite.test.ts',
  'test/faults.fuzz.test.ts',
  'test/lock.test.ts',
  'test/health.test.ts',
  'test/metrics.test.ts',
  'test/warm.test.ts',
  'test/deal-locks.test.ts',
  'test/vacuum.test.ts',
  'test/hosts.fuzz.test.ts',
];
export default defineConfig({
  resolve: {
    alias: {
      '@setup-pack/core': src('./packages/core/src/index.ts'),
      '@setup-pack/installer': src('./packages/installer/src/index.ts'),
      '@setup-pack/testkit': src('./packages/testkit/src/index.ts'),
      '@setup-pack/language-server': src('./packages/language-server/src/index.ts'),
      '@setup-pack/workspace-server': src('./apps/workspace-server/src/index.ts'),
      'setup-pack': src('./packages/cli/src/index.ts'),
    },
  },
  test: {
    // A temporary directory per run, removed at its end (scripts/test-tmpdir.mjs).
    globalSetup: [src('./scripts/test-tmpdir.mjs')],
    // Two files at a time: vitest keeps one worker less than the cores, which is one on two. The
    // suites bound to wall-clock deadlines run after the rest, alone (`alone` above).
    maxWorkers: 2,
    projects: [
      // Property tests run thousands of cases: on a loaded machine one can pass vitest's 5 s.
      { extends: true, test: { name: 'core-unit', root: './packages/core', include: [...unit, 'test/**/*.test.ts'], testTimeout: 30000 } },
      {
        extends: true,
        test: { name: 'testkit-unit', root: './packages/testkit', include: [...unit, 'test/**/*.test.ts'], testTimeout: 120000 },
      },
      {
        extends: true,
        test: {
          name: 'cli-unit',
          root: './packages/cli',
          include: [...unit, 'test/docs.test.ts', 'test/engines.test.ts'],
          testTimeout: 60000,
        },
      },
      // The CLI as users run it: the bundled binary in a subprocess (built once, under a lock).
      {
        extends: true,
        test: {
          name: 'cli-e2e',
          root: './packages/cli',
          include: ['test/**/*.test.ts'],
          exclude: ['test/packaging.test.ts', 'test/export-json.test.ts', 'test/docs.test.ts', 'test/engines.test.ts'],
          testTimeout: 60000,
          hookTimeout: 120000,
        },
      },
      // The tarballs installed offline, the server they ship and the editor in Chromium; export over HTTP.
      {
        extends: true,
        test: {
          name: 'cli-packaging',
          root: './packages/cli',
          include: ['test/packaging.test.ts', 'test/export-json.test.ts'],
          testTimeout: 60000,
          hookTimeout: 240000,
        },
      },
      { extends: true, test: { name: 'language-server-unit', root: './packages/language-server', include: unit, testTimeout: 60000 } },
      // The language server built and spoken to over stdio, as editors run it.
      {
        extends: true,
        test: {
          name: 'language-server-e2e',
          root: './packages/language-server',
          include: ['test/**/*.test.ts'],
          testTimeout: 60000,
          hookTimeout: 120000,
        },
      },
      {
        extends: true,
        test: { name: 'installer-unit', root: './packages/installer', include: [...unit, 'test/packs.test.ts'], testTimeout: 60000 },
      },
      {
        extends: true,
        test: {
          ...shared,
          name: 'installer-e2e',
          root: './packages/installer',
          include: ['test/**/*.test.ts'],
          exclude: ['test/packs.test.ts'],
          testTimeout: 120000,
          hookTimeout: 120000,
        },
      },
      {
        extends: true,
        test: {
          name: 'server-unit',
          root: './apps/workspace-server',
          include: [...unit, 'test/ids.test.ts', 'test/layout.test.ts', 'test/raw-client.test.ts', 'test/webhooks-ssrf.test.ts'],
          testTimeout: 60000,
        },
      },
      // The server over HTTP on PGlite, and on PostgreSQL as well when TEST_DATABASE_URL is set.
      {
        extends: true,
        test: {
          ...shared,
          name: 'server-e2e',
          root: './apps/workspace-server',
          include: ['test/**/*.test.ts'],
          exclude: [
            'test/ids.test.ts',
            'test/layout.test.ts',
            'test/raw-client.test.ts',
            'test/webhooks-ssrf.test.ts',
            'test/*.postgres.test.ts',
            ...timedServerSuites,
          ],
          testTimeout: 60000,
          hookTimeout: 120000,
        },
      },
      // The same, for the suites bound to wall-clock deadlines: after the rest, alone.
      {
        extends: true,
        test: {
          ...alone(1),
          name: 'server-timed-e2e',
          root: './apps/workspace-server',
          include: timedServerSuites,
          testTimeout: 60000,
          hookTimeout: 120000,
        },
      },
      // Suites that run only on PostgreSQL (they say what they skipped without TEST_DATABASE_URL); they
      // stop clusters and kill hosts on deadlines too, so they run last, alone.
      {
        extends: true,
        test: {
          ...alone(2),
          name: 'server-postgres',
          root: './apps/workspace-server',
          include: ['test/*.postgres.test.ts'],
          testTimeout: 60000,
          hookTimeout: 120000,
        },
      },
      // The VS Code extension packaged offline to a .vsix and its server run from the unpacked extension.
      {
        extends: true,
        test: { name: 'vscode-packaging', root: './apps/vscode', include: ['test/**/*.test.ts'], testTimeout: 120000, hookTimeout: 300000 },
      },
      { extends: true, test: { name: 'editor-unit', root: './apps/editor', include: unit, testTimeout: 60000 } },
      {
        extends: true,
        test: { name: 'editor-browser', root: './apps/editor', include: ['test/**/*.test.ts'], testTimeout: 120000, hookTimeout: 180000 },
      },
    ],
  },
});
