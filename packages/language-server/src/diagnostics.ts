// Core's findings as LSP diagnostics, one for one: the code, severity, message, place and related
// places as validatePack gives them, the rule's entry in docs/rules.md as the code's description,
// and the pointer (and missing field) kept as data for the quick fixes.
import { ruleAnchor, type Diagnostic, type Severity } from '@setup-pack/core';
import type { Diagnostic as LspDiagnostic, DiagnosticSeverity, Position } from 'vscode-languageserver';

/** Where docs/rules.md is published; each code links its entry there. */
export const RULES_DOCS_URL = 'https://setup-pack.dev/docs/rules';

export const ruleDocsUrl = (code: string): string => `${RULES_DOCS_URL}#${ruleAnchor(code)}`;

const SEVERITY: Record<Severity, DiagnosticSeverity> = { error: 1, warning: 2, info: 3 };

/** What a published diagnostic carries for the code actions. */
export interface FindingData {
  pointer: string;
  missing?: string;
  /** The finding's hint (core's), for the hover. */
  hint?: string;
}

/** Core's 1-based line and column (UTF-16 units, as LSP counts by default) as an LSP position. */
const at = (line: number | undefined, column: number | undefined): Position => ({
  line: Math.max(0, (line ?? 1) - 1),
  character: Math.max(0, (column ?? 1) - 1),
});

export function toLspDiagnostic(d: Diagnostic, uri: string): LspDiagnostic {
  const start = at(d.line, d.column);
  const end = d.endLine !== undefined && d.endColumn !== undefined ? at(d.endLine, d.endColumn) : start;
  const data: FindingData = { pointer: d.pointer };
  if (d.missing !== undefined) data.missing = d.missing;
  if (d.hint) data.hint = d.hint;
  const out: LspDiagnostic = {
    range: { start, end },
    severity: SEVERITY[d.severity],
    code: d.code,
    codeDescription: { href: ruleDocsUrl(d.code) },
    source: 'setup-pack',
    message: d.message,
    data,
  };
  if (d.related?.length) {
    out.relatedInformation = d.related.map((r) => {
      const p = at(r.line, r.column);
      return { location: { uri, range: { start: p, end: p } }, message: r.message };
    });
  }
  return out;
}
