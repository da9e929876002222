// Asset hashing for the validation worker. The worker validates the pack after every pause in
// typing, and core decodes and hashes every asset each time (with the portable hasher, ~150 ms
// for 6 MiB of assets). Patches leave unchanged assets' data as they were, so their results are
// remembered from one validation to the next; assets no longer in the pack are forgotten.
import { portableHasher, type Base64Hasher } from '@setup-pack/core';

export interface AssetHashCache {
  /** Pass to validatePack as `hashBase64`. */
  hasher: Base64Hasher;
  /** Call after each validation: keeps only what that validation asked for. */
  done(): void;
}

export function createAssetHashCache(hash: Base64Hasher = portableHasher): AssetHashCache {
  let previous = new Map<string, ReturnType<Base64Hasher>>();
  let current = new Map<string, ReturnType<Base64Hasher>>();
  return {
    hasher(data) {
      if (current.has(data)) return current.get(data);
      const result = previous.has(data) ? previous.get(data) : hash(data);
      current.set(data, result);
      return result;
    },
    done() {
      previous = current;
      current = new Map();
    },
  };
}
