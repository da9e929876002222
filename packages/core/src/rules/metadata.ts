// Every diagnostic code core can produce: JSON and schema codes, then one per rule module.
import { RULES } from './index.js';
import type { RuleMeta } from '../diagnostics.js';

/** Metadata of every diagnostic code core can produce (schema and JSON codes included); `docs`: more for docs/rules.md. */
export const RULE_METADATA: readonly (RuleMeta & { docs?: string })[] = [
  { code: 'json/syntax', severity: 'error', description: 'The file is valid JSON.' },
  { code: 'json/duplicate-key', severity: 'warning', description: 'An object does not repeat a property name.' },
  { code: 'json/too-deep', severity: 'error', description: 'The document nests at most 512 levels deep.' },
  {
    code: 'json/number-range',
    severity: 'error',
    description:
      'A number is one JSON.parse can hold (a 64-bit float, at most 1.7976931348623157e308 in size): 1e400 reads as Infinity, which is installed as null.',
    docs: [
      "JSON itself sets no limit on numbers, but every reader of a pack on the way to a workspace (the validator, the installer, the workspace API, the editor) reads them as 64-bit floats, as `JSON.parse` does. A number past the largest float (`1e400`, `-1e400`, 310 digits) reads as Infinity, which `JSON.stringify` writes as `null`: the pack would validate and install with `null` where it says a number, and export back so. An error wherever it stands, in a field the format leaves open (a block's `config`, a resource's `data`, the `brand`) as in one it types; where the schema or a rule would have said something about the same value too (`must be an integer`), only this is said.",
      "From text, the number is named as written and placed; a value handed in as an object (the editor, the server's automation documents) is named as what it holds: Infinity, -Infinity or NaN. The CLI's `fmt`, `fix` and `unpack` refuse to write a file that has one (it would be written as `null`).",
    ].join('\n\n'),
  },
  {
    code: 'json/number-precision',
    severity: 'warning',
    description:
      'An integer beyond 2^53 reads as the number written: 12345678901234567890 reads, installs and exports as 12345678901234567000.',
    docs: [
      'A 64-bit float holds every integer only up to 2^53 (9007199254740992). Past it, a number written with more digits than a float keeps reads as the nearest float, and is written back (installed, exported, formatted) with the digits of that float: `12345678901234567890` comes back as `12345678901234567000`, `9007199254740993` as `9007199254740992`. Said only when the number that would be written back is not the one written: `1e23` or `100000000000000000000` come back as the same number (`1e+23`, `100000000000000000000`), so they are not reported.',
      "A warning, not an error: the value stays a number close to the one written, where `json/number-range` would turn it into `null`, and the format sets no limit on numbers. But such a number is most often an identifier (an id from another system, an account or phone number) whose every digit matters: write it as a string. `validate` does not report decimal fractions written with more digits than a float keeps (`0.1000000000000000000001`), nor numbers too close to 0 for one (`1e-400` reads as 0): rounding them is what a float does to any measurement, and telling them would mean reading every number's text, which a clean pack would pay for. `fmt` and `fix`, which write every number again, do read each one's text, and report such a number under this code (leaving the file as it is: written again, it would say `0.1` or `0`); a number only written otherwise than JSON writes it (`1.0`, `1E+2`, `0.50`) is the same number, and is not reported. Only text is checked: a value handed in as an object holds a float already, which is written back exactly as it is. `fmt`, `fix` and `unpack` refuse to write a file that has one, since writing it again would change the number. The editor, which holds the number as it reads, lists each one of a file it opens as this finding, and asks before exporting an edited pack that would write one otherwise.",
    ].join('\n\n'),
  },
  { code: 'schema/required', severity: 'error', description: 'A required field is present.' },
  {
    code: 'schema/unknown-field',
    severity: 'error',
    description: 'No field the format does not define, where the spec rejects unknown fields.',
  },
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
