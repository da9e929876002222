// The language server as the extension ships it: @setup-pack/language-server with the CLI's native
// asset hasher and its source-folder reading, each bundled as a module of its own beside this one
// (the worker thread imports them by path).
import { startServer } from '@setup-pack/language-server';

await startServer({
  worker: new URL('./worker.mjs', import.meta.url),
  hasher: { module: new URL('./hasher.mjs', import.meta.url).href, name: 'nodeHasher' },
  sourceFolders: new URL('./lsp-support.mjs', import.meta.url).href,
  serverInfo: { name: 'setup-pack' },
});
