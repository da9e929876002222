// What the server needs of a pack source folder (the files `setup-pack build` reads), supplied by
// the CLI, which owns that layout: which folder a file belongs to, the folder built and validated
// with the editor's unsaved texts in place of the files, where each value of the built pack is
// written, and which files are named after an item's key. The server imports it from a module (a
// worker thread cannot be handed functions): `sourceFolders` in ServerOptions names the module,
// which exports `sourceFolderSupport`.
import type { Diagnostic, SourceText } from '@setup-pack/core';

export interface FolderAnalysis {
  /** The folder's files that have findings, each with them (absolute paths), as `setup-pack validate <folder>` reports them. */
  files: { file: string; diagnostics: Diagnostic[] }[];
  /** The pack the files build, when they build one (with findings or without). */
  pack?: unknown;
  /** Whether a finding of the built pack is about a place core's fixes write (core's mayBeFixed). */
  fixable?: boolean;
  /** Whether the built pack has no errors (what `setup-pack build` would write). */
  valid?: boolean;
  /** Where a value of the built pack is written: a file of the folder, and a pointer inside it (none: the whole file). */
  locate(packPointer: string): { file: string; pointer?: string };
  /**
   * Other places of the folder that write the value at a pointer of the built pack and must say
   * the same (a resource's key: in its kind's file, and in the manifest's list).
   */
  copies(packPointer: string): { file: string; pointer: string }[];
  /** The JSON files the build read, as parsed (absolute paths). */
  sources: ReadonlyMap<string, SourceText>;
  /** The text of a file of the folder as the build read it (a template's body file too). */
  text(file: string): string | undefined;
}

/** What `setup-pack build` makes of a folder: the pack's text when it builds, and the findings by file. */
export interface FolderBuild {
  /** The pack file's text, byte for byte what `setup-pack build` writes; absent when the folder has errors. */
  text?: string;
  /** The folder's files that have findings (absolute paths), as build reports them. */
  files: { file: string; diagnostics: Diagnostic[] }[];
}

export interface SourceFolderSupport {
  /** The root of the source folder a file (an absolute path) belongs to, when it is one build reads or would read. */
  folderOf(file: string): Promise<string | undefined>;
  /** The folder built and validated, `overlay` (absolute path → text) read in place of the files on disk. */
  analyse(root: string, overlay: ReadonlyMap<string, string>): Promise<FolderAnalysis>;
  /**
   * The folder built as `setup-pack build` builds it, `exportedAt` stamped as build stamps it (the
   * server's SOURCE_DATE_EPOCH, else now) when not given; with `output` (an absolute path), the pack
   * written there as build writes it, and refused (an Error saying why) over a file of the folder.
   */
  build(root: string, options?: { exportedAt?: string; output?: string }): Promise<FolderBuild>;
  /**
   * The path, without its extension, of the files named after the key of item `index` of a list
   * (`automations`, `smartLists`, `pipelines`, `messageTemplates`; undefined for another), given every
   * key of the list in order: a name depends on the other keys too (two that differ only in case).
   * An automation has `<base>.json`; a template `<base>.json` and its body, `<base>.html` or `.txt`.
   */
  itemFileBase(root: string, collection: string, keys: readonly string[], index: number): string | undefined;
}
