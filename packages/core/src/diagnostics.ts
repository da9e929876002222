export type Severity = 'error' | 'warning' | 'info';

/** A finding about a pack: data with a stable code, a JSON pointer and a message for authors. */
export interface Diagnostic {
  /** Stable rule code, documented in docs/rules.md (e.g. `graph/cycle`). */
  code: string;
  severity: Severity;
  /** What is wrong, in words a pack author understands; names the field. */
  message: string;
  /** RFC 6901 JSON pointer to the offending value ('' is the whole document). */
  pointer: string;
  /** 1-based position of the pointed value, for text input. */
  line?: number;
  column?: number;
  endLine?: number;
  endColumn?: number;
  /** Other places that explain the finding (e.g. the first of two duplicate keys). */
  related?: { pointer: string; message: string; line?: number; column?: number }[];
  /** How to fix it, when there is a clear way. */
  hint?: string;
  /**
   * For a finding about a field that is absent (`schema/required`, a block's required config
   * field in `catalog/config-field`): the absent field's name. The pointer is the object that
   * lacks it, since the field has no value to point at; an editor shows the finding on that
   * field's input; JSON and SARIF output carry it (`missing`, a SARIF result's properties).
   */
  missing?: string;
}

/**
 * Whether a finding keeps a pack from being built, installed, exported or opened by the tools:
 * every error but those about what its automations will do together (`flow/*`). Those are errors
 * of `validate`, so CI fails on a loop that never ends, but they read the effects model, not the
 * format: a pack the spec allows still moves between workspaces, and `simulate` explains it.
 */
export const blocksUse = (d: Pick<Diagnostic, 'severity' | 'code'>): boolean => d.severity === 'error' && !d.code.startsWith('flow/');

export interface RuleMeta {
  code: string;
  severity: Severity;
  /** One line: what the rule checks. */
  description: string;
}

const order: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * Document order of two pointers: array indices compare as numbers (/automations/9 before
 * /automations/10), everything else by UTF-16 unit. No allocation: it runs n log n times.
 */
export function comparePointers(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(j);
    if (isDigit(x) && isDigit(y)) {
      let ei = i;
      let ej = j;
      while (ei < a.length && isDigit(a.charCodeAt(ei))) ei++;
      while (ej < b.length && isDigit(b.charCodeAt(ej))) ej++;
      if (ei - i !== ej - j) return ei - i - (ej - j);
      for (; i < ei; i++, j++) if (a.charCodeAt(i) !== b.charCodeAt(j)) return a.charCodeAt(i) - b.charCodeAt(j);
      continue;
    }
    if (x !== y) return x - y;
    i++;
    j++;
  }
  return a.length - i - (b.length - j);
}

/**
 * The order of findings at one place: by severity, then code. Codes compare by UTF-16 unit, not
 * localeCompare: for our codes (lowercase letters, digits, '/', '-') the order is the same, with
 * no ICU collation per comparison (test: diagnostics.test.ts).
 */
export const compareAtOnePlace = (a: Diagnostic, b: Diagnostic): number =>
  order[a.severity] - order[b.severity] || compareCodes(a.code, b.code);

const compareCodes = (a: string, b: string): number => (a === b ? 0 : a < b ? -1 : 1);

/** Orders diagnostics by position in the document, then severity, then code. */
export function sortDiagnostics(list: Diagnostic[]): Diagnostic[] {
  return list.sort(
    (a, b) =>
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0) ||
      (a.line === undefined ? comparePointers(a.pointer, b.pointer) : 0) ||
      compareAtOnePlace(a, b),
  );
}

export function countBySeverity(list: readonly Diagnostic[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const d of list) counts[d.severity]++;
  return counts;
}

/**
 * Findings of one code whose messages differ only in quoted names (node ids, keys, values) and
 * in the array indexes of the place they name ("nodes[3].kind" and "nodes[17].kind").
 */
export interface FindingGroup {
  code: string;
  severity: Severity;
  /** The message with its quoted parts replaced by "…" and its array indexes by […]: what the repeats have in common. */
  shape: string;
  items: Diagnostic[];
}

/**
 * A message's shape: its double-quoted parts replaced by "…" and the array indexes of the places
 * it names ([3], as describePointer writes them) by […], as
 * `message.replace(/"[^"]*"|\[\d+\]/g, …)` would. A schema error starts with its place
 * ("automations[2].document.graph.nodes[5].kind is …"), so without the indexes 20,000 blocks of
 * one unknown kind were 20,000 groups of one, printed in full.
 */
export function messageShape(message: string): string {
  let q = message.indexOf('"');
  let b = message.indexOf('[');
  if (q < 0 && b < 0) return message;
  // indexOf over quotes and brackets rather than a regular expression: it runs once per finding.
  let out = '';
  let from = 0;
  while (q >= 0 || b >= 0) {
    if (q >= 0 && (b < 0 || q < b)) {
      const close = message.indexOf('"', q + 1);
      if (close < 0) {
        q = -1; // an unclosed quote stays as it is
        continue;
      }
      out += message.slice(from, q) + '"…"';
      from = close + 1;
      q = message.indexOf('"', from);
      if (b >= 0 && b < from) b = message.indexOf('[', from);
    } else {
      const end = indexEnd(message, b);
      if (end > 0) {
        out += message.slice(from, b) + '[…]';
        from = end + 1;
      }
      b = message.indexOf('[', b + 1);
    }
  }
  return out + message.slice(from);
}

/** Where `[digits]` opened at `b` closes, or -1 when what opens there is not an index. */
function indexEnd(message: string, b: number): number {
  let i = b + 1;
  for (let c = message.charCodeAt(i); c >= 48 && c <= 57; c = message.charCodeAt(++i));
  return i > b + 1 && message.charCodeAt(i) === 93 ? i : -1;
}

/**
 * The double-quoted parts of a message, quotes included, in order (`"n1"`): what messageShape
 * writes as "…" (its […] are the indexes, which a folded group's positions already tell apart).
 * Put back for each "…", they make the message again.
 */
export function quotedParts(message: string): string[] {
  const parts: string[] = [];
  for (let q = message.indexOf('"'); q >= 0;) {
    const close = message.indexOf('"', q + 1);
    if (close < 0) break;
    parts.push(message.slice(q, close + 1));
    q = message.indexOf('"', close + 1);
  }
  return parts;
}

/**
 * The group `d` belongs to, without its findings: findings repeat one another when they share a
 * code, a severity and a message shape (`shape`, messageShape of the message, when already made).
 * groupFindings groups by exactly this; a reader that updates groups (the editor) makes its new
 * groups with it.
 */
export function groupOf(d: Diagnostic, shape = messageShape(d.message)): FindingGroup {
  return { code: d.code, severity: d.severity, shape, items: [] };
}

/**
 * Groups repeats of one code and one message shape, in order of each group's first finding, so a
 * pack with 40,000 copies of one info reads as one line with a count. One pass: a map by code,
 * under it a map by shape, under that the groups of that code and shape by severity (almost
 * always one, each by its index): no key string is built per finding. (Comparing a finding first with the group of
 * the one before, character by character without building its shape, was slower: 1.27×.)
 */
export function groupFindings(list: readonly Diagnostic[]): FindingGroup[] {
  return groupFindingsAt(list).groups;
}

/**
 * groupFindings, and where each finding went: `at[i]` is the index in `groups` of `list[i]`'s
 * group (for a reader that updates the groups when a few findings change, as the editor does).
 */
export function groupFindingsAt(list: readonly Diagnostic[]): { groups: FindingGroup[]; at: Int32Array } {
  const groups: FindingGroup[] = [];
  const at = new Int32Array(list.length);
  const byCode = new Map<string, Map<string, number[]>>();
  for (let i = 0; i < list.length; i++) {
    const d = list[i];
    let byShape = byCode.get(d.code);
    if (!byShape) byCode.set(d.code, (byShape = new Map<string, number[]>()));
    const shape = messageShape(d.message);
    let same = byShape.get(shape);
    if (!same) byShape.set(shape, (same = []));
    let g = -1;
    for (let k = 0; k < same.length; k++) if (groups[same[k]].severity === d.severity) g = same[k];
    if (g < 0) {
      g = groups.length;
      same.push(g);
      groups.push(groupOf(d, shape));
    }
    groups[g].items.push(d);
    at[i] = g;
  }
  return { groups, at };
}
