// The extension as users install it: `npm run package -w apps/vscode` makes the .vsix offline with
// @vscode/vsce; it holds the manifest, the client and the language server it ships, and nothing of
// the sources; the server, run from the unpacked .vsix with no node_modules beside it, serves a
// pack file and a source folder.
import { execFileSync, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { openPromise } from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, DEMO_PACK, FIXTURES, LspClient, ROOT, readText, uriOf, BIN } from '../../../packages/language-server/test/client.js';

const app = join(ROOT, 'apps/vscode');
const vsix = join(app, 'setup-pack-vscode.vsix');
const unpacked = mkdtempSync(join(tmpdir(), 'setup-pack-vsix-'));
let files: string[] = [];

/** The .vsix (a zip) unpacked into `to`: the paths of its entries. */
async function unzip(file: string, to: string): Promise<string[]> {
  const zip = await openPromise(file, { lazyEntries: true });
  const names: string[] = [];
  for await (const entry of zip.eachEntry()) {
    names.push(entry.fileName);
    if (entry.fileName.endsWith('/')) continue;
    mkdirSync(dirname(join(to, entry.fileName)), { recursive: true });
    await pipeline(await zip.openReadStreamPromise(entry), createWriteStream(join(to, entry.fileName)));
  }
  zip.close();
  return names;
}

beforeAll(async () => {
  buildServer();
  // Under the lock the VS Code test takes to build it too: one build at a time writes dist/ and server/.
  execFileSync('flock', [join(ROOT, 'node_modules/.setup-pack-vsix-build.lock'), 'npm', 'run', 'package', '-w', 'apps/vscode'], {
    cwd: ROOT,
    stdio: 'pipe',
  });
  files = await unzip(vsix, unpacked);
}, 300_000);

let client: LspClient | undefined;
afterAll(async () => {
  await client?.stop();
});

describe('the .vsix', () => {
  it('holds the manifest, the client and the server it ships, and no sources or dev files', () => {
    const manifest = JSON.parse(readFileSync(join(unpacked, 'extension/package.json'), 'utf8'));
    expect(manifest).toMatchObject({
      name: 'setup-pack-vscode',
      publisher: 'setup-pack',
      main: './dist/extension.cjs',
      activationEvents: ['onLanguage:json', 'workspaceContains:**/manifest.json'],
    });
    expect(manifest.engines.vscode).toMatch(/^\^1\.\d+/);
    for (const f of [
      'extension.vsixmanifest',
      'extension/package.json',
      'extension/readme.md',
      'extension/dist/extension.cjs',
      'extension/server/server.mjs',
      'extension/server/worker.mjs',
      'extension/server/hasher.mjs',
      'extension/server/lsp-support.mjs',
    ])
      expect(files).toContain(f);
    expect(files.filter((f) => /(^|\/)(src|test|node_modules)\/|\.ts$|\.map$|build\.mjs$|tsconfig/.test(f))).toEqual([]);
    // The client is CommonJS for VS Code's extension host and parses as such.
    expect(spawnSync(process.execPath, ['--check', join(unpacked, 'extension/dist/extension.cjs')]).status).toBe(0);
  });

  it('contributes its three commands, each registered by the client and calling a command the server offers', () => {
    const manifest = JSON.parse(readFileSync(join(unpacked, 'extension/package.json'), 'utf8'));
    const ids = (manifest.contributes.commands as { command: string; title: string }[]).map((c) => c.command);
    expect(manifest.contributes.commands.map((c: { title: string }) => c.title)).toEqual([
      'Validate workspace',
      'Build pack from folder',
      'Open in Setup Pack editor',
    ]);
    const client = readFileSync(join(unpacked, 'extension/dist/extension.cjs'), 'utf8');
    for (const id of ids) expect(client).toContain(`registerCommand("${id}"`);
    for (const menu of Object.values(manifest.contributes.menus) as { command: string }[][])
      for (const m of menu) expect(ids).toContain(m.command);
    // The server's command names, which the client sends; they differ from the client's own.
    for (const server of ['setup-pack.validateWorkspace', 'setup-pack.buildPack']) expect(client).toContain(`"${server}"`);
    expect(manifest.contributes.configuration.properties['setupPack.editorUrl'].default).toBe('http://127.0.0.1:5173/');
  });

  it("runs its server from the unpacked extension: a pack file's findings and a source folder's", async () => {
    expect(existsSync(join(unpacked, 'extension/node_modules'))).toBe(false);
    client = await LspClient.start({ args: [join(unpacked, 'extension/server/server.mjs'), '--stdio'], cwd: unpacked });
    const pack = join(FIXTURES, 'invalid/graph-cycle.json');
    await client.open(uriOf(pack), readText(pack));
    expect((await client.diagnostics(uriOf(pack), 1)).map((d) => d.code)).toEqual(['graph/cycle']);
    const folder = join(mkdtempSync(join(tmpdir(), 'setup-pack-vsix-folder-')), 'buyer');
    expect(spawnSync(process.execPath, [BIN, 'unpack', DEMO_PACK, folder]).status).toBe(0);
    const automation = join(folder, 'automations/old-reminder.json');
    await client.open(uriOf(automation), readText(automation).replace('"action.notify"', '"action.shout"'));
    expect((await client.diagnostics(uriOf(automation))).map((d) => d.code)).toEqual(['schema/enum']);
    // Its commands, with the CLI's source-folder code it bundles: a build of the folder on disk.
    const built = await client.request<{ built: boolean; text?: string }>('workspace/executeCommand', {
      command: 'setup-pack.buildPack',
      arguments: [{ folder: uriOf(folder), exportedAt: '2026-01-31T12:00:00Z' }],
    });
    expect(built.built).toBe(true);
    expect(built.text).toBe(
      spawnSync(process.execPath, [BIN, 'build', folder, '--exported-at', '2026-01-31T12:00:00Z'], { encoding: 'utf8' }).stdout,
    );
  });
});
