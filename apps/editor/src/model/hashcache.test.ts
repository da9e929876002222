import { describe, expect, it } from 'vitest';
import { portableHasher, validatePack } from '@setup-pack/core';
import { createAssetHashCache } from './hashcache.js';

describe('asset hash cache', () => {
  it('hashes each asset once across validations, forgets removed ones, and gives the same results', () => {
    const calls: string[] = [];
    const cache = createAssetHashCache((data) => (calls.push(data), portableHasher(data)));
    const a = btoa('first file');
    const b = btoa('second file');
    expect(cache.hasher(a)).toEqual(portableHasher(a));
    cache.hasher(b);
    cache.hasher(a);
    cache.done();
    expect(calls).toEqual([a, b]);
    cache.hasher(a); // remembered from the last validation
    cache.done(); // b was not asked for: forgotten
    cache.hasher(b);
    cache.hasher('not base64!');
    expect(calls).toEqual([a, b, b, 'not base64!']);
    expect(cache.hasher('not base64!')).toBeUndefined();
  });

  it('gives validatePack the same diagnostics as the plain hasher', () => {
    const data = btoa('x'.repeat(100));
    const pack = {
      format: 'service.setup-pack',
      schemaVersion: 2,
      packId: '6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12',
      name: 'p',
      version: '1',
      assets: [{ key: 'logo', role: 'logo', fileName: 'a.txt', mimeType: 'text/plain', byteSize: 100, sha256: '0'.repeat(64), data }],
    };
    const cache = createAssetHashCache();
    for (let i = 0; i < 2; i++) {
      expect(validatePack(pack, { hashBase64: cache.hasher }).diagnostics).toEqual(validatePack(pack).diagnostics);
      cache.done();
    }
  });
});
