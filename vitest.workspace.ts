import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

// Tests import sibling packages from source, so a stale dist/ never hides a change.
const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));

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
    projects: [
      // Property tests run thousands of cases: on a loaded machine one can pass vitest's 5 s.
      { extends: true, test: { name: 'core', root: './packages/core', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], testTimeout: 30000 } },
      { extends: true, test: { name: 'testkit', root: './packages/testkit', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], testTimeout: 120000 } },
      { extends: true, test: { name: 'cli', root: './packages/cli', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], testTimeout: 60000, hookTimeout: 120000 } },
      { extends: true, test: { name: 'language-server', root: './packages/language-server', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], testTimeout: 60000, hookTimeout: 120000 } },
      { extends: true, test: { name: 'installer', root: './packages/installer', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], testTimeout: 120000, hookTimeout: 120000 } },
      { extends: true, test: { name: 'workspace-server', root: './apps/workspace-server', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], testTimeout: 60000, hookTimeout: 120000 } },
      { extends: true, test: { name: 'vscode', root: './apps/vscode', include: ['test/**/*.test.ts'], testTimeout: 120000, hookTimeout: 300000 } },
      { extends: true, test: { name: 'editor', root: './apps/editor', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], testTimeout: 120000, hookTimeout: 180000 } },
    ],
  },
});
