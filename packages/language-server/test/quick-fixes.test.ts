// Every finding code core can produce either has a quick fix (core's fixes, what `setup-pack fix`
// applies, offered on its findings) or stands below with the reason it has none. A new code fails
// here until someone decides which.
import { RULE_METADATA } from '@setup-pack/core';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CodeAction, Diagnostic } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, FIXTURES, LspClient } from './client.js';
import { applyEdits, cliFindings, editsOf } from './compare.js';

const fixture = (code: string) => join(FIXTURES, 'invalid', `${code.replace('/', '-')}.json`);
const sha256Fixture = readFileSync(fixture('asset/sha256-mismatch'), 'utf8');
const SHA = '"sha256": "0000000000000000000000000000000000000000000000000000000000000000"';

/** Codes with a quick fix, and a pack showing one (by default the code's failing fixture). */
const QUICK_FIXES: Record<string, { text?: string; why: string }> = {
  'asset/sha256-mismatch': { why: 'sha256 recomputed from the data' },
  'asset/size-mismatch': { why: 'byteSize recomputed from the data' },
  'pipeline/probability-normalised': { why: 'probability set to 100 (won) or 0 (lost)' },
  'graph/unknown-field': { why: "an edge's sourceHandle moved to handle" },
  'schema/required': {
    text: sha256Fixture.replace(`${SHA},\n`, ''),
    why: "an asset's missing sha256 (or byteSize) computed from its data",
  },
  'schema/pattern': { text: sha256Fixture.replace(SHA, '"sha256": "not a hash"'), why: "an asset's sha256 that is no hash, recomputed" },
  'schema/type': {
    text: sha256Fixture.replace('"byteSize": 1399', '"byteSize": "1399"'),
    why: "an asset's byteSize written as text, recomputed",
  },
};

/** Codes with no quick fix: the pack does not hold the answer, or choosing it is the author's call. */
const NO_FIX: Record<string, string> = {
  'json/syntax': 'where the text breaks, what was meant is not known',
  'json/duplicate-key': "which of the two values is meant is the author's call",
  'json/too-deep': 'no shallower value is implied',
  'json/number-range': 'the number meant cannot be held; only the author knows it',
  'json/number-precision': 'writing the id as a string changes its type; the author decides',
  'schema/unknown-field': "a field the format rejects may be a typo of another; removing data is the author's call",
  'schema/enum': 'which allowed value is meant is not known',
  'schema/const': 'fixed values (format, version) are written by the exporter; a wrong one means the file is another format',
  'schema/too-short': "the text to add is the author's",
  'schema/too-long': "what to cut is the author's call",
  'schema/too-few': "the items to add are the author's",
  'schema/too-many': "which items to drop is the author's call",
  'schema/range': 'the number meant is not known',
  'schema/format': 'the uuid, timestamp or address meant is not known',
  'asset/invalid-base64': "the file's bytes are not in the pack",
  'asset/source-url-not-allowed': "dropping the address or changing the role is the author's call",
  'asset/source-url-required': 'the address the templates use is not known',
  'asset/unused-email-image': "using the image or removing the asset is the author's call",
  'catalog/config-field': "the value a block needs is the author's",
  'catalog/unknown-config-field': 'an info: the field is kept as exported',
  'filters/unrecognized': 'the filter meant is not known',
  'flow/cascade-loop': "which automation should stop the loop, and how, is the author's design",
  'flow/conflicting-actions': "which of the two automations should win is the author's call",
  'flow/outside-send-window': 'the time meant for the message is not known',
  'flow/self-trigger': "which step should not start the automation again is the author's design",
  'graph/cycle': "which edge of the cycle to remove is the author's call",
  'graph/duplicate-edge': "which copy to keep is the author's call",
  'graph/duplicate-edge-id': "renaming an edge id is the author's call",
  'graph/duplicate-node-id': "which block keeps the id, and which edges follow it, is the author's call",
  'graph/edge-into-trigger': 'where the edge was meant to go is not known',
  'graph/invalid-handle': 'which output was meant is not known',
  'graph/no-trigger': "which trigger starts the automation is the author's",
  'graph/unknown-node': 'which block the edge meant is not known',
  'graph/unreachable-node': "where to connect the block is the author's call",
  'graph/unwired-output': "where the output leads is the author's",
  'pack/duplicate-key': "a new key is the author's to choose (rename offers it)",
  'pack/schema-version-brand': "raising schemaVersion or dropping the brand is the author's call",
  'pipeline/duplicate-stage-key': "a new key is the author's to choose (rename offers it)",
  'pipeline/duplicate-stage-name': "a new name is the author's",
  'pipeline/missing-lost-stage': "which stage is lost is the author's",
  'pipeline/missing-won-stage': "which stage is won is the author's",
  'reference/missing-name': "the workspace object's name is not in the pack",
  'reference/unresolved-id':
    "core's fixes do not choose a key: the finding names the nearest one, and whether it is meant is the author's call",
  'reference/unused': "using the id or removing the reference is the author's call",
  'settings/duplicate-day': "core's fixes do not drop a repeated day: setup-pack fix leaves it to the author",
  'settings/send-window-empty': 'the window meant is not known',
  'settings/send-window-incomplete': 'the missing end of the window is not known',
  'internal/error': 'a bug of the validator',
};

let client: LspClient;
let opened = 0;

beforeAll(async () => {
  buildServer();
  client = await LspClient.start();
}, 120_000);

afterAll(async () => {
  await client.stop();
});

/** Opens a text as a new document; its findings, and the quick fixes offered on each. */
async function openWithActions(text: string) {
  const uri = `file:///quick-fix-${opened++}.json`;
  await client.open(uri, text);
  const diagnostics = await client.diagnostics(uri, 1);
  const actions = await Promise.all(
    diagnostics.map((d) =>
      client.request<CodeAction[]>('textDocument/codeAction', {
        textDocument: { uri },
        range: d.range,
        context: { diagnostics: [d], only: ['quickfix'] },
      }),
    ),
  );
  return { uri, diagnostics, actions };
}

describe('quick fixes', () => {
  it('every finding code has a quick fix or a reason it has none', () => {
    const codes = RULE_METADATA.map((r) => r.code);
    const decided = [...Object.keys(QUICK_FIXES), ...Object.keys(NO_FIX)];
    expect(
      codes.filter((c) => !decided.includes(c)),
      'codes with neither a quick fix nor a reason for none',
    ).toEqual([]);
    expect(
      decided.filter((c) => !codes.includes(c)),
      'codes listed here that core no longer has',
    ).toEqual([]);
    expect(Object.keys(QUICK_FIXES).filter((c) => c in NO_FIX)).toEqual([]);
  });

  it.each(Object.entries(QUICK_FIXES))('%s: a quick fix on its finding that removes it', async (code, { text }) => {
    const source = text ?? readFileSync(fixture(code), 'utf8');
    const { uri, diagnostics, actions } = await openWithActions(source);
    const fixOf = (i: number) => actions[i].find((a) => a.diagnostics?.some((x) => same(x, diagnostics[i])));
    const at = diagnostics.findIndex((d, i) => d.code === code && fixOf(i));
    expect(at, `a ${code} finding with a quick fix`).toBeGreaterThanOrEqual(0);
    const fix = fixOf(at)!;
    const fixed = applyEdits(source, editsOf(fix.edit!, uri));
    const before = cliFindings(source).filter((f) => f.code === code).length;
    expect(cliFindings(fixed).filter((f) => f.code === code).length).toBe(before - 1);
  });

  it.each(Object.keys(NO_FIX).filter((c) => existsSync(fixture(c))))(
    '%s: its failing fixture is offered no quick fix for it',
    async (code) => {
      const { diagnostics, actions } = await openWithActions(readFileSync(fixture(code), 'utf8'));
      const ofCode = diagnostics.map((d, i) => [d, actions[i]] as const).filter(([d]) => d.code === code);
      expect(ofCode.length).toBeGreaterThan(0);
      for (const [, offered] of ofCode) expect(offered.filter((a) => a.kind === 'quickfix' && !a.title.startsWith('Fix all'))).toEqual([]);
    },
  );
});

const same = (a: Diagnostic, b: Diagnostic) =>
  a.code === b.code && JSON.stringify(a.range) === JSON.stringify(b.range) && a.message === b.message;
