// Schema validation with ajv (strict mode, draft 2020-12; precompiled) over the published schemas, and the
// mapping of ajv's errors to diagnostics with stable codes and messages that name the field.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { validators } from '../generated/validators.js';
import type { Diagnostic } from '../diagnostics.js';
import { describePointer, escapeToken, resolvePointer, type PointerSet } from '../json/pointer.js';
import { closest, count, plural } from '../text.js';
import { getOwn } from '../own.js';

export const SCHEMA_BASE = 'https://setup-pack.dev/schemas/';
export const schemaId = (name: string) => `${SCHEMA_BASE}${name}.schema.json`;

/**
 * The validator of a published schema by name (pack, automation-document, ...). The validators
 * are ajv's standalone code, compiled from schemas/ at build time (scripts/embed-schemas.mjs):
 * no schema compilation at start-up.
 */
export function schemaValidator(name: string): ValidateFunction {
  const fn = (validators as Record<string, unknown>)[name];
  if (typeof fn !== 'function') throw new Error(`Unknown schema: ${name}`);
  return fn as ValidateFunction;
}

const PATTERN_MESSAGES: Record<string, string> = {
  '^[0-9a-f]{64}$': 'must be the lower-case hex SHA-256 of the file (64 characters, 0-9 and a-f)',
  '^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$': 'must be a hex color such as #ef4444',
  '^[^\\r\\n]*$': 'must be a single line',
  '^https://': 'must be an https:// address',
};
const FORMAT_MESSAGES: Record<string, string> = {
  uuid: 'must be a UUID such as 3f2b8c1e-5d4a-4c7b-9e21-7a6f0b1c2d3e',
  'date-time': 'must be an RFC 3339 timestamp such as 2026-01-31T09:30:00Z',
  uri: 'must be a full web address',
};

/**
 * What a schema rule asks, in words, as a pack's finding and the API's 400 both say it: a
 * `pattern` or `format` ("must be a hex color such as #ef4444"), a length or a number of items
 * ("must have at most 200 characters (it has 201)"), a range ("must be at least 1"). `params` are
 * ajv's error params; `value` the value that broke the rule (for "it has"). Undefined for a
 * pattern or format that has no words, and for other keywords.
 */
export function ruleWords(keyword: string, params: Record<string, unknown>, value?: unknown): string | undefined {
  const has = (n: number | undefined) => (n === undefined ? '' : ` (it has ${count(n)})`);
  switch (keyword) {
    case 'pattern':
      return getOwn(PATTERN_MESSAGES, String(params.pattern));
    case 'format':
      return getOwn(FORMAT_MESSAGES, String(params.format));
    case 'minLength':
      return `must have at least ${plural(Number(params.limit), 'character')}`;
    case 'maxLength':
      return `must have at most ${plural(Number(params.limit), 'character')}${has(typeof value === 'string' ? codePoints(value) : undefined)}`;
    case 'minItems':
      return `must have at least ${plural(Number(params.limit), 'item')}`;
    case 'maxItems':
      return `must have at most ${plural(Number(params.limit), 'item')}${has(Array.isArray(value) ? value.length : undefined)}`;
    case 'minimum':
      return `must be at least ${params.limit}`;
    case 'maximum':
      return `must be at most ${params.limit}`;
    case 'exclusiveMinimum':
      return `must be more than ${params.limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${params.limit}`;
    default:
      return undefined;
  }
}

const typeOf = (v: unknown) =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'an array'
      : typeof v === 'object'
        ? 'an object'
        : typeof v === 'string'
          ? 'a string'
          : typeof v === 'number'
            ? Number.isInteger(v)
              ? 'an integer'
              : 'a number'
            : typeof v === 'boolean'
              ? 'a boolean'
              : typeof v;
const typeName: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/**
 * A JSON Schema `type` (ajv's `params.type`: one name or several joined by commas) in words:
 * "a string", "an integer or null". The pack's findings and the API's 400s say types alike.
 */
export function schemaTypeWords(type: string): string {
  return type
    .split(',')
    .map((t) => typeName[t] ?? t)
    .join(' or ');
}
const show = (v: unknown) => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? s.slice(0, 57) + '…' : s;
};

/**
 * A string's length as JSON Schema's `maxLength` and `minLength` count it: in code points, so an
 * emoji is one character, not two UTF-16 units (without materialising the characters).
 */
export function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) n--;
  }
  return n;
}

/**
 * "Did you mean" guesses of one validation, by the candidates (the schema's own array, the same
 * object for every error of one keyword in one place) and the word: a broken export repeats one
 * wrong value thousands of times, and each guess measures the word against every candidate.
 */
export type Guesses = Map<object, Map<string, string | undefined>>;

function guess(guesses: Guesses, by: object, word: string, candidates: () => readonly string[]): string | undefined {
  let known = guesses.get(by);
  if (!known) guesses.set(by, (known = new Map<string, string | undefined>()));
  if (known.has(word)) return known.get(word);
  const g = closest(word, candidates());
  known.set(word, g);
  return g;
}

/**
 * A diagnostic for one of ajv's errors over `root`, placed and named at `at` (the error's place in
 * the document whose findings these are; its instancePath when `root` is that document).
 */
export function toDiagnostic(e: ErrorObject, root: unknown, guesses: Guesses, at = e.instancePath): Diagnostic | undefined {
  const where = describePointer(at);
  const value = resolvePointer(root, e.instancePath).value; // ajv's instancePath is an RFC 6901 pointer
  const p = e.params as Record<string, unknown>;
  const d = (code: string, message: string, pointer = at, hint?: string): Diagnostic => ({
    code,
    severity: 'error',
    message,
    pointer,
    ...(hint ? { hint } : {}),
  });
  switch (e.keyword) {
    case 'required':
      return {
        ...d('schema/required', `${where === 'the pack' ? 'The pack' : where} is missing the required field "${p.missingProperty}".`),
        missing: String(p.missingProperty),
      };
    case 'additionalProperties': {
      const prop = String(p.additionalProperty);
      const properties = (e.parentSchema as { properties?: object })?.properties ?? {};
      const known = Object.keys(properties);
      const guessed = guess(guesses, properties, prop, () => known);
      return d(
        'schema/unknown-field',
        `${where === 'the pack' ? 'The pack' : where} has an unknown field "${prop}"${guessed ? `; did you mean "${guessed}"?` : '.'}`,
        `${at}/${escapeToken(prop)}`,
        `Allowed fields: ${known.join(', ')}.`,
      );
    }
    case 'type': {
      const want = schemaTypeWords(String(p.type));
      return d('schema/type', `${where} must be ${want}, not ${typeOf(value)}.`);
    }
    case 'enum': {
      const allowed = (p.allowedValues as unknown[]) ?? [];
      const guessed =
        typeof value === 'string'
          ? guess(guesses, allowed, value, () => allowed.filter((a): a is string => typeof a === 'string'))
          : undefined;
      const list = allowed.length <= 8 ? `: ${allowed.map(show).join(', ')}` : ` (${plural(allowed.length, 'value')}; see the schema)`;
      return d(
        'schema/enum',
        `${where} is ${show(value)}, which is not one of the allowed values${list}${guessed ? `. Did you mean "${guessed}"?` : '.'}`,
      );
    }
    case 'const':
      return d('schema/const', `${where} must be ${show(p.allowedValue)}, not ${show(value)}.`);
    case 'minLength':
      return d('schema/too-short', `${where} ${ruleWords(e.keyword, p, value)}.`);
    case 'maxLength':
      return d('schema/too-long', `${where} ${ruleWords(e.keyword, p, value)}.`);
    case 'minItems':
      return d('schema/too-few', `${where} ${ruleWords(e.keyword, p, value)}.`);
    case 'maxItems':
      return d('schema/too-many', `${where} ${ruleWords(e.keyword, p, value)}.`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return d('schema/range', `${where} is ${show(value)}; it ${ruleWords(e.keyword, p, value)}.`);
    case 'pattern':
      return d('schema/pattern', `${where} ${ruleWords(e.keyword, p) ?? `must match ${p.pattern}`}.`);
    case 'format':
      return d('schema/format', `${where} is ${show(value)}; it ${ruleWords(e.keyword, p) ?? `must be a valid ${p.format}`}.`);
    case 'uniqueItems':
      return d('schema/unique', `${where} has the same value twice (items ${p.j} and ${p.i}).`);
    default:
      return d(`schema/${e.keyword}`, `${where} is not valid (${e.keyword}).`);
  }
}

/**
 * Validates `value` against a published schema. Returns diagnostics; pointers are relative to
 * `value` and prefixed with `prefix` (to place a sub-document inside a pack).
 */
export function validateAgainstSchema(name: string, value: unknown, prefix = '', brokenPaths?: PointerSet): Diagnostic[] {
  const fn = schemaValidator(name);
  if (fn(value)) return [];
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  const guesses: Guesses = new Map();
  for (const e of fn.errors ?? []) {
    const diag = toDiagnostic(e, value, guesses);
    if (!diag) continue;
    // A missing field breaks the field's own path, so rules that read it stand down.
    brokenPaths?.add(
      prefix +
        (e.keyword === 'required'
          ? `${e.instancePath}/${escapeToken(String((e.params as { missingProperty: string }).missingProperty))}`
          : diag.pointer),
    );
    diag.pointer = prefix + diag.pointer;
    const id = `${diag.code}|${diag.pointer}|${diag.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(diag);
  }
  return out;
}
