// The Setup Pack extension: a client of the Setup Pack language server, which it ships (server/,
// built from packages/language-server and the CLI's source-folder code). Every feature is the
// server's; this file starts it for the documents it may serve, and gives its commands
// (commands.ts) their place in VS Code: the command palette and the explorer's context menu.
import type { ExtensionContext } from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { commands, workspace } from 'vscode';
import { buildPackCommand, openInEditorCommand, validateWorkspaceCommand } from './commands.js';
import { HandOff } from './hand-off.js';

let client: LanguageClient | undefined;

export async function activate(context: ExtensionContext): Promise<void> {
  const module = context.asAbsolutePath('server/server.mjs');
  const server: ServerOptions = { run: { module, transport: TransportKind.stdio }, debug: { module, transport: TransportKind.stdio } };
  const options: LanguageClientOptions = {
    // The server tells packs from other JSON itself; a source folder's template bodies are .html and .txt files.
    documentSelector: [
      { scheme: 'file', language: 'json' },
      { scheme: 'untitled', language: 'json' },
      { scheme: 'file', pattern: '**/templates/*.{html,txt}' },
    ],
    initializationOptions: { debounceMs: workspace.getConfiguration('setupPack').get<number>('debounceMs') },
  };
  const started = new LanguageClient('setupPack', 'Setup Pack', server, options);
  client = started;
  const handOff = new HandOff();
  context.subscriptions.push(
    commands.registerCommand('setupPack.validateWorkspace', () => validateWorkspaceCommand(started)),
    commands.registerCommand('setupPack.buildPack', (uri?: unknown) => buildPackCommand(started, uri)),
    commands.registerCommand('setupPack.openInEditor', (uri?: unknown) => openInEditorCommand(started, handOff, uri)),
    { dispose: () => void handOff.close() },
    { dispose: () => void client?.stop() },
  );
  await started.start();
}

export function deactivate(): Promise<void> | undefined {
  return client?.stop();
}
