import { randomBytes } from 'node:crypto';

/** Ids are a type prefix and random hex, e.g. con_3f9a…; the prefix tells a reader what an id names. */
export function newId(prefix: string, bytes = 12): string {
  return `${prefix}_${randomBytes(bytes).toString('hex')}`;
}
