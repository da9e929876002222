// A client for the protocol tests: the real `setup-pack lsp --stdio` process, spoken to over its
// stdin and stdout with vscode-jsonrpc, as an editor does.
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import type { Diagnostic, InitializeResult, PublishDiagnosticsParams } from 'vscode-languageserver';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const BIN = join(ROOT, 'packages/cli/bin/setup-pack.js');
export const FIXTURES = join(ROOT, 'fixtures');
/** The demo pack `npm start` opens (scripts/start.mjs). */
export const DEMO_PACK = join(FIXTURES, 'valid/buyer-lead-starter.json');

/**
 * Compiles the packages and bundles the command, so the process runs the current source; flock
 * serialises the builds of test files running side by side (as the CLI's tests do).
 */
export function buildServer(): void {
  const lock = join(ROOT, 'node_modules/.setup-pack-cli-test-build.lock');
  execFileSync('flock', [lock, process.execPath, join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'packages/cli'], {
    cwd: ROOT,
    stdio: 'pipe',
  });
  execFileSync('flock', [lock, process.execPath, join(ROOT, 'scripts/bundle-cli.mjs')], { cwd: ROOT, stdio: 'pipe' });
}

export const uriOf = (path: string) => pathToFileURL(path).href;

export class LspClient {
  readonly connection: MessageConnection;
  private readonly published = new Map<string, PublishDiagnosticsParams[]>();
  private readonly waiting: { uri: string; version: number | undefined; resolve: (p: PublishDiagnosticsParams) => void }[] = [];
  readonly stderr: string[] = [];
  /** What the server answered to initialize. */
  init: InitializeResult | undefined;
  private readonly versions = new Map<string, number>();

  private constructor(readonly child: ChildProcess) {
    child.stderr!.on('data', (b: Buffer) => this.stderr.push(b.toString()));
    this.connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    this.connection.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => this.onDiagnostics(p));
    this.connection.onNotification('window/logMessage', (p: { message: string }) => this.stderr.push(p.message));
    this.connection.listen();
  }

  /**
   * Starts the server and initializes it (initializationOptions: `debounceMs`): `setup-pack lsp
   * --stdio` of `bin` (this checkout's binary by default), or `args` for node (another build of the server).
   */
  static async start(
    options: { debounceMs?: number; bin?: string; args?: string[]; cwd?: string; capabilities?: object; workspaceFolders?: string[] } = {},
  ): Promise<LspClient> {
    const child = spawn(process.execPath, options.args ?? [options.bin ?? BIN, 'lsp', '--stdio'], {
      cwd: options.cwd ?? ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const client = new LspClient(child);
    const folders = options.workspaceFolders
      ? { workspaceFolders: options.workspaceFolders.map((path) => ({ uri: uriOf(path), name: path })) }
      : {};
    client.init = await client.request<InitializeResult>('initialize', {
      processId: process.pid,
      rootUri: uriOf(ROOT),
      ...folders,
      capabilities: options.capabilities ?? {},
      initializationOptions: { debounceMs: options.debounceMs ?? 20 },
    });
    await client.connection.sendNotification('initialized', {});
    return client;
  }

  request<T>(method: string, params: unknown): Promise<T> {
    return this.connection.sendRequest(method, params) as Promise<T>;
  }

  async open(uri: string, text: string, languageId = 'json'): Promise<void> {
    this.versions.set(uri, 1);
    await this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
  }

  /** Sends one change (a whole text, or a range's replacement); returns the new version. */
  async change(uri: string, change: { text: string; range?: unknown }): Promise<number> {
    const version = (this.versions.get(uri) ?? 0) + 1;
    this.versions.set(uri, version);
    await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [change] });
    return version;
  }

  async close(uri: string): Promise<void> {
    await this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  /** The diagnostics published for `uri` at `version` (or at any version), waiting for them. */
  diagnostics(uri: string, version?: number, timeoutMs = 30_000): Promise<Diagnostic[]> {
    const had = (this.published.get(uri) ?? []).find((p) => version === undefined || p.version === version);
    if (had) return Promise.resolve(had.diagnostics);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `no diagnostics for ${uri}${version === undefined ? '' : ` version ${version}`} in ${timeoutMs} ms; stderr: ${this.stderr.join('')}`,
            ),
          ),
        timeoutMs,
      );
      this.waiting.push({ uri, version, resolve: (p) => (clearTimeout(timer), resolve(p.diagnostics)) });
    });
  }

  /** Every publication for `uri`, in order. */
  publications(uri: string): PublishDiagnosticsParams[] {
    return this.published.get(uri) ?? [];
  }

  async stop(): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => this.child.once('exit', (code) => resolve(code)));
    if (this.child.exitCode === null) {
      await this.request('shutdown', null);
      await this.connection.sendNotification('exit');
    }
    const code = await exited;
    this.connection.dispose();
    return code;
  }

  private onDiagnostics(p: PublishDiagnosticsParams): void {
    (this.published.get(p.uri) ?? this.published.set(p.uri, []).get(p.uri)!).push(p);
    for (const w of this.waiting.filter((x) => x.uri === p.uri && (x.version === undefined || x.version === p.version))) {
      this.waiting.splice(this.waiting.indexOf(w), 1);
      w.resolve(p);
    }
  }
}

export const readText = (path: string) => readFileSync(path, 'utf8');
