// What the tests compare: the server's published diagnostics and `setup-pack validate --format json`
// on the same text, both as { code, severity, message, range, related } in the CLI's 1-based terms.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic, TextEdit, WorkspaceEdit } from 'vscode-languageserver';
import { BIN, ROOT } from './client.js';

export interface Finding {
  code: string;
  severity: string;
  message: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  related: string[];
}

const SEVERITY = ['', 'error', 'warning', 'info'];

export function fromLsp(d: Diagnostic): Finding {
  return {
    code: String(d.code),
    severity: SEVERITY[d.severity ?? 0],
    message: d.message,
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    endLine: d.range.end.line + 1,
    endColumn: d.range.end.character + 1,
    related: (d.relatedInformation ?? []).map(
      (r) => `${r.location.range.start.line + 1}:${r.location.range.start.character + 1} ${r.message}`,
    ),
  };
}

interface CliRecord {
  code: string;
  severity: string;
  message: string;
  line: number | null;
  column: number | null;
  endLine: number | null;
  endColumn: number | null;
  related?: { message: string; line: number | null; column: number | null }[];
}

function fromCli(d: CliRecord): Finding {
  const line = d.line ?? 1;
  const column = d.column ?? 1;
  return {
    code: d.code,
    severity: d.severity,
    message: d.message,
    line,
    column,
    endLine: d.endLine ?? line,
    endColumn: d.endColumn ?? column,
    related: (d.related ?? []).map((r) => `${r.line ?? 1}:${r.column ?? 1} ${r.message}`),
  };
}

/** The CLI's findings for each file, in its order, by path as given. */
export function cliFindingsOfFiles(paths: string[]): Map<string, Finding[]> {
  const r = spawnSync(process.execPath, [BIN, 'validate', '--format', 'json', ...paths], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: { ...process.env, NO_COLOR: '1', GITHUB_ACTIONS: '' },
  });
  if (r.status !== 0 && r.status !== 1) throw new Error(`setup-pack validate exited ${r.status}: ${r.stderr}`);
  const report = JSON.parse(r.stdout) as { files: { path: string; diagnostics: CliRecord[] }[] };
  return new Map(report.files.map((f, i) => [paths[i], f.diagnostics.map(fromCli)]));
}

let scratch: string | undefined;
let n = 0;

/** The CLI's findings for a text (written to a file of its own). */
export function cliFindings(text: string): Finding[] {
  scratch ??= mkdtempSync(join(tmpdir(), 'setup-pack-lsp-'));
  const file = join(scratch, `pack-${n++}.json`);
  writeFileSync(file, text);
  return cliFindingsOfFiles([file]).get(file)!;
}

/** A text with edits applied (as the client applies a WorkspaceEdit to one document). */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  return TextDocument.applyEdits(TextDocument.create('file:///x.json', 'json', 1, text), [...edits]);
}

export function editsOf(edit: WorkspaceEdit, uri: string): TextEdit[] {
  return edit.changes?.[uri] ?? [];
}

/** The range of the `n`th occurrence of `needle` in `text` (0-based lines and characters). */
export function rangeOf(text: string, needle: string, n = 0) {
  let at = -1;
  for (let i = 0; i <= n; i++) {
    at = text.indexOf(needle, at + 1);
    if (at < 0) throw new Error(`"${needle}" occurs fewer than ${n + 1} times`);
  }
  const doc = TextDocument.create('file:///x.json', 'json', 1, text);
  return { start: doc.positionAt(at), end: doc.positionAt(at + needle.length) };
}

/** The position `offset` characters into the `n`th occurrence of `needle`. */
export function positionIn(text: string, needle: string, offset = 1, n = 0) {
  const { start } = rangeOf(text, needle, n);
  return { line: start.line, character: start.character + offset };
}

/** The range of an item's key string (quotes included) where `"key": "<key>"` is written. */
export function keyRange(text: string, key: string) {
  const { start, end } = rangeOf(text, `"key": ${JSON.stringify(key)}`);
  return { start: { line: start.line, character: start.character + 7 }, end };
}
