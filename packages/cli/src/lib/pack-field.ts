// Option values that become a field of the pack (new --name and --author; export --name,
// --version and --pack-id): held to the pack schema's own rule for that field (core's
// acceptsProperty: its limits count characters, as validation does), so a value the pack could not
// hold is a usage error naming the option, said before anything is read or written.
import { acceptsProperty, codePoints, maxLengthOf } from '@setup-pack/core';
import { UsageError } from './errors.js';

/**
 * Refuses `value`, given as `--option`, when the pack schema does not take it as `property`.
 * `expected` says what the field is, for a field whose rule is not a length (a packId: a UUID).
 */
export function checkPackField(option: string, property: string, value: string, expected?: string): void {
  if (acceptsProperty('pack', property, value)) return;
  if (expected !== undefined) throw new UsageError(`--${option} must be ${expected}, not '${value}'`);
  if (value === '') throw new UsageError(`--${option} must not be empty`);
  const max = maxLengthOf('pack', property);
  const length = codePoints(value);
  if (length > max) throw new UsageError(`--${option} must be at most ${max} characters (it has ${length})`);
  throw new UsageError(`--${option} is not a valid pack ${property}: '${value}'`);
}
