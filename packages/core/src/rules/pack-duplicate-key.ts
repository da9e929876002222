import { defineRule } from './rule.js';
import { forEachRepeat } from './util.js';
import { ITEM_KINDS } from '../types.js';

const singular: Record<string, string> = {
  automations: 'automation',
  smartLists: 'smart list',
  messageTemplates: 'message template',
  pipelines: 'pipeline',
  resources: 'resource',
  assets: 'asset',
};

export default defineRule({
  meta: { code: 'pack/duplicate-key', severity: 'error', description: 'Item keys are unique among items of their kind.' },
  check(ctx) {
    for (const kind of ITEM_KINDS) {
      const items = ctx.items(kind);
      if (items.length < 2) continue; // nothing to repeat (and no map to make)
      forEachRepeat(
        items,
        (item) => (typeof item.value.key === 'string' ? item.value.key : undefined),
        (item, first) =>
          ctx.report({
            pointer: `${item.pointer}/key`,
            message: `Another ${singular[kind]} already has the key "${String(item.value.key)}"; keys must be unique among ${kind}.`,
            related: [{ pointer: `${first.pointer}/key`, message: 'first use of the key' }],
          }),
      );
    }
  },
});
