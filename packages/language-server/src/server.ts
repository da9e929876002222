// The server: capabilities, and each request handed to its module with the document's view. A
// request that fails answers with an error and the server goes on; the validation work runs in a
// worker (scheduler.ts), so a slow validation never holds a request up.
import {
  CodeActionKind,
  createConnection,
  LSPErrorCodes,
  ProposedFeatures,
  ResponseError,
  TextDocumentSyncKind,
  type Connection,
  type InitializeResult,
} from 'vscode-languageserver/node';
import { codeActions, FIX_ALL_KIND } from './actions.js';
import { SERVER_COMMANDS, serveCommands } from './commands.js';
import { complete } from './completion.js';
import { PackDocuments, type DocumentView } from './documents.js';
import { hover } from './hover.js';
import { definition, prepareRename, references, rename } from './navigation.js';
import type { SourceFolderSupport } from './folder-support.js';
import type { HasherModule } from './protocol.js';
import { Scheduler } from './scheduler.js';
import { documentSymbols } from './symbols.js';

export interface ServerOptions {
  /** The connection to serve; by default the one the process's arguments name (`--stdio`, `--node-ipc`, `--socket=N`). */
  connection?: Connection;
  /** Where the worker imports its Base64Hasher from (core's portable one otherwise). */
  hasher?: HasherModule;
  /** The pause after a change before validating again (ms); a client may set `debounceMs` in its initializationOptions. */
  debounceMs?: number;
  /** The server's name and version, as initialize reports them. */
  serverInfo?: { name: string; version?: string };
  /**
   * The module (a URL) exporting `sourceFolderSupport` (SourceFolderSupport), to serve the files
   * of pack source folders too; the CLI's. Without it, pack files only.
   */
  sourceFolders?: string;
  /** The validation worker's module: this package's worker.js by default; a bundle of the server names its own. */
  worker?: URL;
}

export const DEFAULT_DEBOUNCE_MS = 150;
const WORKER = new URL('./worker.js', import.meta.url);

export async function startServer(options: ServerOptions = {}): Promise<Connection> {
  const folders = options.sourceFolders
    ? ((await import(options.sourceFolders)) as { sourceFolderSupport: SourceFolderSupport }).sourceFolderSupport
    : undefined;
  const connection = options.connection ?? createConnection(ProposedFeatures.all);
  let documents: PackDocuments | undefined;
  let canRenameFiles = false;
  let workspaceFolders: string[] = [];
  const scheduler = new Scheduler(
    options.worker ?? WORKER,
    { hasher: options.hasher, folders: options.sourceFolders },
    {
      reply: (r) => documents?.receive(r),
      failed: (error, job) => {
        connection.console.error(`setup-pack: validation failed${job ? ` for ${job.uri} (version ${job.version})` : ''}: ${error.message}`);
        if (job) documents?.failed(job.uri);
      },
    },
  );
  connection.onInitialize((params): InitializeResult => {
    const asked = (params.initializationOptions as { debounceMs?: unknown } | undefined)?.debounceMs;
    documents = new PackDocuments(
      connection,
      scheduler,
      typeof asked === 'number' && asked >= 0 ? asked : (options.debounceMs ?? DEFAULT_DEBOUNCE_MS),
      folders,
    );
    const edits = params.capabilities.workspace?.workspaceEdit;
    canRenameFiles = edits?.documentChanges === true && (edits.resourceOperations ?? []).includes('rename');
    workspaceFolders = params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
    return { capabilities: CAPABILITIES, serverInfo: options.serverInfo ?? { name: 'setup-pack' } };
  });
  connection.onDidOpenTextDocument((p) => documents?.open(p));
  connection.onDidChangeTextDocument((p) => documents?.change(p));
  connection.onDidCloseTextDocument((p) => documents?.close(p));
  // Answered from the latest model at once; only when that model cannot answer (nothing there, or
  // its places edited since) and a newer one is coming, from the model of the current text.
  const withView =
    <T>(run: (view: DocumentView) => T | null) =>
    async (p: { textDocument: { uri: string } }): Promise<T | null> => {
      await documents?.settledNotifications();
      const view = documents?.view(p.textDocument.uri);
      if (!view) return null;
      const answer = run(view);
      if (!isEmpty(answer) || view.settled) return answer;
      const current = await documents!.current(p.textDocument.uri);
      return current ? run(current) : answer;
    };
  connection.onHover((p) => withView((v) => hover(v, p.position))(p));
  connection.onCompletion((p) => withView((v) => complete(v, p.position))(p));
  connection.onDefinition((p) => withView((v) => definition(v, p.position))(p));
  connection.onReferences((p) => withView((v) => references(v, p.position, p.context.includeDeclaration))(p));
  connection.onPrepareRename((p) => withView((v) => prepareRename(v, p.position))(p));
  connection.onRenameRequest(async (p) => {
    // A rename writes: it reads the model of the text as it is now, not one a few keystrokes old.
    const view = await documents?.current(p.textDocument.uri);
    if (!view) throw new ResponseError(LSPErrorCodes.RequestFailed, 'This document is not a pack the server has open.');
    return rename(view, p.position, p.newName, folders, canRenameFiles);
  });
  connection.onCodeAction((p) => withView((v) => codeActions(v, p))(p));
  connection.onDocumentSymbol((p) => withView((v) => documentSymbols(v))(p));
  serveCommands(connection, () => documents?.settledNotifications(), {
    worker: options.worker ?? WORKER,
    modules: { hasher: options.hasher, folders: options.sourceFolders },
    folders,
    isOpen: (key) => documents?.serves(key) ?? false,
    publish: (uri, diagnostics) => void connection.sendDiagnostics({ uri, diagnostics }),
    log: (message) => connection.console.error(message),
    workspaceFolders: () => workspaceFolders,
  });
  connection.onShutdown(() => void scheduler.close());
  connection.listen();
  return connection;
}

const isEmpty = (answer: unknown) => answer === null || answer === undefined || (Array.isArray(answer) && answer.length === 0);

const CAPABILITIES: InitializeResult['capabilities'] = {
  textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
  hoverProvider: true,
  completionProvider: { triggerCharacters: ['"', '{'] },
  definitionProvider: true,
  referencesProvider: true,
  renameProvider: { prepareProvider: true },
  codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND] },
  documentSymbolProvider: true,
  executeCommandProvider: { commands: Object.values(SERVER_COMMANDS) },
};
