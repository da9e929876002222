// Small text helpers for messages.

/** Levenshtein distance, capped: enough to suggest "did you mean". */
export function editDistance(a: string, b: string, cap = 8): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/** The candidate closest to `word`, when it is close enough to be a likely typo. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  if (word.length > 200) return undefined;
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const s = editDistance(word.toLowerCase(), c.toLowerCase());
    if (s < bestScore) {
      best = c;
      bestScore = s;
    }
  }
  return best !== undefined && bestScore <= Math.max(2, Math.floor(word.length / 4)) ? best : undefined;
}

/**
 * A count as people read it, with thousands separators as toLocaleString('en-US') writes them
 * (39,799), without loading ICU's number formatting: its first call costs a fresh process 8–68 ms,
 * and the CLI's start-up is benchmarked. A fraction keeps the digits String gives it (1,500.25).
 */
export function count(n: number): string {
  const s = String(n);
  return s.length < 4 ? s : s.replace(/^-?\d{4,}/, (whole) => whole.replace(/\B(?=(\d{3})+$)/g, ','));
}

/** The word for `n` things: `one` for exactly 1, else `many` (`one` and an s unless given). */
export const pluralWord = (n: number, one: string, many = `${one}s`): string => (n === 1 ? one : many);

/** "1 error", "3,980 warnings", "2 entries": a count and its word, as every message writes one. */
export const plural = (n: number, one: string, many?: string): string => `${count(n)} ${pluralWord(n, one, many)}`;

/**
 * Characters a terminal or a CI log would act on instead of showing: the C0 controls (escape
 * sequences, carriage returns, line breaks: a message that starts a line with `::` is a GitHub
 * workflow command), DEL, the C1 controls, the Unicode line and paragraph separators, and the
 * bidirectional embeddings, overrides and isolates that reorder what a line seems to say
 * ("Trojan Source"). A pack's names, keys and values may hold any of them (JSON escapes them).
 * The marks LRM and RLM stay: right-to-left text uses them and they reorder nothing.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Text from a pack or a workspace made safe to print on one line of a terminal or a CI log: each
 * character of the set above written as JSON would escape it (`\n`, `\u001b`, `\u202e`), so the
 * reader sees what the file holds. Text without any comes back as it is (one regular expression
 * test).
 */
export function printable(s: string): string {
  if (!UNSAFE.test(s)) return s;
  return s.replace(UNSAFE_ALL, (ch) => SHORT[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A line of a file as a code frame shows it: the same set replaced one for one, so columns and
 * carets still line up: a tab by a space, the other C0 controls and DEL by their control pictures
 * (␛ for ESC), the rest by U+FFFD.
 */
export function printableLine(s: string): string {
  if (!UNSAFE.test(s)) return s;
  return s.replace(UNSAFE_ALL, (ch) => {
    const c = ch.charCodeAt(0);
    return c === 9 ? ' ' : c < 0x20 ? String.fromCharCode(0x2400 + c) : c === 0x7f ? '\u2421' : '\ufffd';
  });
}

/**
 * A set of strings to look for in texts, each text read once: asking `text.includes` of each
 * needle reads the text once per needle, which grows with their product (thousands of image
 * addresses against templates of 20,000 characters). Needles are grouped by their first (up to)
 * eight characters; in a text each group's start is found by `indexOf`, and at each start only
 * the group's lengths are looked up. An empty needle is never reported.
 */
export class Needles {
  private readonly groups = new Map<string, { lengths: number[]; wanted: Set<string> }>();
  constructor(needles: Iterable<string>) {
    for (const n of needles) {
      if (!n) continue;
      const head = n.slice(0, 8);
      let g = this.groups.get(head);
      if (!g) this.groups.set(head, (g = { lengths: [], wanted: new Set() }));
      if (!g.lengths.includes(n.length)) g.lengths.push(n.length);
      g.wanted.add(n);
    }
  }

  /** The needles that occur in `text`. */
  in(text: string): Set<string> {
    const found = new Set<string>();
    for (const [head, g] of this.groups) {
      // A group whose needles are all found stops looking.
      let left = g.wanted.size;
      for (let at = text.indexOf(head); at >= 0 && left; at = text.indexOf(head, at + 1)) {
        for (const length of g.lengths) {
          const s = text.substr(at, length);
          if (g.wanted.has(s) && !found.has(s)) {
            found.add(s);
            left--;
          }
        }
      }
    }
    return found;
  }
}

/** `s` as it stands between the quotes of a JSON string (quotes, backslashes and controls escaped). */
export const jsonStringContent = (s: string): string => JSON.stringify(s).slice(1, -1);

/** Which of `needles` occur somewhere in `text` (one text: `Needles` for many). */
export const occurringIn = (text: string, needles: Iterable<string>): Set<string> => new Needles(needles).in(text);
