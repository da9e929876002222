// The outline: each item under its key (named by its name), automations with their blocks and
// pipelines with their stages.
import { nodeKindInfo } from '@setup-pack/core';
import { SymbolKind, type DocumentSymbol } from 'vscode-languageserver';
import type { DocumentView } from './documents.js';
import { ITEM_NOUN } from './hover.js';
import type { Collection, PackItem, Span } from './model.js';

const KIND: Record<Collection, SymbolKind> = {
  automations: SymbolKind.Function,
  smartLists: SymbolKind.Array,
  messageTemplates: SymbolKind.String,
  pipelines: SymbolKind.Enum,
  resources: SymbolKind.Constant,
  assets: SymbolKind.File,
};
const GROUP_KIND = { trigger: SymbolKind.Event, action: SymbolKind.Method, control: SymbolKind.Operator } as const;

export function documentSymbols(view: DocumentView): DocumentSymbol[] {
  const { model } = view;
  const out: DocumentSymbol[] = [];
  const byPipeline = new Map<number, DocumentSymbol>();
  model.items.forEach((it, i) => {
    const s = itemSymbol(view, it);
    if (!s) return;
    if (it.stage !== undefined) byPipeline.get(it.index)?.children!.push(s);
    else {
      out.push(s);
      if (it.collection === 'pipelines') byPipeline.set(it.index, s);
      if (it.collection === 'automations')
        s.children = blockSymbols(view, model.automations[it.index]?.item === i ? model.automations[it.index].blocks : []);
    }
  });
  return out;
}

function itemSymbol(view: DocumentView, it: PackItem): DocumentSymbol | undefined {
  // In a source folder an automation's own file is its document (its key is the manifest's).
  const spans = ranges(view, it.extent, it.keySpan) ?? ranges(view, it.documentExtent, undefined);
  if (!spans) return undefined;
  const noun = it.stage !== undefined ? 'stage' : ITEM_NOUN[it.collection];
  const detail = [noun, it.kind, it.name].filter(Boolean).join(' · ');
  return {
    name: it.key || '(empty key)',
    detail,
    kind: it.stage !== undefined ? SymbolKind.EnumMember : KIND[it.collection],
    ...spans,
    children: [],
  };
}

function blockSymbols(view: DocumentView, blocks: number[]): DocumentSymbol[] {
  return blocks.flatMap((b) => {
    const block = view.model.blocks[b];
    const spans = ranges(view, block.extent, block.kindSpan);
    if (!spans) return [];
    const info = nodeKindInfo(block.kind);
    return [
      {
        name: block.id || '(no id)',
        detail: info ? `${info.label} · ${block.kind}` : block.kind,
        kind: info ? GROUP_KIND[info.group] : SymbolKind.Object,
        ...spans,
      },
    ];
  });
}

/**
 * The symbol's range and the part to select in it, in this document's current text: undefined
 * when the item is written in another file (a source folder's) or was edited since. Its key may
 * be written elsewhere (an automation's, in a folder's manifest): then the start is selected.
 */
function ranges(view: DocumentView, extent: Span | undefined, selection: Span | undefined) {
  const range = extent && view.range(extent);
  if (!range) return undefined;
  return { range, selectionRange: (selection && view.range(selection)) ?? { start: range.start, end: range.start } };
}
