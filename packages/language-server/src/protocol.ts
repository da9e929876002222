// Messages between the server's main thread and its validation worker.
import type { Diagnostic as LspDiagnostic } from 'vscode-languageserver';

/** A module the worker imports a Base64Hasher from (Node's native decoding and hashing, the CLI's). */
export interface HasherModule {
  module: string;
  name: string;
}

export interface WorkerData {
  /** SharedArrayBuffer of Int32 slots: the latest version of each pack file or source folder open. */
  latest: SharedArrayBuffer;
  hasher?: HasherModule;
  /** The module exporting `sourceFolderSupport` (folder-support.ts), when source folders are served. */
  folders?: string;
}

/** A pack file's text, or a source folder with its open files' texts (absolute path, text). */
export type AnalyseJob = (
  | { kind: 'pack'; uri: string; version: number; text: string; slot: number }
  | { kind: 'folder'; uri: string; root: string; version: number; overlay: [string, string][]; slot: number }
) & {
  /** Findings only, no model: a check of files no request will be asked about. */
  findingsOnly?: boolean;
};

/** The lists of a model, sent a slice at a time. */
export type ModelList = 'items' | 'refs' | 'urls' | 'blocks' | 'automations' | 'fixes';

/**
 * Findings and models come in slices of at most PART_SIZE entries, `last` on the final one: the
 * main thread takes each slice (a structured clone) between requests, rather than holding every
 * request up while tens of thousands of entries of a large pack are copied in at once.
 */
export const PART_SIZE = 1000;

export type WorkerReply =
  | { type: 'ready' }
  | { type: 'diagnostics'; uri: string; version: number; diagnostics: LspDiagnostic[]; last: boolean }
  | { type: 'model'; uri: string; version: number; list: ModelList; entries: unknown[]; last: boolean }
  | { type: 'hits'; uri: string; version: number; hits: Int32Array }
  | { type: 'files'; uri: string; version: number; files: string[] }
  | { type: 'folder-diagnostics'; uri: string; version: number; files: { uri: string; diagnostics: LspDiagnostic[] }[] }
  | { type: 'done'; uri: string; version: number; dropped: boolean };
