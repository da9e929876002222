// setup-pack lsp: the Setup Pack language server (@setup-pack/language-server) over stdin and
// stdout, for any editor with an LSP client.
import { createRequire } from 'node:module';
import type { CommandSpec, Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';
import { UsageError } from '../lib/errors.js';
import { cliVersion } from '../lib/version.js';

export const spec: CommandSpec = {
  name: 'lsp',
  summary: 'Run the language server (findings as you type, hover, completion, definitions, rename, quick fixes) over stdio.',
  usage: 'lsp --stdio',
  description:
    'Serves pack files (a .json whose $schema names the pack schema, or with format and packId at its top, or any document the client names "setup-pack") and the files of pack source folders (those `build` reads). It runs until the client asks it to exit or closes its input. Setting up VS Code, Neovim, Helix and Emacs: docs/language-server.md.',
  positionals: [0, 0],
  options: {
    stdio: { type: 'boolean', description: 'Speak LSP over stdin and stdout (the one transport; editors pass it).' },
  },
  examples: [['setup-pack lsp --stdio', 'What an editor runs to start the server']],
  docs: 'docs/language-server.md',
};

type LanguageServer = typeof import('@setup-pack/language-server');

export async function run(_ctx: CommandContext, args: Parsed): Promise<number> {
  if (!args.values.stdio)
    throw new UsageError('the server speaks LSP over stdin and stdout: run `setup-pack lsp --stdio` (from an editor)');
  // Loaded from its package rather than bundled into this command: its validation worker is a file
  // of that package, which a worker thread starts from. The worker hashes assets with this
  // command's native hasher, and reads source folders as this command does, through modules it
  // imports by path (lib/hasher.js, source/lsp-support.js: one folder below the package root in
  // either layout, dist/ or the bundle's dist/bundle/).
  const server = createRequire(import.meta.url)('@setup-pack/language-server') as LanguageServer;
  await server.startServer({
    hasher: { module: new URL('../lib/hasher.js', import.meta.url).href, name: 'nodeHasher' },
    sourceFolders: new URL('../source/lsp-support.js', import.meta.url).href,
    serverInfo: { name: 'setup-pack', version: cliVersion() },
  });
  // The connection ends the process itself: on the client's exit notification, or when stdin closes.
  return new Promise<number>(() => {});
}
