import { defineRule } from './rule.js';
import { named } from './util.js';

export default defineRule({
  meta: { code: 'asset/invalid-base64', severity: 'error', description: "An asset's data is valid base64." },
  check(ctx) {
    for (const a of ctx.items('assets')) {
      if (typeof a.value.data !== 'string' || ctx.hashBase64(a.value.data)) continue;
      ctx.report({
        pointer: `${a.pointer}/data`,
        message: `The data of asset "${named(a.value.key, `#${a.index}`)}" is not valid base64, so the file cannot be decoded.`,
      });
    }
  },
});
