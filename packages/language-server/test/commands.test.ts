// The server's commands, as a client runs them (workspace/executeCommand): "Validate workspace"
// publishes what `setup-pack validate` finds in every pack file and source folder under the
// workspace's folders; "Build pack" writes what `setup-pack build` writes.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, buildServer, DEMO_PACK, FIXTURES, LspClient, ROOT, uriOf } from './client.js';
import { cliFindings, fromLsp } from './compare.js';

let client: LspClient;
let dir: string;
const STAMP = '2026-01-31T12:00:00Z';

interface Summary {
  packs: number;
  folders: number;
  errors: number;
  warnings: number;
  files: { uri: string; errors: number; warnings: number }[];
  failed: string[];
}

beforeAll(async () => {
  buildServer();
  dir = mkdtempSync(join(tmpdir(), 'setup-pack-lsp-workspace-'));
  copyFileSync(DEMO_PACK, join(dir, 'starter.json'));
  mkdirSync(join(dir, 'broken'));
  copyFileSync(join(FIXTURES, 'invalid/graph-cycle.json'), join(dir, 'broken/cycle.json'));
  writeFileSync(join(dir, 'package.json'), '{ "name": "not-a-pack" }');
  // Dependencies are never searched, even when they hold packs.
  mkdirSync(join(dir, 'node_modules/dep'), { recursive: true });
  copyFileSync(join(FIXTURES, 'invalid/graph-cycle.json'), join(dir, 'node_modules/dep/pack.json'));
  expect(spawnSync(process.execPath, [BIN, 'unpack', DEMO_PACK, join(dir, 'source')]).status).toBe(0);
  const automation = join(dir, 'source/automations/new-lead-welcome.json');
  writeFileSync(automation, readFileSync(automation, 'utf8').replace('"action.add_tag"', '"action.send_fax"'));
  client = await LspClient.start({ workspaceFolders: [dir] });
}, 120_000);

afterAll(async () => {
  expect(await client.stop()).toBe(0);
});

const run = <T>(command: string, args: unknown[] = []) => client.request<T>('workspace/executeCommand', { command, arguments: args });

/** `setup-pack validate <folder> --format json`: the folder's findings, as LSP tests compare them. */
function cliFolderErrors(folder: string): number {
  const r = spawnSync(process.execPath, [BIN, 'validate', folder, '--format', 'json'], { cwd: ROOT, encoding: 'utf8' });
  return (JSON.parse(r.stdout) as { summary: { errors: number } }).summary.errors;
}

describe("the server's commands", () => {
  it('offers its commands at initialize', () => {
    expect(client.init?.capabilities.executeCommandProvider?.commands).toEqual(['setup-pack.validateWorkspace', 'setup-pack.buildPack']);
  });

  it('validates every pack file and source folder of the workspace, open or not, and publishes the findings', async () => {
    const summary = await run<Summary>('setup-pack.validateWorkspace');
    expect(summary).toMatchObject({ packs: 2, folders: 1, failed: [] });
    const cycle = join(dir, 'broken/cycle.json');
    expect((await client.diagnostics(uriOf(cycle))).map(fromLsp)).toEqual(cliFindings(readFileSync(cycle, 'utf8')));
    // A pack without findings is published empty: an earlier check's findings are cleared.
    expect(await client.diagnostics(uriOf(join(dir, 'starter.json')))).toEqual([]);
    const automation = uriOf(join(dir, 'source/automations/new-lead-welcome.json'));
    expect((await client.diagnostics(automation)).map((d) => d.code)).toContain('schema/enum');
    expect(summary.errors).toBe(
      cliFindings(readFileSync(cycle, 'utf8')).filter((f) => f.severity === 'error').length + cliFolderErrors(join(dir, 'source')),
    );
    expect(summary.files.map((f) => f.uri)).not.toContain(uriOf(join(dir, 'node_modules/dep/pack.json')));
    expect(client.publications(uriOf(join(dir, 'package.json')))).toEqual([]);
  });

  it('leaves a pack the editor has open to its own findings, of its unsaved text', async () => {
    const cycle = uriOf(join(dir, 'broken/cycle.json'));
    await client.open(cycle, readFileSync(DEMO_PACK, 'utf8'));
    expect(await client.diagnostics(cycle, 1)).toEqual([]);
    const before = client.publications(cycle).length;
    const summary = await run<Summary>('setup-pack.validateWorkspace');
    expect(summary.files.map((f) => f.uri)).not.toContain(cycle);
    expect(client.publications(cycle).length).toBe(before);
    await client.close(cycle);
  });

  it("validates the folders it is given instead of the workspace's", async () => {
    const summary = await run<Summary>('setup-pack.validateWorkspace', [uriOf(join(dir, 'broken'))]);
    expect(summary).toMatchObject({ packs: 1, folders: 0 });
    expect(summary.files.map((f) => f.uri)).toEqual([uriOf(join(dir, 'broken/cycle.json'))]);
  });

  it('builds a source folder as `setup-pack build` does: the text, or the file written', async () => {
    const folder = join(tmpdir(), `setup-pack-lsp-build-${process.pid}`);
    expect(spawnSync(process.execPath, [BIN, 'unpack', DEMO_PACK, folder, '--force']).status).toBe(0);
    const cli = spawnSync(process.execPath, [BIN, 'build', folder, '--exported-at', STAMP], { encoding: 'utf8' });
    expect(cli.status).toBe(0);
    const built = await run<{ built: boolean; text: string; errors: number }>('setup-pack.buildPack', [
      { folder: uriOf(folder), exportedAt: STAMP },
    ]);
    expect(built).toMatchObject({ built: true, errors: 0 });
    expect(built.text).toBe(cli.stdout);
    // From a file of the folder, written where asked.
    const output = join(dir, 'dist/starter-built.json');
    mkdirSync(join(dir, 'dist'), { recursive: true });
    const written = await run<{ output: string; text?: string }>('setup-pack.buildPack', [
      { folder: uriOf(join(folder, 'manifest.json')), output: uriOf(output), exportedAt: STAMP },
    ]);
    expect(written.output).toBe(uriOf(output));
    expect(written.text).toBeUndefined();
    expect(readFileSync(output, 'utf8')).toBe(cli.stdout);
  });

  it('builds nothing from a folder with errors, and says why it cannot build', async () => {
    const output = join(dir, 'never.json');
    const failed = await run<{ built: boolean; errors: number; files: { uri: string }[] }>('setup-pack.buildPack', [
      { folder: uriOf(join(dir, 'source')), output: uriOf(output) },
    ]);
    expect(failed.built).toBe(false);
    expect(failed.errors).toBeGreaterThan(0);
    expect(failed.files.map((f) => f.uri)).toContain(uriOf(join(dir, 'source/automations/new-lead-welcome.json')));
    expect(existsSync(output)).toBe(false);
    const inside = await run('setup-pack.buildPack', [
      { folder: uriOf(join(dir, 'source')), output: uriOf(join(dir, 'source/manifest.json')) },
    ]).catch((e: Error) => e);
    expect(String(inside)).toContain('is a file of the source folder');
    const notFolder = await run('setup-pack.buildPack', [{ folder: uriOf(join(dir, 'broken')) }]).catch((e: Error) => e);
    expect(String(notFolder)).toContain('is not in a pack source folder');
    const unknown = await run('setup-pack.deploy').catch((e: Error) => e);
    expect(String(unknown)).toContain('No command "setup-pack.deploy"');
  });
});
