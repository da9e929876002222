// The validator asks packKeyTypes/isPackKey whether a reference resolves inside the pack; the
// answer must be packKeysByReferenceType's (what the installer and editor read) for any pack shape.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isPackKey, packKeysByReferenceType, packKeyTypes } from './references.js';

const key = fc.oneof(fc.constantFrom('a', 'b', 'c', ''), fc.integer({ min: 0, max: 2 }), fc.constant(null));
const item = fc.record(
  {
    key,
    kind: fc.constantFrom('tag', 'contact_stage', 'lead_source', 'custom_field', 'email_template', 'other', 3),
    name: fc.constantFrom('n', '', undefined),
  },
  { requiredKeys: [] },
);
const list = fc.oneof(
  fc.array(fc.oneof(item, fc.constant(null), fc.constant('x')), { maxLength: 6 }),
  fc.constant(undefined),
  fc.constant({}),
);
const pack = fc.record({
  resources: list,
  messageTemplates: list,
  smartLists: list,
  automations: fc.array(
    fc.record({ key, document: fc.oneof(fc.constant(undefined), fc.record({ name: fc.constantFrom('d', '') })) }, { requiredKeys: [] }),
    { maxLength: 4 },
  ),
  pipelines: fc.array(fc.record({ key, stages: list }, { requiredKeys: [] }), { maxLength: 3 }),
});
const TYPES = [
  'tag',
  'stage',
  'lead_source',
  'custom_field',
  'email_template',
  'smart_list',
  'automation',
  'pipeline',
  'deal_stage',
  'user',
  'form',
  undefined,
  7,
];

describe('packKeyTypes', () => {
  it('answers as packKeysByReferenceType for every reference type and id', () => {
    fc.assert(
      fc.property(pack, (p) => {
        const byType = packKeysByReferenceType(p as Record<string, unknown>);
        const keys = packKeyTypes(p as Record<string, unknown>);
        for (const type of TYPES)
          for (const id of ['a', 'b', 'c', '', '0', 'x'])
            expect(isPackKey(keys, type, id)).toBe(byType.get(type as never)?.has(id) ?? false);
      }),
      { numRuns: 500 },
    );
  });
});
