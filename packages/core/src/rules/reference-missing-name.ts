import { defineRule } from './rule.js';
import { isPackKey, REFERENCE_HOLDERS } from '../references.js';
import { isObj, named, packKeyTypesOfRules } from './util.js';
import type { ReferenceType } from '../types.js';

export default defineRule({
  meta: {
    code: 'reference/missing-name',
    severity: 'error',
    description: 'A reference that does not resolve inside the pack has a name to match in the workspace.',
  },
  check(ctx) {
    let keys: Map<string, number> | undefined;
    for (const a of ctx.automations()) {
      const refs: unknown[] = Array.isArray(a.document?.references) ? a.document.references : [];
      for (let i = 0; i < refs.length; i++) {
        const ref = refs[i];
        if (!isObj(ref) || typeof ref.id !== 'string') continue;
        const p = `${a.pointer}/document/references/${i}`;
        if (ctx.isBroken(p)) continue;
        keys ??= packKeyTypesOfRules(ctx);
        if (isPackKey(keys, ref.type, ref.id)) continue;
        if (typeof ref.name === 'string' && ref.name.trim() !== '') continue;
        // The item it names may be in the pack but broken; that error is the one to fix first.
        if ((REFERENCE_HOLDERS[ref.type as ReferenceType] ?? []).some((h) => ctx.isBroken(h))) continue;
        ctx.report({
          pointer: p,
          message: `Reference ${named(ref.type, 'item')} "${ref.id}" is not the key of any ${named(ref.type, 'item')} in this pack, so it needs a name for the installer to match it in the workspace.`,
          hint: 'Add "name": the name of the item in the workspace it came from.',
        });
      }
    }
  },
});
