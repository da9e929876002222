// The extension's commands, each a call of the language server's own command
// (workspace/executeCommand, packages/language-server/src/commands.ts) and what VS Code shows of
// its answer: a message, the Problems view, a save dialog, the web editor in the browser.
import { basename, dirname, join } from 'node:path';
import type { BuildSummary, WorkspaceSummary } from '@setup-pack/language-server';
import { commands, env, ProgressLocation, Uri, window, workspace, type TextDocument } from 'vscode';
import { ExecuteCommandRequest, type LanguageClient } from 'vscode-languageclient/node';
import { editorAddress, type HandOff } from './hand-off.js';

const VALIDATE = 'setup-pack.validateWorkspace';
const BUILD = 'setup-pack.buildPack';
const SHOW_PROBLEMS = 'Show problems';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const run = <T>(client: LanguageClient, command: string, args: unknown[]) =>
  client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }) as Promise<T>;
const failed = (e: unknown) => void window.showErrorMessage(`Setup Pack: ${e instanceof Error ? e.message : String(e)}`);

async function offerProblems(message: string, problems: boolean): Promise<void> {
  const shown = problems ? await window.showWarningMessage(message, SHOW_PROBLEMS) : await window.showInformationMessage(message);
  if (shown === SHOW_PROBLEMS) await commands.executeCommand('workbench.actions.view.problems');
}

/** "Setup Pack: Validate workspace": every pack file and source folder, findings in Problems. */
export async function validateWorkspaceCommand(client: LanguageClient): Promise<void> {
  try {
    const s = await window.withProgress({ location: ProgressLocation.Notification, title: 'Setup Pack: validating the workspace…' }, () =>
      run<WorkspaceSummary>(client, VALIDATE, []),
    );
    const found = [s.packs ? plural(s.packs, 'pack file') : '', s.folders ? plural(s.folders, 'source folder') : '']
      .filter(Boolean)
      .join(' and ');
    if (!found) return void window.showInformationMessage('Setup Pack: no pack files or source folders in this workspace.');
    const failures = s.failed.length ? `; ${s.failed.length} could not be validated (see Output: Setup Pack)` : '';
    await offerProblems(
      `Setup Pack: ${found} validated: ${plural(s.errors, 'error')}, ${plural(s.warnings, 'warning')}${failures}.`,
      s.errors + s.warnings > 0,
    );
  } catch (e) {
    failed(e);
  }
}

/** The folder or file a command was given (the explorer passes its Uri), else the active editor's. */
function target(given: unknown): Uri | undefined {
  return given instanceof Uri ? given : window.activeTextEditor?.document.uri;
}

/** "Setup Pack: Build pack from folder": built once to learn whether it builds, then written where asked. */
export async function buildPackCommand(client: LanguageClient, given: unknown): Promise<void> {
  try {
    const from =
      target(given) ??
      (await window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, openLabel: 'Build this folder' }))?.[0];
    if (!from) return;
    const first = await run<BuildSummary>(client, BUILD, [{ folder: from.toString() }]);
    if (!first.built)
      return offerProblems(`Setup Pack: ${Uri.parse(first.folder).fsPath} does not build: ${plural(first.errors, 'error')}.`, true);
    const root = Uri.parse(first.folder).fsPath;
    const output = await window.showSaveDialog({
      defaultUri: Uri.file(join(dirname(root), `${basename(root)}.json`)),
      filters: { 'Setup Pack': ['json'] },
      saveLabel: 'Build',
    });
    if (!output) return;
    const built = await run<BuildSummary>(client, BUILD, [{ folder: first.folder, output: output.toString() }]);
    if (!built.output) return offerProblems(`Setup Pack: ${root} does not build: ${plural(built.errors, 'error')}.`, true);
    await window.showTextDocument(Uri.parse(built.output));
    void window.showInformationMessage(
      `Setup Pack: built ${output.fsPath}${built.warnings ? ` (${plural(built.warnings, 'warning')})` : ''}.`,
    );
  } catch (e) {
    failed(e);
  }
}

/** The pack a document stands for: its source folder built, or its own text (unsaved edits included). */
async function packText(client: LanguageClient, doc: TextDocument): Promise<{ name: string; text: string }> {
  if (doc.uri.scheme === 'file') {
    const built = await run<BuildSummary>(client, BUILD, [{ folder: doc.uri.toString() }]).catch((e: { data?: { reason?: string } }) => {
      if (e?.data?.reason === 'not-a-source-folder') return undefined;
      throw e;
    });
    if (built && !built.text)
      throw new Error(`${Uri.parse(built.folder).fsPath} does not build (${plural(built.errors, 'error')}): see Problems.`);
    if (built?.text) return { name: `${basename(Uri.parse(built.folder).fsPath)}.json`, text: built.text };
  }
  return { name: basename(doc.uri.path) || 'pack.json', text: doc.getText() };
}

/** "Open in Setup Pack editor": the pack handed to the web editor (setupPack.editorUrl) in the browser. */
export async function openInEditorCommand(client: LanguageClient, handOff: HandOff, given: unknown): Promise<void> {
  try {
    const uri = target(given);
    if (!uri) return void window.showInformationMessage('Setup Pack: open a pack file, or a file of a source folder, first.');
    const doc = await workspace.openTextDocument(uri);
    const pack = await packText(client, doc);
    const editorUrl = workspace.getConfiguration('setupPack').get<string>('editorUrl') ?? 'http://127.0.0.1:5173/';
    const address = editorAddress(editorUrl, await handOff.offer(pack.name.replace(/[^\w.-]+/g, '_'), pack.text));
    if (!(await env.openExternal(Uri.parse(address)))) throw new Error(`the browser did not open ${address}`);
  } catch (e) {
    failed(e);
  }
}
