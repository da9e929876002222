// The Setup Pack extension: a client of the Setup Pack language server, which it ships (server/,
// built from packages/language-server and the CLI's source-folder code). Every feature is the
// server's; this file only starts it for the documents it may serve.
import type { ExtensionContext } from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { workspace } from 'vscode';

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
  client = new LanguageClient('setupPack', 'Setup Pack', server, options);
  await client.start();
  context.subscriptions.push({ dispose: () => void client?.stop() });
}

export function deactivate(): Promise<void> | undefined {
  return client?.stop();
}
