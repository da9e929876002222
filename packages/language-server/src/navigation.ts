// Go to definition, find references and rename, for every key of the pack: from a use of a key
// (a block's template_id, a trigger's smart list, a deal stage, a references entry, a filter
// value, an email image's address in a template) to the item, and from the item to every use.
import { describePointer } from '@setup-pack/core';
import { ResponseError, LSPErrorCodes, type Location, type Position, type Range, type WorkspaceEdit } from 'vscode-languageserver';
import type { DocumentView } from './documents.js';
import type { Hit } from './lookup.js';
import { itemPointer, type PackItem, type Span } from './model.js';

function hitAt(view: DocumentView, position: Position): Hit | undefined {
  const offset = view.toModel(position);
  return offset === undefined ? undefined : view.index.at(offset);
}

export function definition(view: DocumentView, position: Position): Location | null {
  const hit = hitAt(view, position);
  const item = hit && view.index.itemOf(hit);
  const span = item === undefined ? undefined : view.model.items[item].keySpan;
  const range = span && view.range(span);
  return range ? { uri: view.doc.uri, range } : null;
}

export function references(view: DocumentView, position: Position, includeDeclaration: boolean): Location[] | null {
  const hit = hitAt(view, position);
  const item = hit && view.index.itemOf(hit);
  if (item === undefined) return null;
  const spans: Span[] = view.index.usesOf(item).map((u) => u.site.span);
  const key = view.model.items[item].keySpan;
  if (includeDeclaration && key) spans.unshift(key);
  return spans.flatMap((s) => {
    const range = view.range(s);
    return range ? [{ uri: view.doc.uri, range }] : [];
  });
}

/** The key under the cursor, when it can be renamed: its text without the quotes, and the key. */
export function prepareRename(view: DocumentView, position: Position): { range: Range; placeholder: string } | null {
  const hit = hitAt(view, position);
  const item = hit && hit.what !== 'url' ? view.index.itemOf(hit) : undefined;
  if (!hit || item === undefined) return null;
  const range = view.range({ start: hit.span.start + 1, end: hit.span.end - 1 });
  return range ? { range, placeholder: view.model.items[item].key } : null;
}

/**
 * The key and every reference that resolves to its item, written as `newKey`. Refused when another
 * item of the same list (a stage: of the same pipeline), or one a reference to this item could
 * name instead, already has the key: the references would then name that one.
 */
export function rename(view: DocumentView, position: Position, newKey: string): WorkspaceEdit {
  const hit = hitAt(view, position);
  const item = hit && hit.what !== 'url' ? view.index.itemOf(hit) : undefined;
  if (item === undefined) throw new ResponseError(LSPErrorCodes.RequestFailed, 'There is no key of this pack here to rename.');
  const it = view.model.items[item];
  if (newKey === '') throw new ResponseError(LSPErrorCodes.RequestFailed, 'A key cannot be empty.');
  const taken = newKey === it.key ? undefined : view.model.items.find((o) => o !== it && o.key === newKey && (sameList(o, it) || o.types.some((t) => it.types.includes(t))));
  if (taken) throw new ResponseError(LSPErrorCodes.RequestFailed, `The key "${newKey}" is taken: ${describe(taken)} has it. Choose another.`);
  const spans = [it.keySpan, ...view.index.usesOf(item).filter((u) => u.what === 'ref').map((u) => u.site.span)];
  const text = JSON.stringify(newKey);
  const edits = spans.map((s) => {
    const range = s && view.range(s);
    if (!range) throw new ResponseError(LSPErrorCodes.ContentModified, 'The pack changed while renaming; try again.');
    return { range, newText: text };
  });
  return { changes: { [view.doc.uri]: edits } };
}

const sameList = (a: PackItem, b: PackItem) => a.collection === b.collection && (a.stage === undefined) === (b.stage === undefined) && (a.stage === undefined || a.index === b.index);

const describe = (it: PackItem) => `${describePointer(itemPointer(it))}${it.name ? ` ("${it.name}")` : ''}`;
