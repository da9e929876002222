// The generator is honest: every pack it makes passes core's validation with 0 errors. And it
// covers the format: over a sample, every block kind, resource kind, asset role, reference type,
// template channel and stage type occurs, and the boundaries (longest names, 50 stages, 200 blocks).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ASSET_ROLES,
  MAX_DEPTH,
  MESSAGE_CHANNELS,
  NODE_KINDS,
  REFERENCE_TYPES,
  RESOURCE_KINDS,
  STAGE_TYPES,
  validatePack,
  type Pack,
} from '@setup-pack/core';
import { fuzzConfig, LIMITS, validPack } from '../src/index.js';

// 100 runs in `npm test`; `npm run fuzz` runs 10,000.
const { numRuns, seed, timeoutMs } = fuzzConfig('testkit validPack', 100);
/** Levels of objects and arrays in a value (a leaf is 0). */
const measureDepth = (v: unknown): number => {
  let depth = 0;
  for (let level: unknown[] = [v]; level.length; depth++)
    level = level
      .flatMap((x) => (x !== null && typeof x === 'object' ? Object.values(x) : []))
      .filter((x) => x !== null && typeof x === 'object');
  return depth;
};

describe('validPack()', () => {
  it(
    'makes packs that core validates with 0 errors',
    () => {
      fc.assert(
        fc.property(validPack(), (pack) => {
          const errors = validatePack(pack).diagnostics.filter((d) => d.severity === 'error');
          expect(errors.map((d) => `${d.code} ${d.pointer}: ${d.message}`)).toEqual([]);
        }),
        { numRuns, seed },
      );
    },
    timeoutMs(20),
  );

  it('covers every kind the format has, and its boundaries', () => {
    const seen = new Set<string>();
    const note = (k: string) => seen.add(k);
    // The seed's first 80 packs cover everything listed below; 300 leave the generator room to change.
    for (const pack of fc.sample(validPack(), { numRuns: 300, seed: 42 }) as Pack[]) {
      for (const r of pack.resources ?? []) {
        note(`resource:${r.kind}`);
        if (r.data && measureDepth(r.data) === MAX_DEPTH - 3) note('max:depth');
        if ([...r.name].length === LIMITS.resourceName) note('max:resource-name');
      }
      for (const t of pack.messageTemplates ?? []) {
        note(`channel:${t.channel}`);
        if ([...t.body].length === LIMITS.templateBody) note('max:template-body');
      }
      for (const a of pack.assets ?? []) {
        note(`asset:${a.role}`);
        if (a.mimeType === '') note('mime:empty');
        if (a.mimeType.length > 200) note('mime:long');
      }
      for (const p of pack.pipelines ?? []) {
        for (const s of p.stages) note(`stage:${s.stageType ?? 'OPEN'}`);
        if (p.stages.length === LIMITS.stages) note('max:stages');
      }
      for (const l of pack.smartLists ?? []) if (l.color) note(`color:${l.color.length - 1}`);
      for (const a of pack.automations ?? []) {
        for (const n of a.document.graph.nodes) note(`node:${n.kind}`);
        for (const r of a.document.references ?? []) note(`ref:${r.type}`);
        if (a.document.graph.nodes.length === LIMITS.nodes) note('max:nodes');
      }
      if (pack.brand) note('brand');
      if (/[\u{10000}-\u{10FFFF}]/u.test(JSON.stringify(pack))) note('astral');
    }
    const want = [
      ...RESOURCE_KINDS.map((k) => `resource:${k}`),
      ...MESSAGE_CHANNELS.map((c) => `channel:${c}`),
      ...ASSET_ROLES.map((r) => `asset:${r}`),
      ...STAGE_TYPES.map((t) => `stage:${t}`),
      ...NODE_KINDS.map((k) => `node:${k}`),
      ...REFERENCE_TYPES.map((t) => `ref:${t}`),
      'color:3',
      'color:4',
      'color:6',
      'color:8',
      'max:resource-name',
      'max:template-body',
      'max:stages',
      'max:nodes',
      'brand',
      'astral',
      'mime:empty',
      'mime:long',
      'max:depth',
    ];
    expect(want.filter((k) => !seen.has(k))).toEqual([]);
  }, 120_000);
});
