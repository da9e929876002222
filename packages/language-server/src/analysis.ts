// One analysis of a pack text: core's findings first (published as soon as they are ready), then
// the model the requests read. Between the two, and before the second's costlier parts, it asks
// whether a newer version has come since: work for a text the author has moved past is dropped.
import { validatePack, type Base64Hasher } from '@setup-pack/core';
import type { Diagnostic as LspDiagnostic } from 'vscode-languageserver';
import { packModel } from './pack-model.js';
import { toLspDiagnostic } from './diagnostics.js';
import { fixEdits } from './fixes.js';
import type { PackModel } from './model.js';

export interface AnalysisSink {
  diagnostics(list: LspDiagnostic[]): void;
  model(model: PackModel): void;
  /** Whether a newer version of the document has come since this one. */
  outdated(): boolean;
}

/** Returns false when the work was dropped for a newer version. */
export function analysePack(text: string, uri: string, version: number, hash: Base64Hasher, sink: AnalysisSink): boolean {
  const result = validatePack(text, { hashBase64: hash });
  sink.diagnostics(result.diagnostics.map((d) => toLspDiagnostic(d, uri)));
  if (sink.outdated()) return false;
  // Text that is not JSON has no model: the last one stays, its places moved over the edits since.
  if (result.value === undefined || !result.source) return true;
  const model = packModel(result.value, result.source, version);
  if (sink.outdated()) return false;
  model.fixes = fixEdits(result.value, result.source, result.diagnostics, hash);
  sink.model(model);
  return true;
}
