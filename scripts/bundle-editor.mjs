#!/usr/bin/env node
// Builds the editor (vite) into apps/workspace-server/editor, so the server's npm package ships it
// and `workspace-server serve` offers it under /editor/. Runs as the server package's `prepack`;
// the folder is a build output (gitignored), never edited by hand.
import { build } from 'vite';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
await build({
  configFile: `${root}apps/editor/vite.config.ts`,
  logLevel: 'warn',
  build: { outDir: `${root}apps/workspace-server/editor`, emptyOutDir: true },
});
