// Completion where the pack's own rules know the answer: block kinds (the catalog), a block's config
// fields and their enum values, ids of the right reference type (the pack's keys, and the
// workspace objects the automation's references name), the handles an edge can leave its source
// block through, reference types, and merge tags in a template's text (merge-tags.ts). Where the cursor is comes from jsonc-parser's getLocation,
// which reads text that is not JSON yet; the block's kind and an edge's source come from the
// model, or from a tolerant parse of a text small enough to parse on every request.
import { FILTER_FIELD_REFERENCES, NODE_CATALOG, nodeKindInfo, outputHandles, REFERENCE_TYPES, type ReferenceType } from '@setup-pack/core';
import { findNodeAtLocation, getLocation, getNodeValue, parseTree, type JSONPath, type Location, type Node } from 'jsonc-parser';
import { CompletionItemKind, type CompletionItem, type CompletionList, type Position, type Range } from 'vscode-languageserver';
import type { DocumentView } from './documents.js';
import { fieldLine, itemTitle, kindText } from './hover.js';
import { mergeTagCompletions } from './merge-tags.js';

/** Texts up to this size are parsed (tolerantly) on a completion request for what the model lacks. */
const MAX_PARSED = 2 << 20;
const isRefType = (t: unknown): t is ReferenceType => typeof t === 'string' && (REFERENCE_TYPES as readonly string[]).includes(t);

class Place {
  private tree: Node | undefined | null = null;

  constructor(
    readonly view: DocumentView,
    readonly text: string,
    readonly location: Location,
  ) {}

  /** The value at `path` in the current text, when it is small enough to parse now. */
  value(path: JSONPath): unknown {
    if (this.tree === null) this.tree = this.text.length <= MAX_PARSED ? parseTree(this.text) : undefined;
    const node = this.tree && findNodeAtLocation(this.tree, path);
    return node && getNodeValue(node);
  }

  /**
   * The automation a path is in: `automations[i]` of a pack file, or the automation whose file this
   * is in a source folder (its document is the file).
   */
  automation(path: JSONPath): number | undefined {
    if (path[0] === 'automations' && typeof path[1] === 'number') return path[1];
    const { model, file } = this.view;
    const item =
      file < 0 ? undefined : model.items.find((it) => it.collection === 'automations' && (it.documentExtent ?? it.extent)?.file === file);
    return item?.index;
  }

  /** A block's kind: the model's, else the text's. */
  kindOf(nodePath: JSONPath): string | undefined {
    const automation = this.automation(nodePath);
    const model = automation === undefined ? undefined : this.view.index.block(automation, nodePath[nodePath.length - 1] as number)?.kind;
    const kind = model ?? this.value([...nodePath, 'kind']);
    return typeof kind === 'string' ? kind : undefined;
  }

  /** The range a completion replaces: the string (or key) the cursor is in, quotes included. */
  replaced(): Range | undefined {
    const n = this.location.previousNode;
    if (!n || n.type !== 'string') return undefined;
    return { start: this.view.doc.positionAt(n.offset), end: this.view.doc.positionAt(n.offset + n.length) };
  }
}

export function complete(view: DocumentView, position: Position): CompletionList | null {
  const tags = mergeTagCompletions(view, position);
  if (tags) return { isIncomplete: false, items: tags };
  const text = view.doc.getText();
  const location = getLocation(text, view.doc.offsetAt(position));
  const place = new Place(view, text, location);
  const values = candidates(place, location.path, location.isAtPropertyKey);
  if (!values) return null;
  const range = place.replaced();
  return {
    isIncomplete: false,
    items: values.map((c) => {
      const newText = JSON.stringify(c.value);
      const item: CompletionItem = {
        label: c.value,
        kind: c.kind,
        filterText: newText,
        ...(c.detail ? { detail: c.detail } : {}),
        ...(c.doc ? { documentation: { kind: 'markdown', value: c.doc } } : {}),
      };
      return range ? { ...item, textEdit: { range, newText } } : { ...item, insertText: newText };
    }),
  };
}

interface Candidate {
  value: string;
  kind: CompletionItemKind;
  detail?: string;
  doc?: string;
}

/** What may be written at `path`; undefined where the pack's rules say nothing. */
function candidates(place: Place, path: JSONPath, atKey: boolean): Candidate[] | undefined {
  const n = path.length;
  const last = path[n - 1];
  const nodes = path.lastIndexOf('nodes');
  if (nodes > 0 && path[nodes - 1] === 'graph' && typeof path[nodes + 1] === 'number') {
    const nodePath = path.slice(0, nodes + 2);
    const rest = path.slice(nodes + 2);
    if (rest.length === 1 && rest[0] === 'kind' && !atKey) return kinds();
    if (rest[0] === 'config' && rest.length === 2 && atKey) return configFields(place.kindOf(nodePath));
    if (rest[0] === 'config' && rest.length >= 2 && !atKey) return configValues(place, nodePath, String(rest[1]), path);
  }
  const edges = path.lastIndexOf('edges');
  if (edges > 0 && n === edges + 3 && (last === 'handle' || last === 'sourceHandle') && !atKey)
    return handles(place, path.slice(0, edges), path[edges + 1] as number);
  const refs = path.lastIndexOf('references');
  if (refs >= 0 && n === refs + 3 && !atKey && last === 'type')
    return REFERENCE_TYPES.map((t) => ({ value: t, kind: CompletionItemKind.EnumMember }));
  if (refs >= 0 && n === refs + 3 && !atKey && last === 'id') {
    const type = place.value([...path.slice(0, -1), 'type']) ?? declaredAt(place, path, refs);
    return isRefType(type) ? keysOf(place, type, undefined) : undefined;
  }
  if (!atKey && path[0] === 'smartLists' && (last === 'value' || path[n - 2] === 'value')) return filterValues(place, path);
  return undefined;
}

const kinds = (): Candidate[] =>
  [...NODE_CATALOG.values()].map((info) => ({
    value: info.kind,
    kind: CompletionItemKind.EnumMember,
    detail: info.label,
    doc: kindText(info.kind),
  }));

function configFields(kind: string | undefined): Candidate[] | undefined {
  const info = kind ? nodeKindInfo(kind) : undefined;
  return info?.fields.map((f) => ({ value: f.name, kind: CompletionItemKind.Property, detail: f.label, doc: fieldLine(f) }));
}

/** A config field's value: an enum's values, or ids of the field's reference type (in a refs list too). */
function configValues(place: Place, nodePath: JSONPath, name: string, path: JSONPath): Candidate[] | undefined {
  const field = nodeKindInfo(place.kindOf(nodePath) ?? '')?.fields.find((f) => f.name === name);
  if (!field) return undefined;
  const depth = path.length - nodePath.length - 2;
  if (field.values && depth === 0) return field.values.map((v) => ({ value: v, kind: CompletionItemKind.EnumMember }));
  if (field.ref && depth === (field.type === 'refs' ? 1 : 0)) return keysOf(place, field.ref, place.automation(nodePath));
  return undefined;
}

/** Keys of the pack's items of `type`, then the workspace objects the automation's references name with it. */
function keysOf(place: Place, type: ReferenceType, automation: number | undefined): Candidate[] {
  const { index, model } = place.view;
  const out: Candidate[] = index
    .itemsOfType(type)
    .map((it) => ({ value: it.key, kind: CompletionItemKind.Reference, detail: it.name, doc: `${itemTitle(it)}, in this pack.` }));
  const seen = new Set(out.map((c) => c.value));
  const declared = automation === undefined ? [] : (model.automations[automation]?.references ?? []);
  for (const d of declared) {
    if (d.type !== type || d.id === undefined || seen.has(d.id)) continue;
    seen.add(d.id);
    out.push({
      value: d.id,
      kind: CompletionItemKind.Value,
      detail: d.name,
      doc: d.name ? `The workspace ${type} named "${d.name}".` : undefined,
    });
  }
  return out;
}

/** The outputs of an edge's source block (core's outputHandles: the catalog's, or an AI branch's outcomes). */
function handles(place: Place, graphPath: JSONPath, edge: number): Candidate[] | undefined {
  const automation = place.automation(graphPath) ?? -1;
  const source = place.value([...graphPath, 'edges', edge, 'source']) ?? place.view.model.automations[automation]?.edgeSources[edge];
  if (typeof source !== 'string') return undefined;
  const info = place.view.model.automations[automation];
  const block = info?.blocks.map((b) => place.view.model.blocks[b]).find((b) => b.id === source);
  const nodes = place.value([...graphPath, 'nodes']);
  const node = Array.isArray(nodes)
    ? (nodes as { id?: unknown; kind?: unknown; config?: unknown }[]).find((x) => x?.id === source)
    : undefined;
  const outputs =
    node && typeof node.kind === 'string'
      ? outputHandles(node.kind, node.config)
      : block && (block.handles ?? outputHandles(block.kind, undefined));
  return outputs?.map((h) => ({ value: h, kind: CompletionItemKind.EnumMember, detail: `an output of "${source}"` }));
}

/** The type of the references entry at `path`, as the model read it. */
function declaredAt(place: Place, path: JSONPath, refs: number): string | undefined {
  const automation = place.view.model.automations[place.automation(path) ?? -1];
  return automation?.references.find((d) => d.index === path[refs + 1])?.type;
}

/** A smart list condition's value on a field that holds ids (FILTER_FIELD_REFERENCES). */
function filterValues(place: Place, path: JSONPath): Candidate[] | undefined {
  const condition = path.slice(0, path.lastIndexOf('value'));
  const field = place.value([...condition, 'field']);
  if (typeof field !== 'string' || !Object.prototype.hasOwnProperty.call(FILTER_FIELD_REFERENCES, field)) return undefined;
  return keysOf(place, FILTER_FIELD_REFERENCES[field], undefined);
}
