import { defineRule } from './rule.js';
import { named } from './util.js';

export default defineRule({
  meta: { code: 'asset/size-mismatch', severity: 'error', description: "byteSize equals the size of the asset's decoded data." },
  check(ctx) {
    for (const a of ctx.items('assets')) {
      if (typeof a.value.data !== 'string' || typeof a.value.byteSize !== 'number' || ctx.isBroken(`${a.pointer}/byteSize`)) continue;
      const h = ctx.hashBase64(a.value.data);
      if (h && h.byteSize !== a.value.byteSize)
        ctx.report({
          pointer: `${a.pointer}/byteSize`,
          message: `Asset "${named(a.value.key, `#${a.index}`)}" says byteSize ${a.value.byteSize}, but its data decodes to ${h.byteSize} bytes.`,
          hint: `Set "byteSize": ${h.byteSize} (setup-pack fix does this).`,
        });
    }
  },
});
