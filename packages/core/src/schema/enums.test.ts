// The TypeScript unions in types.ts are checked against the schemas' enums: a schema change the
// types do not follow fails here (and `satisfies` below fails the build the other way round).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { ASSET_ROLES, REFERENCE_TYPES, RESOURCE_KINDS } from './enums.js';
import type { AssetRole, ReferenceType, ResourceKind } from '../types.js';

const resourceKinds = { tag: 1, contact_stage: 1, lead_source: 1, custom_field: 1, email_template: 1 } satisfies Record<ResourceKind, 1>;
const assetRoles = {
  logo: 1,
  favicon: 1,
  social_share_image: 1,
  brokerage_logo: 1,
  team_photo: 1,
  source_document: 1,
  email_image: 1,
} satisfies Record<AssetRole, 1>;

describe('enums from the schemas', () => {
  it('match the TypeScript unions, value for value', () => {
    expect([...RESOURCE_KINDS].sort()).toEqual(Object.keys(resourceKinds).sort());
    expect([...ASSET_ROLES].sort()).toEqual(Object.keys(assetRoles).sort());
    const t: ReferenceType = REFERENCE_TYPES[0];
    expect(REFERENCE_TYPES).toContain(t);
    expect(REFERENCE_TYPES).toHaveLength(18);
  });
});

describe('limits from the schemas', () => {
  it('read maxLength where the schema states it, and refuse a property without one', async () => {
    const { maxLengthOf, STAGE_TYPES, MESSAGE_CHANNELS } = await import('./enums.js');
    expect(maxLengthOf('message-template', 'body')).toBe(20000);
    expect(maxLengthOf('pack', 'name')).toBe(160);
    expect(() => maxLengthOf('message-template', 'channel')).toThrow(/no maxLength at properties.channel/);
    const { numberLimitsOf, SCHEMA_VERSIONS } = await import('./enums.js');
    expect(numberLimitsOf('settings', 'daily_send_limit')).toEqual({ minimum: 1, maximum: 10000 });
    expect(numberLimitsOf('stage', 'probability')).toEqual({ minimum: 0, maximum: 100 });
    expect(() => numberLimitsOf('stage', 'name')).toThrow(/no minimum or maximum at properties.name/);
    expect(SCHEMA_VERSIONS).toEqual([1, 2]);
    expect(STAGE_TYPES).toEqual(['OPEN', 'CLOSED_WON', 'CLOSED_LOST']);
    expect(MESSAGE_CHANNELS).toEqual(['sms', 'email', 'both']);
  });
});

describe("a property's rule from the schemas", () => {
  it('accepts what validation accepts there, and nothing it refuses', async () => {
    const { acceptsProperty } = await import('./enums.js');
    for (const ok of ['2026-01-31T09:30:00Z', '2028-02-29T23:59:59.5+02:00', '9999-12-31T23:59:59Z'])
      expect(acceptsProperty('pack', 'exportedAt', ok), ok).toBe(true);
    for (const bad of ['2026-02-30T00:00:00Z', '2026-01-31T24:00:00Z', '+010000-01-01T00:00:00Z', '2026-01-31T09:30:00', 'now', 5])
      expect(acceptsProperty('pack', 'exportedAt', bad), String(bad)).toBe(false);
    expect(acceptsProperty('pack', 'name', 'x'.repeat(160))).toBe(true);
    expect(acceptsProperty('pack', 'name', 'x'.repeat(161))).toBe(false);
    expect(() => acceptsProperty('pack', 'exportedAtt', 'x')).toThrow(/no properties.exportedAtt/);
  });
});

describe("a property's findings from the schemas", () => {
  it('says what validating a pack holding the value there says, at the pointer given, and nothing for a value that fits', async () => {
    const { propertyFindings } = await import('./enums.js');
    const { validatePack } = await import('../validate.js');
    const pack = JSON.parse(readFileSync(new URL('../../../../fixtures/valid/buyer-lead-starter.json', import.meta.url), 'utf8'));
    pack.pipelines[0].stages[1].probability = 12.5;
    pack.automations[0].document.settings.daily_send_limit = 0;
    const inPack = validatePack(JSON.stringify(pack))
      .diagnostics.filter((d) => d.code.startsWith('schema/'))
      .map(({ code, message, pointer }) => ({ code, message, pointer }));
    const probability = propertyFindings('stage', 'probability', 12.5, '/pipelines/0/stages/1/probability');
    expect(probability.map(({ code, message, pointer }) => ({ code, message, pointer }))).toEqual([
      {
        code: 'schema/type',
        message: 'pipelines[0].stages[1].probability must be an integer, not a number.',
        pointer: '/pipelines/0/stages/1/probability',
      },
    ]);
    const limit = propertyFindings('settings', 'daily_send_limit', 0, '/automations/0/document/settings/daily_send_limit');
    expect(limit.map((d) => d.code)).toEqual(['schema/range']);
    // The same words as validation's, for the same place.
    expect(inPack).toEqual(
      expect.arrayContaining([...probability, ...limit].map(({ code, message, pointer }) => ({ code, message, pointer }))),
    );
    expect(propertyFindings('stage', 'probability', 35, '/pipelines/0/stages/1/probability')).toEqual([]);
    // Another property's rules (a required key of the stage) are not this property's.
    expect(propertyFindings('stage', 'color', '#ffffff', '/x')).toEqual([]);
    expect(() => propertyFindings('stage', 'probabilty', 1, '/x')).toThrow(/no properties.probabilty/);
  });
});
