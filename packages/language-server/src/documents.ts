// The open pack documents: their text (kept up to date from incremental changes), the edits since
// the model they were last analysed into, and when to analyse them again (a short pause after the
// last change). Findings are published only for the version the document is at: a result for a
// version the author has typed past is never published over a newer one.
import type { Connection, DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams, Diagnostic as LspDiagnostic, Position, Range } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { looksLikePack } from './detect.js';
import { changeBetween, fromVersion, toVersion, type TextChange } from './edits.js';
import { ModelIndex } from './lookup.js';
import { emptyModel, type PackModel, type Span } from './model.js';
import type { WorkerReply } from './protocol.js';
import type { Scheduler } from './scheduler.js';

/** What a request reads of one document. */
export interface DocumentView {
  doc: TextDocument;
  model: PackModel;
  /** Whether the analysis of the current text is over (the model may still be an older text's: one that was JSON). */
  settled: boolean;
  index: ModelIndex;
  /** The findings published for the document's current version, if they have been. */
  diagnostics: LspDiagnostic[] | undefined;
  /** A position of the current text as an offset of the model's text; undefined where edited since. */
  toModel(position: Position): number | undefined;
  /** A span of the model's text as a range of the current text; undefined where edited since. */
  range(span: Span): Range | undefined;
}

interface DocState {
  doc: TextDocument;
  slot: number;
  changes: TextChange[];
  model: PackModel;
  /** The latest version whose analysis is over (it may have made no model: text that is not JSON). */
  analysed: number;
  index?: ModelIndex;
  published?: { version: number; diagnostics: LspDiagnostic[] };
  /** Findings and a model arriving a slice at a time (protocol.ts). */
  incoming?: { version: number; diagnostics: LspDiagnostic[]; model: PackModel };
  timer?: NodeJS.Timeout;
  /** Waiting for a model of at least the given version. */
  waiters: { version: number; resolve: () => void }[];
}

export class PackDocuments {
  private readonly docs = new Map<string, DocState>();
  /** Open JSON documents that are not packs (yet). */
  private readonly others = new Map<string, { doc: TextDocument; timer?: NodeJS.Timeout }>();

  constructor(
    private readonly connection: Connection,
    private readonly scheduler: Scheduler,
    private readonly debounceMs: number,
  ) {}

  /** A document is served when the client names it a pack (language id setup-pack) or its text is one. */
  open({ textDocument: t }: DidOpenTextDocumentParams): void {
    const doc = TextDocument.create(t.uri, t.languageId, t.version, t.text);
    if (t.languageId === 'setup-pack' || looksLikePack(t.text)) this.serve(doc);
    else this.others.set(t.uri, { doc });
  }

  change({ textDocument, contentChanges }: DidChangeTextDocumentParams): void {
    const other = this.others.get(textDocument.uri);
    if (other) {
      // A JSON document becomes a pack once its text says so (a new pack being written).
      other.doc = TextDocument.update(other.doc, contentChanges, textDocument.version);
      clearTimeout(other.timer);
      other.timer = setTimeout(() => this.promote(textDocument.uri), this.debounceMs);
      return;
    }
    const state = this.docs.get(textDocument.uri);
    if (!state) return;
    let doc = state.doc;
    for (const c of contentChanges) {
      const before = doc;
      doc = TextDocument.update(doc, [c], textDocument.version);
      state.changes.push('range' in c ? { version: doc.version, start: before.offsetAt(c.range.start), end: before.offsetAt(c.range.end), inserted: c.text.length } : changeBetween(before.getText(), doc.getText(), doc.version));
    }
    state.doc = doc;
    this.scheduler.touch(state.slot, doc.version);
    clearTimeout(state.timer);
    state.timer = setTimeout(() => this.analyse(textDocument.uri), this.debounceMs);
  }

  close({ textDocument }: DidCloseTextDocumentParams): void {
    clearTimeout(this.others.get(textDocument.uri)?.timer);
    this.others.delete(textDocument.uri);
    const state = this.docs.get(textDocument.uri);
    if (!state) return;
    clearTimeout(state.timer);
    this.scheduler.closeSlot(textDocument.uri, state.slot);
    this.docs.delete(textDocument.uri);
    for (const w of state.waiters) w.resolve();
    void this.connection.sendDiagnostics({ uri: textDocument.uri, diagnostics: [] });
  }

  /** A worker's reply: findings published if still current, a model kept, waiting requests let go. */
  receive(r: Exclude<WorkerReply, { type: 'ready' }>): void {
    const state = this.docs.get(r.uri);
    if (!state) return;
    if (r.type === 'done') return this.release(state, r.version);
    if (state.incoming?.version !== r.version) state.incoming = { version: r.version, diagnostics: [], model: emptyModel(r.version) };
    const incoming = state.incoming;
    if (r.type === 'hits') incoming.model.hits = r.hits;
    else if (r.type === 'diagnostics') {
      for (const d of r.diagnostics) incoming.diagnostics.push(d);
      if (r.last && r.version === state.doc.version) {
        state.published = { version: r.version, diagnostics: incoming.diagnostics };
        void this.connection.sendDiagnostics({ uri: r.uri, version: r.version, diagnostics: incoming.diagnostics });
      }
    } else {
      const list: unknown[] = incoming.model[r.list];
      for (const e of r.entries) list.push(e);
      if (r.last && r.version > state.model.version) {
        state.model = incoming.model;
        state.index = undefined;
        state.incoming = undefined;
        state.changes = state.changes.filter((c) => c.version > r.version);
      }
    }
  }

  /** The job of a document's version failed in the worker: requests waiting for it go on with what there is. */
  failed(uri: string): void {
    const state = this.docs.get(uri);
    if (state) for (const w of state.waiters.splice(0)) w.resolve();
  }

  view(uri: string): DocumentView | undefined {
    const state = this.docs.get(uri);
    if (!state) return undefined;
    const { doc, model, changes } = state;
    state.index ??= new ModelIndex(model);
    return {
      doc,
      model,
      settled: state.analysed >= doc.version,
      index: state.index,
      diagnostics: state.published?.version === doc.version ? state.published.diagnostics : undefined,
      toModel: (position) => toVersion(doc.offsetAt(position), changes, model.version),
      range: (span) => {
        const moved = fromVersion(span, changes, model.version);
        return moved && { start: doc.positionAt(moved.start), end: doc.positionAt(moved.end) };
      },
    };
  }

  /** The view once the model of the document's current version is in (analysed now, without the pause). */
  async current(uri: string): Promise<DocumentView | undefined> {
    const state = this.docs.get(uri);
    if (!state) return undefined;
    const version = state.doc.version;
    if (state.analysed < version) {
      const ready = new Promise<void>((resolve) => state.waiters.push({ version, resolve }));
      if (state.timer) this.analyse(uri);
      await ready;
    }
    return this.view(uri);
  }

  /** Pack documents open, for tests and the bench. */
  uris(): string[] {
    return [...this.docs.keys()];
  }

  private promote(uri: string): void {
    const other = this.others.get(uri);
    if (!other || !looksLikePack(other.doc.getText())) return;
    this.others.delete(uri);
    this.serve(other.doc);
  }

  private serve(doc: TextDocument): void {
    this.docs.set(doc.uri, { doc, slot: this.scheduler.openSlot(), changes: [], model: emptyModel(-1), analysed: -1, waiters: [] });
    this.analyse(doc.uri);
  }

  private analyse(uri: string): void {
    const state = this.docs.get(uri);
    if (!state) return;
    clearTimeout(state.timer);
    state.timer = undefined;
    this.scheduler.schedule({ uri, version: state.doc.version, text: state.doc.getText(), slot: state.slot });
  }

  /** Requests waiting for the analysis of `done` (or an older version) go on with the model there is. */
  private release(state: DocState, done: number): void {
    state.analysed = Math.max(state.analysed, done);
    const keep: DocState['waiters'] = [];
    for (const w of state.waiters) (w.version <= done || state.doc.version > w.version ? w.resolve() : keep.push(w));
    state.waiters = keep;
  }
}
