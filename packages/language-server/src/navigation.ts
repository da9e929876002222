// Go to definition, find references and rename, for every key of the pack: from a use of a key
// (a block's template_id, a trigger's smart list, a deal stage, a references entry, a filter
// value, an email image's address in a template) to the item, and from the item to every use. In a
// source folder, across its files: a rename also moves the files named after the key.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { describePointer } from '@setup-pack/core';
import {
  ResponseError,
  LSPErrorCodes,
  type Location,
  type Position,
  type Range,
  type RenameFile,
  type TextDocumentEdit,
  type TextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver';
import type { DocumentView } from './documents.js';
import type { SourceFolderSupport } from './folder-support.js';
import type { Hit } from './lookup.js';
import { itemPointer, type PackItem, type Span } from './model.js';

function hitAt(view: DocumentView, position: Position): Hit | undefined {
  const offset = view.toModel(position);
  return offset === undefined ? undefined : view.index.at(view.file, offset);
}

/**
 * The item's key; in a source folder whose manifest holds the key of an item kept in a file of its
 * own (an automation, a template), the start of that file: what the author is after.
 */
export function definition(view: DocumentView, position: Position): Location | null {
  const hit = hitAt(view, position);
  const item = hit && view.index.itemOf(hit);
  const it = item === undefined ? undefined : view.model.items[item];
  const own = it && [it.documentExtent, it.extent].find((s) => s && it.keySpan && s.file !== it.keySpan.file);
  const span = own ? { ...own, end: own.start } : (it?.keySpan ?? it?.extent);
  return (span && view.locate(span)) ?? null;
}

export function references(view: DocumentView, position: Position, includeDeclaration: boolean): Location[] | null {
  const hit = hitAt(view, position);
  const item = hit && view.index.itemOf(hit);
  if (item === undefined) return null;
  const spans: Span[] = view.index.usesOf(item).map((u) => u.site.span);
  const key = view.model.items[item].keySpan;
  if (includeDeclaration && key) spans.unshift(key);
  return spans.flatMap((s) => view.locate(s) ?? []);
}

/** The key under the cursor, when it can be renamed: its text without the quotes, and the key. */
export function prepareRename(view: DocumentView, position: Position): { range: Range; placeholder: string } | null {
  const hit = hitAt(view, position);
  const item = hit && hit.what !== 'url' ? view.index.itemOf(hit) : undefined;
  if (!hit || item === undefined) return null;
  const range = view.range({ ...hit.span, start: hit.span.start + 1, end: hit.span.end - 1 });
  return range ? { range, placeholder: view.model.items[item].key } : null;
}

/**
 * The key and every reference that resolves to its item, written as `newKey`. Refused when another
 * item of the same list (a stage: of the same pipeline), or one a reference to this item could
 * name instead, already has the key: the references would then name that one. In a source folder,
 * the files named after the key are renamed too (`canRenameFiles`: the client applies renames).
 */
export function rename(
  view: DocumentView,
  position: Position,
  newKey: string,
  folders: SourceFolderSupport | undefined,
  canRenameFiles: boolean,
): WorkspaceEdit {
  const hit = hitAt(view, position);
  const item = hit && hit.what !== 'url' ? view.index.itemOf(hit) : undefined;
  if (item === undefined) throw failed('There is no key of this pack here to rename.');
  const it = view.model.items[item];
  if (newKey === '') throw failed('A key cannot be empty.');
  const taken =
    newKey === it.key
      ? undefined
      : view.model.items.find((o) => o !== it && o.key === newKey && (sameList(o, it) || o.types.some((t) => it.types.includes(t))));
  if (taken)
    throw failed(
      `The key "${newKey}" is taken: ${describePointer(itemPointer(taken))}${taken.name ? ` ("${taken.name}")` : ''} has it. Choose another.`,
    );
  const text = JSON.stringify(newKey);
  const edits = new Map<string, TextEdit[]>();
  for (const span of [
    it.keySpan,
    ...(it.keyCopies ?? []),
    ...view.index
      .usesOf(item)
      .filter((u) => u.what === 'ref')
      .map((u) => u.site.span),
  ]) {
    const at = span && view.locate(span);
    if (!at) throw new ResponseError(LSPErrorCodes.ContentModified, 'The pack changed while renaming; try again.');
    (edits.get(at.uri) ?? edits.set(at.uri, []).get(at.uri)!).push({ range: at.range, newText: text });
  }
  const moves = view.folder === undefined || !folders ? [] : movedFiles(view, folders, it, newKey);
  if (moves.length === 0) return { changes: Object.fromEntries(edits) };
  if (!canRenameFiles)
    throw failed(`Renaming "${it.key}" renames its files too, which this editor does not apply; rename the key with its files by hand.`);
  const documentChanges: (TextDocumentEdit | RenameFile)[] = [...edits].map(([uri, list]) => ({
    textDocument: { uri, version: null },
    edits: list,
  }));
  for (const [from, to] of moves)
    documentChanges.push({ kind: 'rename', oldUri: pathToFileURL(from).href, newUri: pathToFileURL(to).href });
  return { documentChanges };
}

/** The files named after the key that move, and any other item's file whose name the new key changes. */
function movedFiles(view: DocumentView, folders: SourceFolderSupport, it: PackItem, newKey: string): [string, string][] {
  if (it.stage !== undefined) return [];
  const list = view.model.items.filter((o) => o.collection === it.collection && o.stage === undefined);
  const keys = list.map((o) => o.key);
  const renamed = list.map((o) => (o === it ? newKey : o.key));
  const out: [string, string][] = [];
  list.forEach((_, i) => {
    const before = folders.itemFileBase(view.folder!, it.collection, keys, i);
    const after = folders.itemFileBase(view.folder!, it.collection, renamed, i);
    if (!before || !after || before === after) return;
    for (const ext of ['.json', '.html', '.txt']) if (existsSync(before + ext)) out.push([before + ext, after + ext]);
  });
  return out;
}

const failed = (message: string) => new ResponseError(LSPErrorCodes.RequestFailed, message);

const sameList = (a: PackItem, b: PackItem) =>
  a.collection === b.collection && (a.stage === undefined) === (b.stage === undefined) && (a.stage === undefined || a.index === b.index);
