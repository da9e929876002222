import { defineRule } from './rule.js';
import { named } from './util.js';

export default defineRule({
  meta: { code: 'asset/source-url-not-allowed', severity: 'error', description: 'Only email_image assets have a sourceUrl.' },
  check(ctx) {
    for (const a of ctx.items('assets')) {
      if (a.value.role === 'email_image' || a.value.sourceUrl === undefined || a.value.sourceUrl === null) continue;
      if (ctx.isBroken(`${a.pointer}/role`)) continue;
      ctx.report({
        pointer: `${a.pointer}/sourceUrl`,
        message: `Asset "${named(a.value.key, `#${a.index}`)}" has role ${named(a.value.role, 'none')}; only email_image assets may have a sourceUrl.`,
        hint: 'Remove sourceUrl, or set it to null.',
      });
    }
  },
});
