import { validatePack } from '@setup-pack/core';
import { describe, expect, it } from 'vitest';
import { fullPack, generatedPack } from '../src/generate.js';

describe('generated packs', () => {
  it('are valid packs (no errors) at every limit', () => {
    for (const p of [
      fullPack(),
      fullPack('1.1.0', 10),
      generatedPack({ resources: 8, templates: 2, smartLists: 2, pipelines: 1, automations: 2 }),
    ]) {
      const errors = validatePack(p).diagnostics.filter((d) => d.severity === 'error');
      expect(errors).toEqual([]);
    }
  });
});
