// The open documents and what is analysed as one: a pack file by itself, or every file of a pack
// source folder together (its open files' texts in place of those on disk). Each keeps its text up
// to date from incremental changes and the edits since the model it was last analysed into, and is
// analysed again a short pause after the last change. Findings are published only for the latest
// version: a result for a text the author has typed past is never published over a newer one.
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type {
  Connection,
  DidChangeTextDocumentParams,
  DidCloseTextDocumentParams,
  DidOpenTextDocumentParams,
  Location,
  Diagnostic as LspDiagnostic,
  Position,
  Range,
} from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { looksLikePack } from './detect.js';
import { changeBetween, fromVersion, toVersion, type TextChange } from './edits.js';
import type { SourceFolderSupport } from './folder-support.js';
import { ModelIndex } from './lookup.js';
import { emptyModel, type PackModel, type Span } from './model.js';
import type { AnalyseJob, WorkerReply } from './protocol.js';
import type { Scheduler } from './scheduler.js';

/** What a request reads of one document. */
export interface DocumentView {
  doc: TextDocument;
  model: PackModel;
  /** The document's file among the model's (PackModel.files): -1 for a pack file. */
  file: number;
  /** The source folder the document is a file of (its root), if it is one. */
  folder?: string;
  /** Whether the analysis of the current text is over (the model may still be an older text's: one that was JSON). */
  settled: boolean;
  index: ModelIndex;
  /** The findings published for the document's current text, if they have been. */
  diagnostics: LspDiagnostic[] | undefined;
  /** A position of the current text as an offset of the model's text; undefined where edited since. */
  toModel(position: Position): number | undefined;
  /** A span of the model's texts as a place now: its document and range; undefined where edited since. */
  locate(span: Span): Location | undefined;
  /** A span of this document as a range of its current text. */
  range(span: Span): Range | undefined;
}

/** A pack file, or a source folder: analysed as one, with one model. */
interface Unit {
  /** The pack file's URI, or the folder's. */
  key: string;
  folder?: string;
  slot: number;
  /** The latest version: a pack file's document version; a folder's count of changes to its files. */
  version: number;
  model: PackModel;
  /** The latest version whose analysis is over (it may have made no model: text that is not JSON). */
  analysed: number;
  index?: ModelIndex;
  /** The findings published, by document URI, and the version they are for. */
  published: Map<string, { version: number; diagnostics: LspDiagnostic[] }>;
  /** Findings and a model arriving a slice at a time (protocol.ts). */
  incoming?: { version: number; diagnostics: LspDiagnostic[]; model: PackModel };
  timer?: NodeJS.Timeout;
  /** Requests waiting for the analysis of at least the given version. */
  waiters: { version: number; resolve: () => void }[];
  members: Set<string>;
}

interface DocState {
  doc: TextDocument;
  unit: Unit;
  /** Edits since the unit's model, each with the unit version it made. */
  changes: TextChange[];
}

export class PackDocuments {
  private readonly docs = new Map<string, DocState>();
  private readonly units = new Map<string, Unit>();
  /** Open JSON documents that are not packs (yet). */
  private readonly others = new Map<string, { doc: TextDocument; timer?: NodeJS.Timeout }>();
  /** Notifications are handled in order: whether a document is a folder's file is asked of the disk. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly connection: Connection,
    private readonly scheduler: Scheduler,
    private readonly debounceMs: number,
    private readonly folders?: SourceFolderSupport,
  ) {}

  open(p: DidOpenTextDocumentParams): void {
    this.enqueue(() => this.opened(p));
  }

  change(p: DidChangeTextDocumentParams): void {
    this.enqueue(() => this.changed(p));
  }

  close(p: DidCloseTextDocumentParams): void {
    this.enqueue(() => this.closed(p));
  }

  /** Whether a pack file (its URI) or a source folder (its root's URI) has a document open. */
  serves(key: string): boolean {
    return this.units.has(key);
  }

  /** The handled notifications, for a request that must see every change sent before it. */
  settledNotifications(): Promise<void> {
    return this.queue;
  }

  /** A worker's reply: findings published if still current, a model kept, waiting requests let go. */
  receive(r: Exclude<WorkerReply, { type: 'ready' }>): void {
    const unit = this.units.get(r.uri);
    if (!unit) return;
    if (r.type === 'done') return this.release(unit, r.version);
    if (r.type === 'folder-diagnostics') return this.publishFolder(unit, r.version, r.files);
    if (unit.incoming?.version !== r.version) unit.incoming = { version: r.version, diagnostics: [], model: emptyModel(r.version) };
    const incoming = unit.incoming;
    if (r.type === 'hits') incoming.model.hits = r.hits;
    else if (r.type === 'files') incoming.model.files = r.files;
    else if (r.type === 'diagnostics') {
      for (const d of r.diagnostics) incoming.diagnostics.push(d);
      if (r.last && r.version === unit.version) this.publish(unit, r.uri, r.version, incoming.diagnostics, r.version);
    } else {
      const list: unknown[] = incoming.model[r.list];
      for (const e of r.entries) list.push(e);
      if (r.last && r.version > unit.model.version) this.install(unit, incoming.model);
    }
  }

  /** The job of a version failed in the worker: requests waiting for it go on with what there is. */
  failed(key: string): void {
    const unit = this.units.get(key);
    if (unit) for (const w of unit.waiters.splice(0)) w.resolve();
  }

  view(uri: string): DocumentView | undefined {
    const state = this.docs.get(uri);
    if (!state) return undefined;
    const { doc, unit, changes } = state;
    const model = unit.model;
    unit.index ??= new ModelIndex(model);
    const published = unit.published.get(uri);
    const file = unit.folder === undefined ? -1 : model.files.indexOf(uri);
    const locate = (span: Span): Location | undefined => {
      const target = span.file === undefined ? uri : model.files[span.file];
      const other = target === undefined ? undefined : this.docs.get(target);
      const moved = other ? fromVersion(span, other.changes, model.version) : span;
      const text = other?.doc ?? this.diskText(target, model.version);
      return moved && text && { uri: target, range: { start: text.positionAt(moved.start), end: text.positionAt(moved.end) } };
    };
    return {
      doc,
      model,
      file,
      ...(unit.folder === undefined ? {} : { folder: unit.folder }),
      settled: unit.analysed >= unit.version,
      index: unit.index,
      diagnostics: published?.version === unit.version ? published.diagnostics : undefined,
      toModel: (position) => toVersion(doc.offsetAt(position), changes, model.version),
      locate,
      range: (span) => {
        const at = locate(span);
        return at?.uri === uri ? at.range : undefined;
      },
    };
  }

  /** The view once the model of the document's current text is in (analysed now, without the pause). */
  async current(uri: string): Promise<DocumentView | undefined> {
    await this.queue;
    const unit = this.docs.get(uri)?.unit;
    if (!unit) return undefined;
    const version = unit.version;
    if (unit.analysed < version) {
      const ready = new Promise<void>((resolve) => unit.waiters.push({ version, resolve }));
      if (unit.timer) this.analyse(unit);
      await ready;
    }
    return this.view(uri);
  }

  private enqueue(handle: () => void | Promise<void>): void {
    this.queue = this.queue.then(handle).catch((e: Error) => this.connection.console.error(`setup-pack: ${e.stack ?? e.message}`));
  }

  private async opened({ textDocument: t }: DidOpenTextDocumentParams): Promise<void> {
    const doc = TextDocument.create(t.uri, t.languageId, t.version, t.text);
    const root = this.folders && t.uri.startsWith('file:') ? await this.folders.folderOf(fileURLToPath(t.uri)) : undefined;
    if (root !== undefined) return this.joinFolder(doc, root);
    if (t.languageId === 'setup-pack' || looksLikePack(t.text)) this.servePack(doc);
    else this.others.set(t.uri, { doc });
  }

  private changed({ textDocument, contentChanges }: DidChangeTextDocumentParams): void {
    const other = this.others.get(textDocument.uri);
    if (other) {
      // A JSON document becomes a pack once its text says so (a new pack being written).
      other.doc = TextDocument.update(other.doc, contentChanges, textDocument.version);
      clearTimeout(other.timer);
      other.timer = setTimeout(() => this.enqueue(() => this.promote(textDocument.uri)), this.debounceMs);
      return;
    }
    const state = this.docs.get(textDocument.uri);
    if (!state) return;
    const { unit } = state;
    unit.version = unit.folder === undefined ? textDocument.version : unit.version + 1;
    let doc = state.doc;
    for (const c of contentChanges) {
      // Read before the update: TextDocument.update changes the document in place.
      state.changes.push(
        'range' in c
          ? { version: unit.version, start: doc.offsetAt(c.range.start), end: doc.offsetAt(c.range.end), inserted: c.text.length }
          : changeBetween(doc.getText(), c.text, unit.version),
      );
      doc = TextDocument.update(doc, [c], textDocument.version);
    }
    state.doc = doc;
    this.scheduler.touch(unit.slot, unit.version);
    this.analyseLater(unit);
  }

  private closed({ textDocument: { uri } }: DidCloseTextDocumentParams): void {
    clearTimeout(this.others.get(uri)?.timer);
    this.others.delete(uri);
    const state = this.docs.get(uri);
    if (!state) return;
    this.docs.delete(uri);
    const { unit } = state;
    unit.members.delete(uri);
    if (unit.members.size > 0) {
      // A folder's file closed unsaved: the folder is read again, the file as it is on disk.
      unit.version++;
      this.scheduler.touch(unit.slot, unit.version);
      return this.analyseLater(unit);
    }
    clearTimeout(unit.timer);
    this.scheduler.closeSlot(unit.key, unit.slot);
    this.units.delete(unit.key);
    for (const w of unit.waiters) w.resolve();
    for (const target of unit.published.keys()) void this.connection.sendDiagnostics({ uri: target, diagnostics: [] });
  }

  private promote(uri: string): void {
    const other = this.others.get(uri);
    if (!other || !looksLikePack(other.doc.getText())) return;
    this.others.delete(uri);
    this.servePack(other.doc);
  }

  private newUnit(key: string, version: number, folder?: string): Unit {
    const unit: Unit = {
      key,
      slot: this.scheduler.openSlot(),
      version,
      model: emptyModel(-1),
      analysed: -1,
      published: new Map(),
      waiters: [],
      members: new Set(),
      ...(folder === undefined ? {} : { folder }),
    };
    this.units.set(key, unit);
    return unit;
  }

  private servePack(doc: TextDocument): void {
    const unit = this.newUnit(doc.uri, doc.version);
    unit.members.add(doc.uri);
    this.docs.set(doc.uri, { doc, unit, changes: [] });
    this.analyse(unit);
  }

  /** A file of a source folder: the folder is analysed again with its text. */
  private joinFolder(doc: TextDocument, root: string): void {
    const key = pathToFileURL(root).href;
    const unit = this.units.get(key) ?? this.newUnit(key, 0, root);
    unit.members.add(doc.uri);
    unit.version++;
    this.docs.set(doc.uri, { doc, unit, changes: [] });
    this.scheduler.touch(unit.slot, unit.version);
    if (unit.analysed < 0) this.analyse(unit);
    else this.analyseLater(unit);
  }

  private analyseLater(unit: Unit): void {
    clearTimeout(unit.timer);
    unit.timer = setTimeout(() => this.enqueue(() => this.analyse(unit)), this.debounceMs);
  }

  private analyse(unit: Unit): void {
    if (this.units.get(unit.key) !== unit) return;
    clearTimeout(unit.timer);
    unit.timer = undefined;
    const job: AnalyseJob =
      unit.folder === undefined
        ? { kind: 'pack', uri: unit.key, version: unit.version, text: this.docs.get(unit.key)!.doc.getText(), slot: unit.slot }
        : {
            kind: 'folder',
            uri: unit.key,
            root: unit.folder,
            version: unit.version,
            overlay: [...unit.members].map((m) => [fileURLToPath(m), this.docs.get(m)!.doc.getText()]),
            slot: unit.slot,
          };
    this.scheduler.schedule(job);
  }

  private install(unit: Unit, model: PackModel): void {
    unit.model = model;
    unit.index = undefined;
    unit.incoming = undefined;
    for (const m of unit.members) {
      const state = this.docs.get(m);
      if (state) state.changes = state.changes.filter((c) => c.version > model.version);
    }
    this.diskTexts.clear();
  }

  private publish(unit: Unit, uri: string, version: number, diagnostics: LspDiagnostic[], documentVersion?: number): void {
    unit.published.set(uri, { version, diagnostics });
    void this.connection.sendDiagnostics(
      documentVersion === undefined ? { uri, diagnostics } : { uri, version: documentVersion, diagnostics },
    );
  }

  /** A folder's findings, file by file; a file that had findings and has none now is cleared. */
  private publishFolder(unit: Unit, version: number, files: { uri: string; diagnostics: LspDiagnostic[] }[]): void {
    if (version !== unit.version) return;
    const now = new Set(files.map((f) => f.uri));
    for (const uri of unit.published.keys()) if (!now.has(uri)) this.publish(unit, uri, version, []);
    for (const f of files) this.publish(unit, f.uri, version, f.diagnostics);
  }

  /** Requests waiting for the analysis of `done` (or an older version) go on with the model there is. */
  private release(unit: Unit, done: number): void {
    unit.analysed = Math.max(unit.analysed, done);
    const keep: Unit['waiters'] = [];
    for (const w of unit.waiters) w.version <= done || unit.version > w.version ? w.resolve() : keep.push(w);
    unit.waiters = keep;
  }

  /** A folder's file that is not open, as read from the disk (once per model). */
  private readonly diskTexts = new Map<string, TextDocument | undefined>();

  private diskText(uri: string | undefined, version: number): TextDocument | undefined {
    if (uri === undefined) return undefined;
    if (!this.diskTexts.has(uri)) {
      let text: string | undefined;
      try {
        text = readFileSync(fileURLToPath(uri), 'utf8').replace(/^\uFEFF/, '');
      } catch {
        text = undefined;
      }
      this.diskTexts.set(uri, text === undefined ? undefined : TextDocument.create(uri, 'json', version, text));
    }
    return this.diskTexts.get(uri);
  }
}
