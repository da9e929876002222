import { defineRule } from './rule.js';
import { named } from './util.js';
import { jsonStringContent, Needles } from '../text.js';

export default defineRule({
  meta: { code: 'asset/unused-email-image', severity: 'warning', description: "Some message template uses each email_image's sourceUrl." },
  check(ctx) {
    const images = ctx
      .items('assets')
      .filter((a) => a.value.role === 'email_image' && typeof a.value.sourceUrl === 'string' && a.value.sourceUrl !== '');
    if (images.length === 0) return;
    // Every text a template holds, searched one by one (joining them would copy every body).
    const texts: string[] = [];
    for (const t of ctx.items('messageTemplates')) {
      if (typeof t.value.subject === 'string') texts.push(t.value.subject);
      if (typeof t.value.body === 'string') texts.push(t.value.body);
      if (t.value.richTextDoc !== undefined) texts.push(JSON.stringify(t.value.richTextDoc) ?? '');
    }
    // The URL may appear JSON-escaped inside richTextDoc (e.g. "\/" is not produced by JSON.stringify, but quotes and backslashes are).
    const addresses = images.map((a) => ({ a, url: a.value.sourceUrl as string, escaped: jsonStringContent(a.value.sourceUrl as string) }));
    // Each text read once for every address (a pack's assets are not limited in number).
    const wanted = new Needles(addresses.flatMap(({ url, escaped }) => [url, escaped]));
    const used = new Set<string>();
    for (const t of texts) for (const u of wanted.in(t)) used.add(u);
    for (const { a, url, escaped } of addresses) {
      if (used.has(url) || used.has(escaped)) continue;
      ctx.report({
        pointer: `${a.pointer}/sourceUrl`,
        message: `No message template uses the sourceUrl of email_image "${named(a.value.key, `#${a.index}`)}" (${url}), so the image would be uploaded for nothing.`,
        hint: 'Use the image in a template, fix the address, or remove the asset.',
      });
    }
  },
});
