// The server's commands (workspace/executeCommand), for any client: validate every pack of the
// workspace, and build a source folder into a pack file as `setup-pack build` does. Their names
// differ from the VS Code extension's own commands (`setupPack.…`), which call them: a client
// library registers the server's command names itself, and one name cannot be registered twice.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ErrorCodes, ResponseError, type Connection, type Diagnostic as LspDiagnostic } from 'vscode-languageserver';
import { toLspDiagnostic } from './diagnostics.js';
import type { SourceFolderSupport } from './folder-support.js';
import { checkWorkspace, countFindings, rootPaths, type CheckContext, type CheckedFile, type WorkspaceSummary } from './workspace-check.js';

export const SERVER_COMMANDS = { validateWorkspace: 'setup-pack.validateWorkspace', buildPack: 'setup-pack.buildPack' } as const;

export interface BuildArguments {
  /** The source folder (its URI), or a file of it. */
  folder: string;
  /** Where to write the pack (a file URI); without it the pack's text is returned. */
  output?: string;
  /** The pack's exportedAt; build's own choice (SOURCE_DATE_EPOCH, else now) without it. */
  exportedAt?: string;
}

export interface BuildSummary {
  built: boolean;
  /** The folder's root (its URI). */
  folder: string;
  /** The file written (its URI), when `output` was given and the folder built. */
  output?: string;
  /** The pack's text, when the folder built and no `output` was given. */
  text?: string;
  errors: number;
  warnings: number;
  files: CheckedFile[];
}

export interface CommandContext extends CheckContext {
  /** The workspace's folders as the client named them at initialize (URIs). */
  workspaceFolders(): string[];
}

const failure = (message: string, reason?: string) => new ResponseError(ErrorCodes.InvalidParams, message, reason ? { reason } : undefined);

/** "Validate workspace": the folders given (URIs), else the workspace's. */
export function validateWorkspace(args: unknown[], ctx: CommandContext): Promise<WorkspaceSummary> {
  const given = args.filter((a): a is string => typeof a === 'string');
  const roots = rootPaths(given.length ? given : ctx.workspaceFolders());
  if (roots.length === 0)
    throw failure('Validate workspace needs a folder: the client named no workspace folder (file: URI), and the command was given none.');
  return checkWorkspace(roots, ctx);
}

/** The root of the source folder a URI names (the folder, or a file of it). */
async function rootOf(uri: string, folders: SourceFolderSupport): Promise<string> {
  if (!uri.startsWith('file:')) throw failure(`"folder" must be a file: URI, not "${uri}".`);
  const path = fileURLToPath(uri);
  const isDir = (await stat(path).catch(() => undefined))?.isDirectory();
  const root = await folders.folderOf(isDir ? join(path, 'manifest.json') : path);
  if (root === undefined)
    throw failure(
      `${path} is not in a pack source folder: a source folder has a manifest.json (setup-pack unpack writes one).`,
      'not-a-source-folder',
    );
  return root;
}

/** "Build pack from folder": `setup-pack build` on the folder, its findings published. */
export async function buildPack(args: unknown[], ctx: CommandContext): Promise<BuildSummary> {
  const folders = ctx.folders;
  if (!folders) throw failure('This server was started without source-folder support (setup-pack lsp has it).');
  const a = args[0] as Partial<BuildArguments> | undefined;
  if (typeof a?.folder !== 'string') throw failure('Build pack needs { "folder": <URI of the source folder> } as its argument.');
  const root = await rootOf(a.folder, folders);
  const output = typeof a.output === 'string' ? fileURLToPath(a.output) : undefined;
  // The CLI's build writes the pack (whole, never over a file of the folder) and says why it cannot.
  const build = await folders
    .build(root, { ...(typeof a.exportedAt === 'string' ? { exportedAt: a.exportedAt } : {}), ...(output ? { output } : {}) })
    .catch((e: Error) => {
      throw failure(`Cannot build ${root}: ${e.message}`);
    });
  const key = pathToFileURL(root).href;
  const files = build.files.map((f) => {
    const uri = pathToFileURL(f.file).href;
    const diagnostics: LspDiagnostic[] = f.diagnostics.map((d) => toLspDiagnostic(d, uri));
    if (!ctx.isOpen(key)) ctx.publish(uri, diagnostics);
    return countFindings(uri, diagnostics);
  });
  const errors = files.reduce((n, f) => n + f.errors, 0);
  const warnings = files.reduce((n, f) => n + f.warnings, 0);
  const summary: BuildSummary = {
    built: build.text !== undefined,
    folder: key,
    errors,
    warnings,
    files: files.filter((f) => f.errors + f.warnings + f.infos > 0),
  };
  if (build.text === undefined) return summary;
  return output ? { ...summary, output: pathToFileURL(output).href } : { ...summary, text: build.text };
}

/** Answers workspace/executeCommand, once the notifications sent before it are handled. */
export function serveCommands(connection: Connection, settled: () => Promise<void> | undefined, ctx: CommandContext): void {
  connection.onExecuteCommand(async (p) => {
    await settled();
    if (p.command === SERVER_COMMANDS.validateWorkspace) return validateWorkspace(p.arguments ?? [], ctx);
    if (p.command === SERVER_COMMANDS.buildPack) return buildPack(p.arguments ?? [], ctx);
    throw new ResponseError(
      ErrorCodes.MethodNotFound,
      `No command "${p.command}": this server has ${Object.values(SERVER_COMMANDS).join(' and ')}.`,
    );
  });
}
