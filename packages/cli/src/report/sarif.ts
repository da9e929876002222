// SARIF 2.1.0 for code-scanning uploads. Fingerprints hash the rule, the file and the pointer
// with array indices replaced by item keys and node ids, so they survive unrelated edits that
// move lines or reorder items.
import * as crypto from 'node:crypto';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sharedDepth, tokenIndex, unescapeToken, type Diagnostic } from '@setup-pack/core';
import { totals, visible, type FileReport, type ReportOptions } from './model.js';
import { jsonChunks, jsonString, LazyArray } from './stream.js';

const LEVEL = { error: 'error', warning: 'warning', info: 'note' } as const;

// crypto.hash (Node 20.12+) hashes a short string without building a Hash object: half the cost
// per result of createHash, which older Node 20 releases fall back to.
const sha256Hex: (text: string) => string =
  typeof (crypto as { hash?: unknown }).hash === 'function'
    ? (text) => (crypto as unknown as { hash(algorithm: string, data: string): string }).hash('sha256', text)
    : (text) => crypto.createHash('sha256').update(text).digest('hex');

/**
 * The pointer with array indices replaced by the element's key or id where it has one. One per
 * file: findings come in runs that share long prefixes (/automations/3/document/graph/nodes/17/
 * config/…), so each pointer resumes from the deepest prefix it shares with the one before (the
 * stable path and value of each of its prefixes are kept) and costs its last token or two; no map
 * of prefixes, whose string keys cost a hash each. Each prefix's path also carries a 32-bit FNV-1a
 * hash of its text, grown by the characters each token appends (`hash`, for the last path), so
 * repeats can be counted without hashing whole paths (Repeats).
 */
export class StablePaths {
  private last = '';
  private depth = 0;
  /** For the last pointer: where its d-th token ends, and the stable path, its hash and value up to there. */
  private ends: number[] = [0];
  private readonly paths: string[] = [''];
  private readonly hashes: number[] = [FNV_BASIS];
  private readonly values: unknown[];
  /** The hash of the text of the path the last call returned. */
  hash = FNV_BASIS;

  constructor(root: unknown) {
    this.values = [root];
  }

  of(pointer: string): string {
    if (pointer === '' || pointer.charCodeAt(0) !== 47) {
      this.hash = fnv(FNV_BASIS, pointer);
      return pointer;
    }
    const ends = this.ends;
    let d = sharedDepth(this.last, ends, this.depth, pointer);
    for (let i = ends[d] + 1; i <= pointer.length; ) {
      let j = pointer.indexOf('/', i);
      if (j < 0) j = pointer.length;
      const raw = pointer.slice(i, j);
      const token = unescapeToken(raw);
      const cur = this.values[d];
      let step: string;
      let value: unknown;
      const index = Array.isArray(cur) ? tokenIndex(token) : -1;
      if (index >= 0) {
        value = (cur as unknown[])[index];
        const o = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
        step = typeof o?.key === 'string' ? `[key=${JSON.stringify(o.key)}]` : typeof o?.id === 'string' ? `[id=${JSON.stringify(o.id)}]` : `[${token}]`;
      } else {
        step = `/${raw}`;
        value = cur !== null && typeof cur === 'object' && Object.prototype.hasOwnProperty.call(cur, token) ? (cur as Record<string, unknown>)[token] : undefined;
      }
      this.paths[d + 1] = this.paths[d] + step;
      this.hashes[d + 1] = fnv(this.hashes[d], step);
      d++;
      ends[d] = j;
      this.values[d] = value;
      i = j + 1;
    }
    this.depth = d;
    this.last = pointer;
    this.hash = this.hashes[d];
    return this.paths[d];
  }
}

const FNV_BASIS = 0x811c9dc5;

/** FNV-1a over UTF-16 code units, continuing from `hash`: fnv(fnv(h, a), b) === fnv(h, a + b). */
function fnv(hash: number, text: string): number {
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/**
 * How many findings of one file came before with the same code and the same stable path: the n
 * that tells their fingerprints apart. Keyed by a hash of both (from StablePaths.hash), holding
 * numbers only — which earlier finding first had each, and how many have — so the tens of
 * thousands of paths of a noisy file are neither kept nor hashed whole; when hashes meet, the
 * earlier finding's path is walked again (a second StablePaths) and compared as text, so equal
 * hashes of different paths count apart.
 */
export class Repeats {
  private readonly first = new Map<number, number>();
  /** Per distinct code and path: the finding that first had it, how many have, and the next entry with the same hash (-1: none). */
  private readonly finding: number[] = [];
  private readonly count: number[] = [];
  private readonly next: number[] = [];
  private readonly again: StablePaths;

  constructor(
    private readonly findings: readonly Diagnostic[],
    root: unknown,
  ) {
    this.again = new StablePaths(root);
  }

  /** For findings[i], whose stable path is `path` with hash `hash`. */
  of(i: number, path: string, hash: number): number {
    const code = this.findings[i].code;
    const key = fnv(hash, code);
    let e = this.first.get(key);
    if (e === undefined) {
      this.first.set(key, this.add(i));
      return 0;
    }
    for (;;) {
      const earlier = this.findings[this.finding[e]];
      if (earlier.code === code && this.again.of(earlier.pointer) === path) return this.count[e]++;
      if (this.next[e] < 0) break;
      e = this.next[e];
    }
    this.next[e] = this.add(i);
    return 0;
  }

  private add(i: number): number {
    this.finding.push(i);
    this.count.push(1);
    return this.next.push(-1) - 1;
  }
}

function artifactUri(path: string, cwd: string): { uri: string; uriBaseId?: string } {
  const abs = resolve(cwd, path);
  const rel = relative(cwd, abs);
  if (rel && !rel.startsWith('..') && !isAbsolute(rel)) return { uri: rel.split(sep).map(encodeURIComponent).join('/'), uriBaseId: '%SRCROOT%' };
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
      rules.push({ id: d.code, name: d.code, shortDescription: { text: d.code }, fullDescription: { text: d.code }, defaultConfiguration: { level: LEVEL[d.severity] }, help: { text: d.code } });
    }
  // Each result is written as its compact JSON line by hand (sarifResult): tens of thousands of
  // them, each otherwise eight objects built and stringified.
  const heads = new Map<string, string>();
  function* results() {
    for (const r of reports) {
      const artifactLocation = artifactUri(r.path, options.cwd);
      const artifactJson = JSON.stringify(artifactLocation);
      const findings = visible(r, options.quiet);
      const paths = new StablePaths(r.value);
      const repeats = new Repeats(findings, r.value);
      for (let i = 0; i < findings.length; i++) {
        const d = findings[i];
        const path = paths.of(d.pointer);
        const n = repeats.of(i, path, paths.hash);
        const base = `${d.code}\u0000${artifactLocation.uri}\u0000${path}`;
        let head = heads.get(d.code);
        if (head === undefined) heads.set(d.code, (head = `{"ruleId":${jsonString(d.code)},"ruleIndex":${ruleIndex.get(d.code)},"level":`));
        yield sarifResult(d, head, artifactLocation, artifactJson, sha256Hex(`${base}\u0000${n}`).slice(0, 32));
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
        tool: { driver: { name: 'setup-pack', semanticVersion: options.toolVersion, version: options.toolVersion, informationUri: 'https://setup-pack.dev/docs/cli', rules } },
        originalUriBaseIds: { '%SRCROOT%': { uri: cwdUri } },
        columnKind: 'utf16CodeUnits',
        invocations: [
          {
            executionSuccessful: t.unreadable === 0,
            toolExecutionNotifications: reports.filter((r) => r.readError).map((r) => ({ level: 'error', message: { text: r.readError! }, locations: [{ physicalLocation: { artifactLocation: artifactUri(r.path, options.cwd) } }] })),
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
 * properties: { pointer } } (test: lines.test.ts holds every line to that). `head` is the
 * result's ruleId and ruleIndex, written once per code.
 */
export function sarifResult(d: Diagnostic, head: string, artifactLocation: { uri: string; uriBaseId?: string }, artifactJson: string, fingerprint: string): string {
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
  return `${text},"partialFingerprints":{"setupPackPath/v1":"${fingerprint}"},"properties":{"pointer":${pointer}}}`;
}
