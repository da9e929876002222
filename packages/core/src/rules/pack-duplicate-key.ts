import { defineRule } from './rule.js';
import { ITEM_KINDS } from '../types.js';

const singular: Record<string, string> = { automations: 'automation', smartLists: 'smart list', messageTemplates: 'message template', pipelines: 'pipeline', resources: 'resource', assets: 'asset' };

export default defineRule({
  meta: { code: 'pack/duplicate-key', severity: 'error', description: 'Item keys are unique among items of their kind.' },
  check(ctx) {
    for (const kind of ITEM_KINDS) {
      const first = new Map<string, string>();
      for (const item of ctx.items(kind)) {
        const key = item.value.key;
        if (typeof key !== 'string') continue;
        const prev = first.get(key);
        if (prev === undefined) first.set(key, item.pointer);
        else
          ctx.report({
            pointer: `${item.pointer}/key`,
            message: `Another ${singular[kind]} already has the key "${key}"; keys must be unique among ${kind}.`,
            related: [{ pointer: `${prev}/key`, message: 'first use of the key' }],
          });
      }
    }
  },
});
