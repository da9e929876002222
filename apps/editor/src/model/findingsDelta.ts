// What the validation worker sends the page: most keystrokes change no finding, and an edit that
// does (a field emptied, a block added) changes a few of tens of thousands. Findings come in
// document order, so a change leaves a run at the start and a run at the end as they were: the
// worker sends only the middle, and the page keeps its own objects for the rest. A structured
// clone of 59,700 findings costs about 45 ms on each side; keeping the page's objects also keeps
// what it worked out for them (where each sits, see findings.ts).
import type { Diagnostic } from '@setup-pack/core';

/**
 * Whether two findings say the same thing at the same place (code, severity, message, pointer,
 * hint, related places). No line or column: the worker validates the pack's value, not a text.
 */
export function sameFinding(x: Diagnostic, y: Diagnostic): boolean {
  if (x === y) return true;
  if (x.code !== y.code || x.severity !== y.severity || x.message !== y.message || x.pointer !== y.pointer || x.hint !== y.hint)
    return false;
  if ((x.related?.length ?? 0) !== (y.related?.length ?? 0)) return false;
  return !x.related || JSON.stringify(x.related) === JSON.stringify(y.related);
}

/** Whether two validations found the same things, in the same order. */
export const sameFindings = (a: readonly Diagnostic[] | undefined, b: readonly Diagnostic[]): boolean =>
  a !== undefined && findingsDelta(a, b) === undefined;

/** A new list of findings as the list before it: its first `head` and last `tail` kept, `middle` between them. */
export interface FindingsDelta {
  head: number;
  tail: number;
  middle: Diagnostic[];
}

/** Where two lists differ: `head` alike at the start, `tail` at the end, `gone` of the first and `came` of the second between. */
export interface ChangedRun {
  head: number;
  tail: number;
  gone: number;
  came: number;
}

/** The run in which `b` differs from `a` (items alike by `same`; by identity unless given). */
export function changedRun<T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean = Object.is): ChangedRun {
  const most = Math.min(a.length, b.length);
  let head = 0;
  while (head < most && same(a[head], b[head])) head++;
  let tail = 0;
  while (tail < most - head && same(a[a.length - 1 - tail], b[b.length - 1 - tail])) tail++;
  return { head, tail, gone: a.length - tail - head, came: b.length - tail - head };
}

/**
 * Whether what the page made from the findings before (index, groups) is better updated than made
 * again: at most half of the new findings changed.
 */
export const worthUpdating = (run: ChangedRun, length: number) => (run.gone + run.came) * 2 <= length;

/**
 * The delta from `before` (undefined: nothing sent yet) to `after`; undefined when `after` found
 * the same things as `before`, in the same order (one pass tells both).
 */
export function findingsDelta(before: readonly Diagnostic[] | undefined, after: readonly Diagnostic[]): FindingsDelta | undefined {
  if (!before) return { head: 0, tail: 0, middle: after.slice() };
  const run = changedRun(before, after, sameFinding);
  if (run.gone === 0 && run.came === 0) return undefined;
  return { head: run.head, tail: run.tail, middle: after.slice(run.head, after.length - run.tail) };
}

/** The list a delta describes, keeping `before`'s own objects where it kept findings. */
export function applyFindingsDelta(before: readonly Diagnostic[], d: FindingsDelta): Diagnostic[] {
  if (d.head + d.tail > before.length) throw new Error(`a findings delta keeps ${d.head} + ${d.tail} of ${before.length} findings`);
  const out = before.slice(0, d.head);
  for (const m of d.middle) out.push(m);
  for (let i = before.length - d.tail; i < before.length; i++) out.push(before[i]);
  return out;
}
