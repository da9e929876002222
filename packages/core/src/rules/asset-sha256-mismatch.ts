import { defineRule } from './rule.js';
import { named } from './util.js';

export default defineRule({
  meta: { code: 'asset/sha256-mismatch', severity: 'error', description: "sha256 is the SHA-256 of the asset's decoded data." },
  check(ctx) {
    for (const a of ctx.items('assets')) {
      if (typeof a.value.data !== 'string' || typeof a.value.sha256 !== 'string' || ctx.isBroken(`${a.pointer}/sha256`)) continue;
      const h = ctx.hashBase64(a.value.data);
      if (h && h.sha256 !== a.value.sha256)
        ctx.report({
          pointer: `${a.pointer}/sha256`,
          message: `Asset "${named(a.value.key, `#${a.index}`)}" says sha256 ${a.value.sha256}, but its data hashes to ${h.sha256}; the file was changed or damaged.`,
          hint: 'If the new file is intended, run setup-pack fix to record its hash.',
        });
    }
  },
});
