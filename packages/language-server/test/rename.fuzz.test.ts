// Generated packs (the shared generator): the server publishes what the CLI finds, and renaming any
// key through the server gives a pack the CLI finds the same things in, but for the key's new name.
// FUZZ_RUNS sets the number of packs (a few in `npm test`, many under `npm run fuzz`).
import { fuzzConfig, validPack } from '@setup-pack/testkit';
import fc from 'fast-check';
import type { DocumentSymbol, WorkspaceEdit } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, LspClient } from './client.js';
import { applyEdits, cliFindings, editsOf, fromLsp, type Finding } from './compare.js';

const { numRuns, seed, timeoutMs } = fuzzConfig('language server: diagnostics and rename', 8);
let client: LspClient;
let opened = 0;

beforeAll(async () => {
  buildServer();
  client = await LspClient.start();
}, 120_000);

afterAll(async () => {
  await client.stop();
});

/** What stays the same when a key is renamed: everything but the key's name in messages (and columns on its lines). */
const renamedAs = (from: string, to: string) => (f: Finding) => ({
  code: f.code,
  severity: f.severity,
  line: f.line,
  message: f.message.split(`"${from}"`).join(`"${to}"`),
});

describe('generated packs', () => {
  it('publish the CLI findings, and keep them through a rename of any key', { timeout: timeoutMs(3000) }, async () => {
    await fc.assert(
      fc.asyncProperty(validPack(), fc.nat(), async (pack, pick) => {
        const text = JSON.stringify(pack, null, 2);
        const uri = `file:///generated-${opened++}.json`;
        await client.open(uri, text);
        const before = cliFindings(text);
        expect((await client.diagnostics(uri, 1)).map(fromLsp)).toEqual(before);
        const symbols = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
        const keys = symbols.flatMap((s) => [s, ...(s.detail?.startsWith('pipeline') ? (s.children ?? []) : [])]);
        if (keys.length === 0) return client.close(uri);
        const key = keys[pick % keys.length];
        const position = { line: key.selectionRange.start.line, character: key.selectionRange.start.character + 1 };
        const to = `renamed-${opened}`;
        const edit = await client.request<WorkspaceEdit>('textDocument/rename', { textDocument: { uri }, position, newName: to });
        await client.close(uri);
        const renamed = applyEdits(text, editsOf(edit, uri));
        expect(renamed).toContain(JSON.stringify(to));
        expect(cliFindings(renamed).map(renamedAs(key.name, to))).toEqual(before.map(renamedAs(key.name, to)));
      }),
      { numRuns, seed },
    );
  });
});
