import { defineRule } from './rule.js';
import { named } from './util.js';

export default defineRule({
  meta: { code: 'asset/unused-email-image', severity: 'warning', description: "Some message template uses each email_image's sourceUrl." },
  check(ctx) {
    const images = ctx.items('assets').filter((a) => a.value.role === 'email_image' && typeof a.value.sourceUrl === 'string' && a.value.sourceUrl !== '');
    if (images.length === 0) return;
    const texts = ctx.items('messageTemplates').map((t) => [t.value.subject, t.value.body, t.value.richTextDoc === undefined ? '' : JSON.stringify(t.value.richTextDoc)].filter((s) => typeof s === 'string').join('\n'));
    for (const a of images) {
      const url = a.value.sourceUrl as string;
      // The URL may appear JSON-escaped inside richTextDoc (e.g. "\/" is not produced by JSON.stringify, but quotes and backslashes are).
      const escaped = JSON.stringify(url).slice(1, -1);
      if (texts.some((t) => t.includes(url) || t.includes(escaped))) continue;
      ctx.report({ pointer: `${a.pointer}/sourceUrl`, message: `No message template uses the sourceUrl of email_image "${named(a.value.key, `#${a.index}`)}" (${url}), so the image would be uploaded for nothing.`, hint: 'Use the image in a template, fix the address, or remove the asset.' });
    }
  },
});
