// One analysis: core's findings first (published as soon as they are ready), then the model the
// requests read. Between the two, and before the second's costlier parts, it asks whether a newer
// version has come since: work for a text the author has moved past is dropped.
import { pathToFileURL } from 'node:url';
import { blocksUse, validatePack, type Base64Hasher, type LocateRequest, type Pack } from '@setup-pack/core';
import { addBehaviour } from './behaviour.js';
import type { Diagnostic as LspDiagnostic } from 'vscode-languageserver';
import { toLspDiagnostic } from './diagnostics.js';
import type { FolderAnalysis, SourceFolderSupport } from './folder-support.js';
import { fixEdits, pathOf, targetEdits, type FixTarget } from './fixes.js';
import { itemPointer, type PackModel, type Span } from './model.js';
import { packModel } from './pack-model.js';
import { placeInText, textPlacer, type Placer } from './spans.js';

export interface AnalysisSink {
  diagnostics(list: LspDiagnostic[]): void;
  /** A source folder's findings, by file. */
  folderDiagnostics(files: { uri: string; diagnostics: LspDiagnostic[] }[]): void;
  /** Where the model goes; without it, the analysis stops at the findings. */
  model?(model: PackModel): void;
  /** Whether a newer version has come since this one. */
  outdated(): boolean;
}

/** A pack file. Returns false when the work was dropped for a newer version. */
export function analysePack(text: string, uri: string, version: number, hash: Base64Hasher, sink: AnalysisSink): boolean {
  const result = validatePack(text, { hashBase64: hash });
  sink.diagnostics(result.diagnostics.map((d) => toLspDiagnostic(d, uri)));
  if (!sink.model) return true;
  if (sink.outdated()) return false;
  // Text that is not JSON has no model: the last one stays, its places moved over the edits since.
  if (result.value === undefined || !result.source) return true;
  const model = packModel(result.value, textPlacer(result.source), version);
  if (sink.outdated()) return false;
  model.fixes = fixEdits(result.value, result.source, result.diagnostics, hash);
  // A pack whose only errors are what its automations do together (flow/*) has a cascade to show.
  if (!result.diagnostics.some(blocksUse)) addBehaviour(model, result.value as Pack);
  sink.model(model);
  return true;
}

/**
 * A source folder: its files built and validated (the CLI's reading, `validate <folder>`), findings
 * by file, and the model of the built pack with each place in the file it was read from.
 */
export async function analyseFolder(
  support: SourceFolderSupport,
  root: string,
  overlay: ReadonlyMap<string, string>,
  version: number,
  hash: Base64Hasher,
  sink: AnalysisSink,
): Promise<boolean> {
  const analysis = await support.analyse(root, overlay);
  sink.folderDiagnostics(
    analysis.files.map((f) => {
      const uri = pathToFileURL(f.file).href;
      return { uri, diagnostics: f.diagnostics.map((d) => toLspDiagnostic(d, uri)) };
    }),
  );
  if (!sink.model) return true;
  if (sink.outdated()) return false;
  if (analysis.pack === undefined) return true;
  const files: string[] = [];
  const placer = folderPlacer(analysis, files);
  const model = packModel(analysis.pack, placer, version);
  placeKeyCopies(model, analysis, placer);
  if (analysis.fixable) model.fixes = targetEdits(analysis.pack, hash, folderTarget(analysis, placer));
  if (analysis.valid) addBehaviour(model, analysis.pack as Pack);
  model.files = files.map((f) => pathToFileURL(f).href);
  sink.model(model);
  return true;
}

/** Where else a folder writes each item's key (PackItem.keyCopies): what a rename changes with it. */
function placeKeyCopies(model: PackModel, analysis: FolderAnalysis, placer: FolderPlacer): void {
  for (const it of model.items) {
    const copies = analysis.copies(`${itemPointer(it)}/key`);
    if (copies.length === 0) continue;
    it.keyCopies = copies.flatMap((c) => placer.placeIn(c.file, [{ pointer: c.pointer }]).filter((s) => s !== undefined));
  }
}

interface FolderPlacer extends Placer {
  /** Pointers of one file of the folder. */
  placeIn(file: string, requests: readonly LocateRequest[]): (Span | undefined)[];
  /** A file's index among the model's files. */
  fileIndex(file: string): number;
}

/**
 * Where core's fixes of the built pack are written in a folder: each value in the file the build
 * read it from, named by its pointer in that file (as the folder's findings name it); a property
 * added, in the file holding the object it is added to.
 */
function folderTarget(analysis: FolderAnalysis, placer: FolderPlacer): FixTarget {
  return {
    placer,
    pointerOf: (pointer) => analysis.locate(pointer).pointer,
    insertion: (pointer) => {
      const where = analysis.locate(pointer);
      const text = analysis.text(where.file);
      if (where.pointer === undefined || text === undefined) return undefined;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return undefined;
      }
      const path = pathOf(where.pointer, value);
      return path && { text, path, file: placer.fileIndex(where.file) };
    },
  };
}

/** Each pointer of the built pack placed in the file the build read it from (one scan of each file). */
function folderPlacer(analysis: FolderAnalysis, files: string[]): FolderPlacer {
  const indexes = new Map<string, number>();
  const indexOf = (file: string) => indexes.get(file) ?? (indexes.set(file, files.push(file) - 1), files.length - 1);
  return {
    fileIndex: indexOf,
    placeIn(file, requests) {
      const source = analysis.sources.get(file);
      return source ? placeInText(source, requests, indexOf(file)) : requests.map(() => undefined);
    },
    place(requests) {
      const out = new Array<{ start: number; end: number; file: number } | undefined>(requests.length).fill(undefined);
      const byFile = new Map<string, { at: number; pointer: string; key?: boolean }[]>();
      requests.forEach((r, at) => {
        const where = analysis.locate(r.pointer);
        if (where.pointer === undefined) {
          const text = analysis.text(where.file);
          if (text !== undefined) out[at] = { start: 0, end: text.length, file: indexOf(where.file) };
        } else
          (byFile.get(where.file) ?? byFile.set(where.file, []).get(where.file)!).push({
            at,
            pointer: where.pointer,
            ...(r.key ? { key: true } : {}),
          });
      });
      for (const [file, list] of byFile) this.placeIn(file, list).forEach((span, k) => (out[list[k].at] = span as (typeof out)[number]));
      return out;
    },
    text: (file) => (file === undefined ? '' : (analysis.text(files[file]) ?? '')),
  };
}
