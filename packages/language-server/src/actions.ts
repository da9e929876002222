// Code actions: core's fixes (what `setup-pack fix` applies) as quick fixes on the findings they
// address, and "Fix all" applying every one of them.
import { escapeToken, mayBeFixed } from '@setup-pack/core';
import {
  CodeActionKind,
  type CodeAction,
  type CodeActionParams,
  type Diagnostic as LspDiagnostic,
  type TextEdit,
} from 'vscode-languageserver';
import type { FindingData } from './diagnostics.js';
import type { DocumentView } from './documents.js';
import type { FixEdit } from './model.js';

/** The kind of "Fix all": a source action a client may run on save (`source.fixAll`). */
export const FIX_ALL_KIND = `${CodeActionKind.SourceFixAll}.setup-pack`;

export function codeActions(view: DocumentView, params: CodeActionParams): CodeAction[] {
  const only = params.context.only;
  const wants = (kind: string) => !only || only.some((k) => kind === k || kind.startsWith(`${k}.`));
  const out: CodeAction[] = [];
  if (wants(CodeActionKind.QuickFix)) {
    for (const d of params.context.diagnostics) {
      for (const fix of fixesFor(view, d)) {
        const edit = textEdit(view, fix);
        if (edit)
          out.push({
            title: `${fix.title} (setup-pack fix)`,
            kind: CodeActionKind.QuickFix,
            diagnostics: [d],
            isPreferred: true,
            edit: { changes: { [view.doc.uri]: [edit] } },
          });
      }
    }
  }
  const all = fixAll(view);
  if (all && (wants(FIX_ALL_KIND) || out.length > 0))
    out.push({ ...all, kind: out.length > 0 && !wants(FIX_ALL_KIND) ? CodeActionKind.QuickFix : FIX_ALL_KIND });
  return out;
}

/**
 * Every fix of the pack, in one action: a source folder's in each of its files that has one.
 * Undefined when there is none, or the text changed under one.
 */
export function fixAll(view: DocumentView): CodeAction | undefined {
  const places = view.model.fixes.map((f) => view.locate(f.span));
  if (places.length === 0 || places.some((p) => !p)) return undefined;
  const changes: Record<string, TextEdit[]> = {};
  places.forEach((p, i) => (changes[p!.uri] ??= []).push({ range: p!.range, newText: view.model.fixes[i].newText }));
  return {
    title: `Fix all: apply setup-pack fix (${places.length} ${places.length === 1 ? 'change' : 'changes'})`,
    kind: FIX_ALL_KIND,
    edit: { changes },
  };
}

/**
 * The fixes addressing a published finding: those that write where it points, or below (an asset
 * lacking its sha256 points at the asset and names the field), in the document's file. A source
 * folder's findings point into their files, which mayBeFixed cannot read: its fixes are made only
 * when the built pack's findings may be fixed (FolderAnalysis.fixable).
 */
export function fixesFor(view: DocumentView, d: LspDiagnostic): FixEdit[] {
  const data = d.data as FindingData | undefined;
  if (d.source !== 'setup-pack' || typeof data?.pointer !== 'string' || (view.file < 0 && !mayBeFixed(data))) return [];
  const at = data.missing === undefined ? data.pointer : `${data.pointer}/${escapeToken(data.missing)}`;
  // A finding about a folder's whole file (a body, a file to create) is not one a fix writes.
  if (view.file >= 0 && at === '') return [];
  const file = view.file < 0 ? undefined : view.file;
  return view.model.fixes.filter((f) => f.span.file === file && (f.pointer === at || f.pointer.startsWith(`${at}/`)));
}

function textEdit(view: DocumentView, fix: FixEdit): TextEdit | undefined {
  const range = view.range(fix.span);
  return range && { range, newText: fix.newText };
}
