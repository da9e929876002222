// validatePack: parse, check the schema, then run every semantic rule. Never throws.
import { sortDiagnostics, type Diagnostic } from './diagnostics.js';
import { measure, numberFindings, parseJsonText, tooDeep, type SourceText } from './json/parse.js';
import type { LocateRequest, Spot } from './json/positions.js';
import { sortInDocumentOrder } from './json/order.js';
import { PointerSet } from './json/pointer.js';
import { validateAgainstSchema } from './schema/validator.js';
import { RULES } from './rules/index.js';
import type { AutomationRef, ItemRef, Rule, RuleContext } from './rules/rule.js';
import { buildGraphModel, NodeIdTable } from './graph/model.js';
import { base64Padding, portableHasher, type Base64Hasher } from './hash.js';
import type { Pack } from './types.js';

export interface ValidateOptions {
  /** Decodes and hashes asset data; defaults to a portable implementation. */
  hashBase64?: Base64Hasher;
  /** Rule codes to skip. */
  disableRules?: readonly string[];
  /**
   * false: findings of JSON text come in document order but without positions, for a report
   * that shows a few of many; place those with placeFindings. Findings that are placed anyway:
   * when the text repeats a property name, has objects with array-index names, or is not JSON.
   */
  place?: boolean;
}

export interface ValidateResult {
  /** The pack, present when it has no errors. */
  pack?: Pack;
  /** The parsed JSON value, present whenever the input is JSON. */
  value?: unknown;
  diagnostics: Diagnostic[];
  /** For text input: maps pointers to positions. */
  source?: SourceText;
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function validatePack(input: unknown, options: ValidateOptions = {}): ValidateResult {
  let source: SourceText | undefined;
  let value: unknown;
  let diagnostics: Diagnostic[] = [];
  try {
    if (typeof input === 'string') {
      const parsed = parseJsonText(input);
      source = parsed.source;
      diagnostics = parsed.diagnostics; // a new array each call
      // Text that is not JSON, or nested too deep, comes back without a value.
      if (!('value' in parsed)) return finish(diagnostics, undefined, source, options);
      value = parsed.value;
    } else {
      const m = measure(input);
      if (m.deepPath) {
        diagnostics.push(tooDeep(m.deepPath));
        return finish(diagnostics, undefined, source, options);
      }
      if (m.wide) for (const d of numberFindings(input)) diagnostics.push(d);
      value = input;
    }
    // A number JSON cannot hold (json/number-range) is the whole story about its value: what the
    // schema and the rules would add there ("must be an integer, not a number") is not said. A
    // whole text that is such a number (`1e400`) is still told that a pack is a JSON object.
    const outOfRange = diagnostics.length ? numbersOutOfRange(diagnostics) : undefined;
    if (!isObj(value)) {
      diagnostics.push(notAPack(value)!);
      return finish(diagnostics, value, source, options);
    }
    const brokenPaths = new PointerSet();
    const schemaFindings = validateAgainstSchema('pack', value, '', brokenPaths);
    for (let i = 0; i < schemaFindings.length; i++) diagnostics.push(schemaFindings[i]);
    runRules(value, brokenPaths, options, diagnostics);
    if (outOfRange) diagnostics = diagnostics.filter((d) => !outOfRange.has(d.pointer) || d.code.startsWith('json/'));
  } catch (e) {
    diagnostics.push({
      code: 'internal/error',
      severity: 'error',
      message: `The validator failed on this input (${e instanceof Error ? e.message : String(e)}). Please report it with the file.`,
      pointer: '',
    });
  }
  return finish(diagnostics, value, source, options);
}

/** The pointers of the numbers JSON cannot hold, when there are any. */
function numbersOutOfRange(diagnostics: readonly Diagnostic[]): Set<string> | undefined {
  let out: Set<string> | undefined;
  for (const d of diagnostics) if (d.code === 'json/number-range') (out ??= new Set()).add(d.pointer);
  return out;
}

/**
 * Orders (and unless `place: false`, places) the findings and makes the result. A module-level
 * function rather than a closure in validatePack, so validatePack's variables stay off the heap.
 */
function finish(diagnostics: Diagnostic[], value: unknown, source: SourceText | undefined, options: ValidateOptions): ValidateResult {
  // A clean pack (most packs of a folder) has nothing to order or place.
  if (diagnostics.length > 0) {
    const ordered =
      options.place === false && source?.uniqueKeys === true && value !== undefined && sortInDocumentOrder(value, diagnostics, placesKey);
    if (!ordered) {
      if (source) placeAll(source, diagnostics);
      sortDiagnostics(diagnostics);
    }
  }
  // Built without object spreads (each a runtime call while this code is still interpreted).
  const result: ValidateResult =
    value === undefined
      ? { diagnostics }
      : diagnostics.some(isError)
        ? { value, diagnostics }
        : { pack: value as Pack, value, diagnostics };
  if (source) result.source = source;
  return result;
}

const isError = (d: Diagnostic) => d.severity === 'error';

/**
 * The finding about a value that cannot be a pack at all, its top level not being a JSON object
 * (`[]`, `null`, `42`), or undefined for an object: validation's, and the refusal of every command
 * that would otherwise take such a file for a pack (fmt, fix: "already formatted", "nothing to fix").
 */
export function notAPack(value: unknown): Diagnostic | undefined {
  return isObj(value)
    ? undefined
    : { code: 'schema/type', severity: 'error', message: `A pack is a JSON object, not ${describeNonObject(value)}.`, pointer: '' };
}

/** What a value handed in for a pack is, when it is not an object: "an array", "null", "a number", "undefined". */
const describeNonObject = (value: unknown): string =>
  Array.isArray(value) ? 'an array' : value === null ? 'null' : value === undefined ? 'undefined' : `a ${typeof value}`;

/**
 * Findings about a property name itself are placed on the name, not on its value (the one list of
 * such codes; a source folder's build places by it too): a field the format or the catalog does
 * not define (the name is what is unknown; its value may be anything), a property written twice.
 * The most frequent first: an export of the real service has tens of thousands of unknown config fields.
 */
export const placesKey = (d: Pick<Diagnostic, 'code'>): boolean =>
  d.code === 'catalog/unknown-config-field' ||
  d.code === 'graph/unknown-field' ||
  d.code === 'schema/unknown-field' ||
  d.code === 'json/duplicate-key';

/**
 * Positions of the given findings of a result validated with `place: false` (those a report
 * shows), written in place: one scan of the text, up to the last of them.
 */
export function placeFindings(result: ValidateResult, findings: readonly Diagnostic[]): void {
  if (result.source) placeAll(result.source, findings);
}

/** Positions of every finding that has none yet, in one scan of the text, written in place. */
function placeAll(source: SourceText, diagnostics: readonly Diagnostic[]): void {
  // A clean pack builds no locator (its typed arrays were a tenth of validating a small pack).
  if (!diagnostics.some((d) => d.line === undefined || d.related?.some((r) => r.line === undefined))) return;
  const locator = source.locator();
  if (!locator) {
    placeEach(source, diagnostics);
    return;
  }
  const spots: (Spot | undefined)[] = [];
  for (const d of diagnostics) {
    if (d.line === undefined) spots.push(locator.want(d.pointer));
    if (d.related) for (const r of d.related) if (r.line === undefined) spots.push(locator.want(r.pointer));
  }
  if (!spots.length) return;
  locator.scan(source.uniqueKeys === true);
  let i = 0;
  for (const d of diagnostics) {
    if (d.line === undefined) locator.place(spots[i++], placesKey(d), d);
    if (d.related) for (const r of d.related) if (r.line === undefined) locator.place(spots[i++], false, r, false);
  }
}

/** Text that is not JSON: SourceText places each pointer through the tolerant parser's tree. */
function placeEach(source: SourceText, diagnostics: readonly Diagnostic[]): void {
  const requests: LocateRequest[] = [];
  for (const d of diagnostics) {
    if (d.line === undefined) requests.push({ pointer: d.pointer, key: placesKey(d) });
    if (d.related) for (const r of d.related) if (r.line === undefined) requests.push({ pointer: r.pointer });
  }
  const found = source.locateAll(requests);
  let i = 0;
  for (const d of diagnostics) {
    if (d.line === undefined) {
      const pos = found[i++];
      if (pos) Object.assign(d, pos);
    }
    if (d.related)
      for (const r of d.related) {
        if (r.line !== undefined) continue;
        const pos = found[i++];
        if (pos) {
          r.line = pos.line;
          r.column = pos.column;
        }
      }
  }
}

function runRules(pack: Record<string, unknown>, brokenPaths: PointerSet, options: ValidateOptions, out: Diagnostic[]): void {
  const run = new RuleRun(pack, brokenPaths, options.hashBase64 ?? portableHasher, out);
  const disabled = options.disableRules?.length ? new Set(options.disableRules) : undefined;
  for (const rule of RULES) {
    if (disabled?.has(rule.meta.code)) continue;
    run.rule = rule;
    rule.check(run);
  }
}

/**
 * What the rules see (RuleContext), for one validation. A class rather than object literals
 * spread per rule: its instances share one hidden class for the life of the process, so the
 * rules' optimised code stays valid from one validation to the next (spread-built objects got
 * fresh hidden classes after a GC and sent every rule back to the compiler).
 */
class RuleRun implements RuleContext {
  // Fields are declared, not initialised in place: a class field declaration makes V8 run an
  // initialiser function per instance that defines each field before the constructor sets it
  // again, which a folder of small packs pays while this code is still interpreted.
  declare rule: Rule | undefined;
  declare readonly pack: Record<string, unknown>;
  /** Where the schema found errors: rules stand down at and below them. */
  declare private readonly brokenPaths: PointerSet;
  declare private readonly hasher: Base64Hasher;
  declare private readonly out: Diagnostic[];
  // Made on first use: most rules find nothing of what they look at in a small pack.
  declare private itemCache: Map<string, ItemRef[]> | undefined;
  declare private automationCache: AutomationRef[] | undefined;
  declare private hashCache: Map<string, { byteSize: number; sha256: string } | undefined> | undefined;

  constructor(pack: Record<string, unknown>, brokenPaths: PointerSet, hasher: Base64Hasher, out: Diagnostic[]) {
    this.rule = undefined;
    this.pack = pack;
    this.brokenPaths = brokenPaths;
    this.hasher = hasher;
    this.out = out;
    this.itemCache = undefined;
    this.automationCache = undefined;
    this.hashCache = undefined;
  }

  isBroken(pointer: string): boolean {
    // A binary search, not a walk of every schema error: asked per block, a walk made a pack with
    // thousands of schema errors quadratic (20,000 in 27 s).
    return this.brokenPaths.size > 0 && this.brokenPaths.hasAtOrBelow(pointer);
  }

  items(kind: string): ItemRef[] {
    const cache = (this.itemCache ??= new Map<string, ItemRef[]>());
    let list = cache.get(kind);
    if (!list) {
      const arr = this.pack[kind];
      list = [];
      if (Array.isArray(arr))
        for (let i = 0; i < arr.length; i++) {
          const value: unknown = arr[i];
          if (isObj(value)) list.push({ value, index: i, pointer: `/${kind}/${i}` });
        }
      cache.set(kind, list);
    }
    return list;
  }

  automations(): AutomationRef[] {
    if (!this.automationCache) {
      const ids = new NodeIdTable(); // one id map for every graph of the pack
      const isBroken = this.brokenPaths.size > 0 ? (p: string) => this.isBroken(p) : undefined;
      this.automationCache = this.items('automations').map((a) => {
        const document = isObj(a.value.document) ? a.value.document : undefined;
        const graph = document ? buildGraphModel(document.graph, `${a.pointer}/document/graph`, isBroken, ids) : undefined;
        return { value: a.value, index: a.index, pointer: a.pointer, document, graph };
      });
    }
    return this.automationCache;
  }

  hashBase64(data: string): { byteSize: number; sha256: string } | undefined {
    const cache = (this.hashCache ??= new Map<string, { byteSize: number; sha256: string } | undefined>());
    if (!cache.has(data)) {
      // Safety net for hashers that decode leniently: strict base64 of length L decodes to exactly 3L/4 - padding bytes.
      const pad = base64Padding(data);
      const h = data.length % 4 === 0 ? this.hasher(data) : undefined;
      cache.set(data, h && h.byteSize === (data.length / 4) * 3 - pad ? h : undefined);
    }
    return cache.get(data);
  }

  report(d: Parameters<RuleContext['report']>[0]): void {
    const meta = this.rule!.meta;
    // One object shape for every finding (positions included, set later by placeAll): tens of
    // thousands of findings stay cheap to build, place and sort.
    this.out.push({
      code: meta.code,
      severity: d.severity ?? meta.severity,
      message: d.message,
      pointer: d.pointer,
      line: undefined,
      column: undefined,
      endLine: undefined,
      endColumn: undefined,
      related: d.related,
      hint: d.hint,
      missing: d.missing,
    });
  }
}

// Keeps RuleRun's hidden class alive between validations (see SHAPE_KEEPER in graph/model.ts;
// exported for the same reason).
export const RULE_RUN_SHAPE = new RuleRun({}, new PointerSet(), portableHasher, []);

/** Validates one automation document (as the server receives it), with pointers inside it. */
export function validateAutomationDocument(document: unknown, options: ValidateOptions = {}): { diagnostics: Diagnostic[] } {
  const wrapper = {
    format: 'service.setup-pack',
    schemaVersion: 2,
    packId: '00000000-0000-4000-8000-000000000000',
    name: 'document',
    version: '0',
    automations: [{ key: 'document', document }],
  };
  const { diagnostics } = validatePack(wrapper, { ...options, disableRules: [...(options.disableRules ?? []), 'reference/missing-name'] });
  const prefix = '/automations/0/document';
  return {
    diagnostics: diagnostics
      .filter((d) => d.pointer === prefix || d.pointer.startsWith(prefix + '/'))
      .map((d) => ({
        ...d,
        pointer: d.pointer.slice(prefix.length),
        related: d.related?.map((r) => ({ ...r, pointer: r.pointer.startsWith(prefix) ? r.pointer.slice(prefix.length) : r.pointer })),
      })),
  };
}
