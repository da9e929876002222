// Every diagnostic code core can produce: JSON and schema codes, then one per rule module.
import { RULES } from './index.js';
import type { RuleMeta } from '../diagnostics.js';

/** Metadata of every diagnostic code core can produce (schema and JSON codes included). */
export const RULE_METADATA: readonly RuleMeta[] = [
  { code: 'json/syntax', severity: 'error', description: 'The file is valid JSON.' },
  { code: 'json/duplicate-key', severity: 'warning', description: 'An object does not repeat a property name.' },
  { code: 'json/too-deep', severity: 'error', description: 'The document nests at most 512 levels deep.' },
  { code: 'schema/required', severity: 'error', description: 'A required field is present.' },
  { code: 'schema/unknown-field', severity: 'error', description: 'No field the format does not define, where the spec rejects unknown fields.' },
  { code: 'schema/type', severity: 'error', description: 'A value has the type the format gives it.' },
  { code: 'schema/enum', severity: 'error', description: 'A value is one of the allowed values.' },
  { code: 'schema/const', severity: 'error', description: 'A value equals its fixed value.' },
  { code: 'schema/too-short', severity: 'error', description: 'A string is at least its minimum length.' },
  { code: 'schema/too-long', severity: 'error', description: 'A string is at most its maximum length.' },
  { code: 'schema/too-few', severity: 'error', description: 'An array has at least its minimum number of items.' },
  { code: 'schema/too-many', severity: 'error', description: 'An array has at most its maximum number of items.' },
  { code: 'schema/range', severity: 'error', description: 'A number is within its range.' },
  { code: 'schema/pattern', severity: 'error', description: 'A string has its required form (hex color, sha256, single line, https).' },
  { code: 'schema/format', severity: 'error', description: 'A string is a valid uuid, RFC 3339 timestamp or address.' },
  ...RULES.map((r) => r.meta),
  { code: 'internal/error', severity: 'error', description: 'The validator itself failed; please report the input.' },
];
