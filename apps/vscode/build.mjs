// Builds the extension: dist/extension.cjs (the client, vscode-languageclient bundled, `vscode`
// the editor's) and server/ (the language server, its worker and the two modules the worker
// imports by path, as ES modules sharing chunks). Run by `npm run build -w apps/vscode`.
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('../../', import.meta.url));
// jsonc-parser's "main" is a UMD build that require()s its parts; its ESM build bundles cleanly.
const resolve = { mainFields: ['module', 'main'] };

async function bundle(input, output) {
  const b = await rolldown({ input, platform: 'node', external: ['vscode'], resolve, logLevel: 'warn' });
  await b.write(output);
  await b.close();
}

rmSync(`${here}dist`, { recursive: true, force: true });
rmSync(`${here}server`, { recursive: true, force: true });
await bundle(`${here}src/extension.ts`, { file: `${here}dist/extension.cjs`, format: 'cjs' });
await bundle(
  {
    server: `${here}src/server.mts`,
    worker: `${root}packages/language-server/dist/worker.js`,
    hasher: `${root}packages/cli/dist/lib/hasher.js`,
    'lsp-support': `${root}packages/cli/dist/source/lsp-support.js`,
  },
  { dir: `${here}server`, format: 'esm', entryFileNames: '[name].mjs', chunkFileNames: 'chunks/[name]-[hash].mjs' },
);
