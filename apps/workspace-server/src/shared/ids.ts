import { randomFillSync } from 'node:crypto';
import { COLLECTIONS, type WorkspaceCollection } from '@setup-pack/core';

// Random bytes are drawn from the CSPRNG a pool at a time (as crypto.randomUUID does): a
// randomBytes call per id cost 1.7 µs, most of it allocating and filling a 12-byte Buffer.
const pool = Buffer.alloc(4096);
let used = pool.length;

/** Ids are a type prefix and random hex, e.g. con_3f9a…; the prefix tells a reader what an id names. */
export function newId(prefix: string, bytes = 12): string {
  if (bytes > pool.length) throw new RangeError(`newId: at most ${pool.length} random bytes`);
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const hex = pool.toString('hex', used, used + bytes);
  used += bytes;
  return `${prefix}_${hex}`;
}

/** A new id of an object of a workspace collection, with the prefix the contract gives it (core's COLLECTIONS). */
export const newCollectionId = (collection: WorkspaceCollection): string => newId(COLLECTIONS[collection].idPrefix);
