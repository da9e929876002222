// A pack source folder (the demo pack unpacked, as `setup-pack build` reads it): findings file by
// file as `setup-pack validate <folder>` reports them, unsaved edits included; definitions and
// references across its files; a rename of a key across them, moving the files named after it.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  CodeAction,
  CompletionList,
  DocumentSymbol,
  Hover,
  Location,
  RenameFile,
  TextDocumentEdit,
  WorkspaceEdit,
} from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, buildServer, DEMO_PACK, FIXTURES, LspClient, ROOT, uriOf } from './client.js';
import { applyEdits, fromLsp, positionIn, rangeOf, type Finding } from './compare.js';

let client: LspClient;
let dir: string;
const file = (rel: string) => join(dir, rel);
const read = (rel: string) => readFileSync(file(rel), 'utf8');
const RENAMES = { workspace: { workspaceEdit: { documentChanges: true, resourceOperations: ['rename'] } } };

beforeAll(async () => {
  buildServer();
  dir = join(mkdtempSync(join(tmpdir(), 'setup-pack-lsp-folder-')), 'buyer');
  expect(spawnSync(process.execPath, [BIN, 'unpack', DEMO_PACK, dir]).status).toBe(0);
  client = await LspClient.start({ capabilities: RENAMES });
}, 120_000);

afterAll(async () => {
  await client.stop();
});

/** `setup-pack validate <folder> --format json`: each file's findings, by absolute path. */
function cliFolder(folder: string): Map<string, Finding[]> {
  const r = spawnSync(process.execPath, [BIN, 'validate', folder, '--format', 'json'], { cwd: ROOT, encoding: 'utf8' });
  const report = JSON.parse(r.stdout) as { files: { path: string; diagnostics: Parameters<typeof toFinding>[0][] }[] };
  return new Map(report.files.filter((f) => f.diagnostics.length).map((f) => [resolve(ROOT, f.path), f.diagnostics.map(toFinding)]));
}

function toFinding(d: {
  code: string;
  severity: string;
  message: string;
  line: number;
  column: number;
  endLine: number | null;
  endColumn: number | null;
  related?: { message: string; line: number; column: number }[];
}): Finding {
  return {
    code: d.code,
    severity: d.severity,
    message: d.message,
    line: d.line,
    column: d.column,
    endLine: d.endLine ?? d.line,
    endColumn: d.endColumn ?? d.column,
    related: (d.related ?? []).map((r) => `${r.line}:${r.column} ${r.message}`),
  };
}

/** The next publication for a file, after `since` publications. */
async function nextPublication(uri: string, since: number) {
  for (let waited = 0; client.publications(uri).length <= since; waited += 20) {
    if (waited > 30_000) throw new Error(`no findings published for ${uri}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return client.publications(uri).at(-1)!.diagnostics;
}

/** A WorkspaceEdit applied to the files on disk, as a client applies it. */
function applyToDisk(edit: WorkspaceEdit): void {
  const changes: (TextDocumentEdit | RenameFile)[] =
    edit.documentChanges ?? Object.entries(edit.changes ?? {}).map(([uri, edits]) => ({ textDocument: { uri, version: null }, edits }));
  for (const c of changes) {
    if ('kind' in c) renameSync(fileURLToPath(c.oldUri), fileURLToPath(c.newUri));
    else
      writeFileSync(
        fileURLToPath(c.textDocument.uri),
        applyEdits(readFileSync(fileURLToPath(c.textDocument.uri), 'utf8'), c.edits as { range: never; newText: string }[]),
      );
  }
}

describe('a source folder', () => {
  const automation = 'automations/new-lead-welcome.json';

  it("publishes each file's findings as `setup-pack validate <folder>` reports them, unsaved text included", async () => {
    const uri = uriOf(file(automation));
    const text = read(automation);
    await client.open(uri, text);
    const broken = text
      .replace('"action.add_tag"', '"action.send_fax"')
      .replace('"template_id": "tpl-follow-up"', '"template_id": "tpl-nowhere"');
    const since = client.publications(uri).length;
    await client.change(uri, { text: broken });
    const published = (await nextPublication(uri, since)).map(fromLsp);
    // The same edit saved in a copy of the folder, validated by the CLI.
    const copy = `${dir}-copy`;
    cpSync(dir, copy, { recursive: true });
    writeFileSync(join(copy, automation), broken);
    const cli = cliFolder(copy);
    expect([...cli.keys()]).toEqual([join(copy, automation)]);
    expect(published).toEqual(cli.get(join(copy, automation)));
    expect(published.map((f) => f.code)).toContain('schema/enum');
    const cleared = client.publications(uri).length;
    await client.change(uri, { text });
    expect(await nextPublication(uri, cleared)).toEqual([]);
  });

  it("hovers and goes to definitions across the folder's files", async () => {
    const uri = uriOf(file(automation));
    const text = read(automation);
    const hover = await client.request<Hover>('textDocument/hover', {
      textDocument: { uri },
      position: positionIn(text, '"action.send_email"', 3),
    });
    expect((hover.contents as { value: string }).value).toContain('**Send email**');
    const template = await client.request<Location>('textDocument/definition', {
      textDocument: { uri },
      position: positionIn(text, '"template_id": "tpl-welcome-sms"', 20),
    });
    expect(template.uri).toBe(uriOf(file('templates/tpl-welcome-sms.json')));
    const tag = await client.request<Location>('textDocument/definition', {
      textDocument: { uri },
      position: positionIn(text, '"tag_id": "tag-buyer-lead"', 14),
    });
    expect(tag).toEqual({ uri: uriOf(file('resources/tag.json')), range: rangeOf(read('resources/tag.json'), '"tag-buyer-lead"') });
    const uses = await client.request<Location[]>('textDocument/references', {
      textDocument: { uri },
      position: positionIn(text, '"tag_id": "tag-buyer-lead"', 14),
      context: { includeDeclaration: false },
    });
    // The block's tag_id and the references entry here, and the smart list's filter value.
    expect(uses.map((l) => l.uri).sort()).toEqual([
      uriOf(file(automation)),
      uriOf(file(automation)),
      uriOf(file('smart-lists/new-buyer-leads.json')),
    ]);
  });

  it("completes a block's reference ids and edge handles in an automation's file", async () => {
    const uri = uriOf(file(automation));
    const text = read(automation);
    const complete = async (needle: string, offset: number) =>
      (
        (
          await client.request<CompletionList>('textDocument/completion', {
            textDocument: { uri },
            position: positionIn(text, needle, offset),
          })
        )?.items ?? []
      ).map((i) => i.label);
    expect(await complete('"template_id": "tpl-welcome-sms"', 18)).toEqual(['tpl-welcome-sms', 'tpl-follow-up']);
    expect(await complete('"handle": "true"', 12)).toEqual(['true', 'false']);
    // An assignee: the user the automation's references list.
    expect(await complete('"assignee_id": "usr_8841"', 18)).toEqual(['usr_8841']);
  });

  it("completes and explains merge tags in a template's body file", async () => {
    const body = 'templates/tpl-follow-up.html';
    const uri = uriOf(file(body));
    const text = read(body).replace('{{owner.signature}}', '{{owner.sig');
    await client.open(uri, text, 'html');
    const list = await client.request<CompletionList>('textDocument/completion', {
      textDocument: { uri },
      position: positionIn(text, '{{owner.sig', 11),
    });
    const signature = list.items.find((i) => i.label === 'owner.signature')!;
    expect(applyEdits(text, [signature.textEdit as never])).toBe(read(body));
    const hover = await client.request<Hover>('textDocument/hover', {
      textDocument: { uri },
      position: positionIn(text, '{{contact.first_name}}', 5),
    });
    expect((hover.contents as { value: string }).value).toContain("The contact's first name.");
    await client.close(uri);
  });

  it("offers core's fixes in a folder's files: a quick fix on its finding, and Fix all across the files", async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'setup-pack-lsp-fixes-')), 'listings');
    expect(spawnSync(process.execPath, [BIN, 'unpack', join(FIXTURES, 'invalid/asset-sha256-mismatch.json'), root]).status).toBe(0);
    const pipeline = join(root, 'pipelines/listings.json');
    writeFileSync(
      pipeline,
      readFileSync(pipeline, 'utf8').replace(
        '"probability": 100,\n      "stageType": "CLOSED_WON"',
        '"probability": 95,\n      "stageType": "CLOSED_WON"',
      ),
    );
    const assets = join(root, 'assets.json');
    const uri = uriOf(assets);
    const since = client.publications(uri).length;
    await client.open(uri, readFileSync(assets, 'utf8'));
    const diagnostics = await nextPublication(uri, since);
    const mismatch = diagnostics.find((d) => d.code === 'asset/sha256-mismatch')!;
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: mismatch.range,
      context: { diagnostics: [mismatch] },
    });
    const quick = actions.find((a) => a.kind === 'quickfix' && !a.title.startsWith('Fix all'))!;
    expect(quick.title).toMatch(/^Set sha256 to "[0-9a-f]+…" \(setup-pack fix\)$/);
    expect(Object.keys(quick.edit!.changes!)).toEqual([uri]);
    // Fix all: the asset's hash here, the won stage's probability in the pipeline's file.
    const [all] = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: mismatch.range,
      context: { diagnostics: [], only: ['source.fixAll.setup-pack'] },
    });
    expect(Object.keys(all.edit!.changes!).sort()).toEqual([uri, uriOf(pipeline)].sort());
    await client.close(uri);
    applyToDisk(all.edit!);
    const left = cliFolder(root);
    expect(
      [...left.values()]
        .flat()
        .map((f) => f.code)
        .filter((c) => c === 'asset/sha256-mismatch' || c === 'pipeline/probability-normalised'),
    ).toEqual([]);
    expect(readFileSync(pipeline, 'utf8')).toContain('"probability": 100,');
  });

  it('outlines an automation file with its blocks', async () => {
    const symbols = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', {
      textDocument: { uri: uriOf(file(automation)) },
    });
    expect(symbols.map((s) => s.name)).toEqual(['new-lead-welcome']);
    expect(symbols[0].children!.map((c) => c.name)).toEqual(['start', 'tag', 'sms', 'wait', 'replied', 'task', 'email']);
  });

  it('renames a template key across the files, moving the files named after it', async () => {
    const uri = uriOf(file(automation));
    const text = read(automation);
    const before = cliFolder(dir);
    const edit = await client.request<WorkspaceEdit>('textDocument/rename', {
      textDocument: { uri },
      position: positionIn(text, '"template_id": "tpl-welcome-sms"', 20),
      newName: 'tpl-hello',
    });
    const moved = (edit.documentChanges ?? []).filter((c): c is RenameFile => 'kind' in c).map((c) => [c.oldUri, c.newUri]);
    expect(moved).toEqual(
      ['json', 'txt'].map((ext) => [uriOf(file(`templates/tpl-welcome-sms.${ext}`)), uriOf(file(`templates/tpl-hello.${ext}`))]),
    );
    applyToDisk(edit);
    expect(read('manifest.json')).toContain('"tpl-hello"');
    expect(read(automation).split('"tpl-hello"').length - 1).toBe(2); // the block's template_id and the references entry
    expect(cliFolder(dir)).toEqual(before);
  });

  it("renames a resource key in its kind's file, the manifest and every use", async () => {
    const tags = uriOf(file('resources/tag.json'));
    const text = read('resources/tag.json');
    await client.open(tags, text);
    const edit = await client.request<WorkspaceEdit>('textDocument/rename', {
      textDocument: { uri: tags },
      position: positionIn(text, '"tag-buyer-lead"', 3),
      newName: 'tag-buyer',
    });
    expect(Object.keys(edit.changes ?? {}).sort()).toEqual(
      [automation, 'manifest.json', 'resources/tag.json', 'smart-lists/new-buyer-leads.json'].map((rel) => uriOf(file(rel))).sort(),
    );
    await client.close(tags);
    applyToDisk(edit);
    expect(cliFolder(dir)).toEqual(new Map());
    expect(spawnSync(process.execPath, [BIN, 'build', dir, '-o', `${dir}.json`]).status).toBe(0);
  });

  it('refuses a rename that moves files for a client that cannot apply file renames', async () => {
    const plain = await LspClient.start();
    const manifest = uriOf(file('manifest.json'));
    const text = read('manifest.json');
    await plain.open(manifest, text);
    const refused = await plain
      .request('textDocument/rename', {
        textDocument: { uri: manifest },
        position: positionIn(text, '"old-reminder"', 3),
        newName: 'reminder',
      })
      .catch((e: Error) => e);
    expect(String(refused)).toContain('renames its files too, which this editor does not apply');
    await plain.stop();
  });
});
