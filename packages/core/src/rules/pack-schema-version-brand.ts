import { defineRule } from './rule.js';

export default defineRule({
  meta: { code: 'pack/schema-version-brand', severity: 'error', description: 'schemaVersion 1 is only for a pack without a brand.' },
  check(ctx) {
    const { schemaVersion, brand } = ctx.pack;
    if (schemaVersion === 1 && brand !== undefined && brand !== null) {
      ctx.report({
        pointer: '/schemaVersion',
        message: 'schemaVersion 1 is only allowed for a pack without a brand; this pack has a brand, so it must say schemaVersion 2.',
        hint: 'Set "schemaVersion": 2.',
      });
    }
  },
});
