// SARIF 2.1.0 for code-scanning uploads. Fingerprints hash the file, the pointer with array
// indices replaced by item keys and node ids, and the rule, so they survive unrelated edits that
// move lines or reorder items (docs/cli.md, sarif).
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sharedDepth, tokenIndex, unescapeToken, type Diagnostic } from '@setup-pack/core';
import { totals, visible, type FileReport, type ReportOptions } from './model.js';
import { jsonChunks, jsonString, LazyArray } from './stream.js';

const LEVEL = { error: 'error', warning: 'warning', info: 'note' } as const;

/**
 * FNV-1a with 128 bits over the UTF-8 bytes of `text` from `start` to `end` (offset basis
 * 0x6c62272e07bb014262b821756295c58d, prime 2^88 + 0x13b), continuing from the state at
 * `src[from]` and leaving it at `dst[to]` (which may be the same place): a state is eight 16-bit limbs, least
 * significant first, so the product by the prime is eight small multiplications, three shifted
 * additions and the carries, exact in 32-bit arithmetic. Fingerprints are grown with it token by
 * token (StablePaths), so each result hashes its last step or two, its code and its repeat count
 * instead of its whole path, and needs no native call (crypto.hash: about 0.7 µs a call).
 */
export function fnv128(src: Int32Array, from: number, dst: Int32Array, to: number, text: string, start: number, end: number): void {
  let h0 = src[from],
    h1 = src[from + 1],
    h2 = src[from + 2],
    h3 = src[from + 3],
    h4 = src[from + 4],
    h5 = src[from + 5],
    h6 = src[from + 6],
    h7 = src[from + 7];
  for (let i = start; i < end; i++) {
    // The code unit's UTF-8 bytes, first byte lowest (a lone surrogate as U+FFFD, as Buffer.from does).
    let bytes = text.charCodeAt(i);
    let count = 1;
    if (bytes >= 0x80) {
      let c = bytes;
      if (c < 0x800) {
        bytes = 0xc0 | (c >> 6) | ((0x80 | (c & 63)) << 8);
        count = 2;
      } else {
        const next = i + 1 < end ? text.charCodeAt(i + 1) : 0;
        if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          i++;
          bytes = 0xf0 | (c >> 18) | ((0x80 | ((c >> 12) & 63)) << 8) | ((0x80 | ((c >> 6) & 63)) << 16) | ((0x80 | (c & 63)) << 24);
          count = 4;
        } else {
          if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
          bytes = 0xe0 | (c >> 12) | ((0x80 | ((c >> 6) & 63)) << 8) | ((0x80 | (c & 63)) << 16);
          count = 3;
        }
      }
    }
    for (; count > 0; count--, bytes >>>= 8) {
      h0 ^= bytes & 0xff;
      const t0 = h0 * 0x13b;
      const t1 = h1 * 0x13b + (t0 >>> 16);
      const t2 = h2 * 0x13b + (t1 >>> 16);
      const t3 = h3 * 0x13b + (t2 >>> 16);
      const t4 = h4 * 0x13b + (t3 >>> 16);
      const t5 = h5 * 0x13b + (h0 << 8) + (t4 >>> 16);
      const t6 = h6 * 0x13b + (h1 << 8) + (t5 >>> 16);
      const t7 = h7 * 0x13b + (h2 << 8) + (t6 >>> 16);
      h0 = t0 & 0xffff;
      h1 = t1 & 0xffff;
      h2 = t2 & 0xffff;
      h3 = t3 & 0xffff;
      h4 = t4 & 0xffff;
      h5 = t5 & 0xffff;
      h6 = t6 & 0xffff;
      h7 = t7 & 0xffff;
    }
  }
  dst[to] = h0;
  dst[to + 1] = h1;
  dst[to + 2] = h2;
  dst[to + 3] = h3;
  dst[to + 4] = h4;
  dst[to + 5] = h5;
  dst[to + 6] = h6;
  dst[to + 7] = h7;
}

/** FNV-1a 128's offset basis as a state (fnv128). */
export const FNV128_BASIS: readonly number[] = [0xc58d, 0x6295, 0x2175, 0x62b8, 0x0142, 0x07bb, 0x272e, 0x6c62];

const HEX = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102];

/** The state at `s[at]` as 32 lowercase hex digits, most significant first. */
export function hex128(s: Int32Array, at: number): string {
  const a = s[at + 7],
    b = s[at + 6],
    c = s[at + 5],
    d = s[at + 4],
    e = s[at + 3],
    f = s[at + 2],
    g = s[at + 1],
    h = s[at];
  return String.fromCharCode(
    HEX[a >> 12],
    HEX[(a >> 8) & 15],
    HEX[(a >> 4) & 15],
    HEX[a & 15],
    HEX[b >> 12],
    HEX[(b >> 8) & 15],
    HEX[(b >> 4) & 15],
    HEX[b & 15],
    HEX[c >> 12],
    HEX[(c >> 8) & 15],
    HEX[(c >> 4) & 15],
    HEX[c & 15],
    HEX[d >> 12],
    HEX[(d >> 8) & 15],
    HEX[(d >> 4) & 15],
    HEX[d & 15],
    HEX[e >> 12],
    HEX[(e >> 8) & 15],
    HEX[(e >> 4) & 15],
    HEX[e & 15],
    HEX[f >> 12],
    HEX[(f >> 8) & 15],
    HEX[(f >> 4) & 15],
    HEX[f & 15],
    HEX[g >> 12],
    HEX[(g >> 8) & 15],
    HEX[(g >> 4) & 15],
    HEX[g & 15],
    HEX[h >> 12],
    HEX[(h >> 8) & 15],
    HEX[(h >> 4) & 15],
    HEX[h & 15],
  );
}

/**
 * The pointer with array indices replaced by the element's key or id where it has one (its
 * stable path), as the FNV-1a 128 state (fnv128) of `seed` followed by that path's text. One per
 * file: findings come in runs that share long prefixes (/automations/3/document/graph/nodes/17/
 * config/…), so each pointer resumes from the deepest prefix it shares with the one before (the
 * state and value of each of its prefixes are kept) and hashes its last token or two; the path's
 * text is never built. An object member's step is the pointer's own text (`/name`), hashed where
 * it stands, and its value is looked up only when a later pointer goes below it: most findings
 * end in a member no other finding goes into (`/config/legacy_field_0`), and a lookup by a
 * sliced key costs a search of V8's string table.
 */
export class StablePaths {
  private last = '';
  private depth = 0;
  /** For the last pointer: where its d-th token ends, and the value up to there (for d <= known). */
  private readonly ends: number[] = [0];
  private readonly values: unknown[];
  private known = 0;
  /** The state after the seed and the stable path up to the d-th token is at (d + 1) * 8; 0 is for pointers that are not pointers. */
  states = new Int32Array(8 * 16);

  constructor(root: unknown, seed: string) {
    this.values = [root];
    this.states.set(FNV128_BASIS, 8);
    fnv128(this.states, 8, this.states, 8, seed, 0, seed.length);
  }

  /** Where in `states` the state of `pointer`'s stable path is, until the next call. */
  of(pointer: string): number {
    if (pointer === '' || pointer.charCodeAt(0) !== 47) {
      // Not a pointer (or the root): its text is its path.
      fnv128(this.states, 8, this.states, 0, pointer, 0, pointer.length);
      return 0;
    }
    const ends = this.ends;
    const values = this.values;
    let d = sharedDepth(this.last, ends, this.depth, pointer);
    if (this.known > d) this.known = d;
    for (let i = ends[d] + 1; i <= pointer.length;) {
      let j = pointer.indexOf('/', i);
      if (j < 0) j = pointer.length;
      if (this.known < d) {
        // The parent is the member the pointer before ended in: look it up now.
        const parent = values[d - 1];
        const token = unescapeToken(pointer.slice(ends[d - 1] + 1, ends[d]));
        values[d] =
          parent !== null && typeof parent === 'object' && Object.prototype.hasOwnProperty.call(parent, token)
            ? (parent as Record<string, unknown>)[token]
            : undefined;
        this.known = d;
      }
      if ((d + 3) * 8 > this.states.length) {
        const grown = new Int32Array(this.states.length * 2);
        grown.set(this.states);
        this.states = grown;
      }
      const cur = values[d];
      const index = Array.isArray(cur) ? tokenIndex(pointer.slice(i, j)) : -1;
      if (index >= 0) {
        const value: unknown = (cur as unknown[])[index];
        const o = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
        const step =
          typeof o?.key === 'string'
            ? `[key=${JSON.stringify(o.key)}]`
            : typeof o?.id === 'string'
              ? `[id=${JSON.stringify(o.id)}]`
              : `[${index}]`;
        fnv128(this.states, (d + 1) * 8, this.states, (d + 2) * 8, step, 0, step.length);
        values[d + 1] = value;
        this.known = d + 1;
      } else {
        fnv128(this.states, (d + 1) * 8, this.states, (d + 2) * 8, pointer, i - 1, j);
      }
      d++;
      ends[d] = j;
      i = j + 1;
    }
    this.depth = d;
    this.last = pointer;
    return (d + 1) * 8;
  }
}

/**
 * SARIF's partialFingerprints["setupPackPath/v2"] of each finding of one file, in order: FNV-1a
 * 128 (fnv128) of the file's URI, NUL, the stable path (StablePaths), NUL, the code, NUL and n,
 * the count of the findings before with the same code and stable path, in decimal. Repeats are
 * counted in an open-addressing table keyed by the 128-bit state before n, so no path is kept or
 * compared as text; two different paths whose states met (2^-128 a pair) would be counted as
 * repeats and still get different fingerprints.
 */
export class Fingerprints {
  private readonly paths: StablePaths;
  /** Scratch: the state before n at 0, the fingerprint's at 8. */
  private readonly work = new Int32Array(16);
  /** Slot → 1 + the entry it holds (0: empty); entry e's state at keys[e * 8], its count at counts[e]. */
  private readonly slots: Int32Array;
  private readonly keys: Int32Array;
  private readonly counts: Int32Array;
  private entries = 0;

  /** For at most `findings` findings of the file at `uri`, whose parsed value is `root`. */
  constructor(root: unknown, uri: string, findings: number) {
    this.paths = new StablePaths(root, `${uri}\u0000`);
    let size = 16;
    while (size < findings * 2) size *= 2;
    this.slots = new Int32Array(size);
    this.keys = new Int32Array(Math.max(findings, 1) * 8);
    this.counts = new Int32Array(Math.max(findings, 1));
  }

  /** The fingerprint of the next finding, with `code` and `pointer`; `codeText` is `\0${code}\0`. */
  of(pointer: string, codeText: string): string {
    const paths = this.paths;
    const w = this.work;
    const at = paths.of(pointer);
    fnv128(paths.states, at, w, 0, codeText, 0, codeText.length);
    const n = this.repeat(w);
    const digits = String(n);
    fnv128(w, 0, w, 8, digits, 0, digits.length);
    return hex128(w, 8);
  }

  /** How many findings before had the state at `w[0]` (and counts this one). */
  private repeat(w: Int32Array): number {
    const keys = this.keys;
    const mask = this.slots.length - 1;
    for (let slot = (w[0] ^ (w[1] << 15) ^ (w[7] << 5)) & mask; ; slot = (slot + 1) & mask) {
      const e = this.slots[slot] - 1;
      if (e < 0) {
        const at = this.entries * 8;
        for (let k = 0; k < 8; k++) keys[at + k] = w[k];
        this.counts[this.entries] = 1;
        this.slots[slot] = ++this.entries;
        return 0;
      }
      const at = e * 8;
      if (
        keys[at] === w[0] &&
        keys[at + 1] === w[1] &&
        keys[at + 2] === w[2] &&
        keys[at + 3] === w[3] &&
        keys[at + 4] === w[4] &&
        keys[at + 5] === w[5] &&
        keys[at + 6] === w[6] &&
        keys[at + 7] === w[7]
      )
        return this.counts[e]++;
    }
  }
}

function artifactUri(path: string, cwd: string): { uri: string; uriBaseId?: string } {
  const abs = resolve(cwd, path);
  const rel = relative(cwd, abs);
  if (rel && !rel.startsWith('..') && !isAbsolute(rel))
    return { uri: rel.split(sep).map(encodeURIComponent).join('/'), uriBaseId: '%SRCROOT%' };
  return { uri: pathToFileURL(abs).href };
}

export function* sarifChunks(reports: readonly (FileReport & { value?: unknown })[], options: ReportOptions): Generator<string> {
  const rules = options.rules.map((r) => ({
    id: r.code,
    name: r.code.replace(/[/-](\w)/g, (_, ch: string) => ch.toUpperCase()),
    shortDescription: { text: r.description },
    fullDescription: { text: r.description },
    defaultConfiguration: { level: LEVEL[r.severity] },
    help: { text: `${r.description} See docs/rules.md (${r.code}).` },
  }));
  const ruleIndex = new Map(rules.map((r, i) => [r.id, i]));
  // Rules come before results in the log, so codes without metadata are added in a first pass.
  for (const r of reports)
    for (const d of visible(r, options.quiet)) {
      if (ruleIndex.has(d.code)) continue;
      ruleIndex.set(d.code, rules.length);
      rules.push({
        id: d.code,
        name: d.code,
        shortDescription: { text: d.code },
        fullDescription: { text: d.code },
        defaultConfiguration: { level: LEVEL[d.severity] },
        help: { text: d.code },
      });
    }
  // Each result is written as its compact JSON line by hand (sarifResult): tens of thousands of
  // them, each otherwise eight objects built and stringified.
  const heads = new Map<string, string>();
  const codeTexts = new Map<string, string>();
  function* results() {
    for (const r of reports) {
      const artifactLocation = artifactUri(r.path, options.cwd);
      const artifactJson = JSON.stringify(artifactLocation);
      const findings = visible(r, options.quiet);
      const prints = new Fingerprints(r.value, artifactLocation.uri, findings.length);
      for (let i = 0; i < findings.length; i++) {
        const d = findings[i];
        let head = heads.get(d.code);
        if (head === undefined) {
          heads.set(d.code, (head = `{"ruleId":${jsonString(d.code)},"ruleIndex":${ruleIndex.get(d.code)},"level":`));
          codeTexts.set(d.code, `\u0000${d.code}\u0000`);
        }
        yield sarifResult(d, head, artifactLocation, artifactJson, prints.of(d.pointer, codeTexts.get(d.code)!));
      }
    }
  }
  const t = totals(reports);
  const cwdUri = pathToFileURL(options.cwd.endsWith(sep) ? options.cwd : options.cwd + sep).href;
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'setup-pack',
            semanticVersion: options.toolVersion,
            version: options.toolVersion,
            informationUri: 'https://setup-pack.dev/docs/cli',
            rules,
          },
        },
        originalUriBaseIds: { '%SRCROOT%': { uri: cwdUri } },
        columnKind: 'utf16CodeUnits',
        invocations: [
          {
            executionSuccessful: t.unreadable === 0,
            toolExecutionNotifications: reports
              .filter((r) => r.readError)
              .map((r) => ({
                level: 'error',
                message: { text: r.readError! },
                locations: [{ physicalLocation: { artifactLocation: artifactUri(r.path, options.cwd) } }],
              })),
          },
        ],
        artifacts: reports.map((r) => ({ location: artifactUri(r.path, options.cwd) })),
        results: new LazyArray(results(), 'text'),
      },
    ],
  };
  yield* jsonChunks(log);
  yield '\n';
}

/**
 * One SARIF result as a compact JSON line, the text JSON.stringify gives for { ruleId, ruleIndex,
 * level, message: { text }, locations: [{ physicalLocation: { artifactLocation, region? },
 * logicalLocations: [{ fullyQualifiedName, kind }] }], relatedLocations?, partialFingerprints,
 * properties: { pointer, missing? } } (test: lines.test.ts holds every line to that). `head` is the
 * result's ruleId and ruleIndex, written once per code.
 */
export function sarifResult(
  d: Diagnostic,
  head: string,
  artifactLocation: { uri: string; uriBaseId?: string },
  artifactJson: string,
  fingerprint: string,
): string {
  const pointer = JSON.stringify(d.pointer);
  let text = `${head}${jsonString(LEVEL[d.severity])},"message":{"text":${JSON.stringify(d.hint ? `${d.message} ${d.hint}` : d.message)}},"locations":[{"physicalLocation":{"artifactLocation":${artifactJson}`;
  if (d.line !== undefined) {
    text += `,"region":{"startLine":${d.line},"startColumn":${d.column ?? 1}`;
    if (d.endLine !== undefined) text += `,"endLine":${d.endLine},"endColumn":${d.endColumn ?? (d.column ?? 1) + 1}`;
    text += '}';
  }
  text += `},"logicalLocations":[{"fullyQualifiedName":${d.pointer ? pointer : '"/"'},"kind":"element"}]}]`;
  if (d.related?.length)
    text += `,"relatedLocations":${JSON.stringify(d.related.map((x, i) => ({ id: i + 1, message: { text: x.message }, physicalLocation: { artifactLocation, ...(x.line !== undefined ? { region: { startLine: x.line, startColumn: x.column ?? 1 } } : {}) } })))}`;
  return `${text},"partialFingerprints":{"setupPackPath/v2":"${fingerprint}"},"properties":{"pointer":${pointer}${d.missing ? `,"missing":${JSON.stringify(d.missing)}` : ''}}}`;
}
