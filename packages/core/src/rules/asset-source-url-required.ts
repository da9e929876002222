import { defineRule } from './rule.js';
import { named } from './util.js';

export default defineRule({
  meta: { code: 'asset/source-url-required', severity: 'error', description: 'An email_image asset has a sourceUrl.' },
  check(ctx) {
    for (const a of ctx.items('assets')) {
      if (a.value.role !== 'email_image') continue;
      if (typeof a.value.sourceUrl === 'string' && a.value.sourceUrl !== '') continue;
      if (ctx.isBroken(`${a.pointer}/sourceUrl`)) continue;
      ctx.report({
        pointer: a.value.sourceUrl === undefined ? a.pointer : `${a.pointer}/sourceUrl`,
        message: `Asset "${named(a.value.key, `#${a.index}`)}" is an email_image, so it needs a sourceUrl: the address its templates use for the image, which the installer replaces with the uploaded copy's address.`,
      });
    }
  },
});
