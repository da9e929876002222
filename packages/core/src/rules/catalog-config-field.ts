import { defineRule, type RuleContext } from './rule.js';
import type { GraphModel } from '../graph/model.js';
import type { ConfigField } from '../catalog/nodes.js';
import { isObj } from './util.js';

function fits(field: ConfigField, v: unknown): boolean {
  switch (field.type) {
    case 'string':
    case 'text':
    case 'ref':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number';
    case 'integer':
      return Number.isInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'enum':
      return typeof v === 'string' && (field.values ?? []).includes(v);
    case 'refs':
    case 'strings':
      return Array.isArray(v) && v.every((x) => typeof x === 'string' || (field.name === 'outcomes' && isObj(x)));
    case 'object':
      return isObj(v);
    default:
      return true;
  }
}
const describe = (f: ConfigField) =>
  f.type === 'enum'
    ? `one of ${(f.values ?? []).join(', ')}`
    : f.type === 'ref'
      ? `a ${f.ref} id or pack key (string)`
      : f.type === 'refs'
        ? `a list of ${f.ref} ids`
        : f.type === 'strings'
          ? 'a list of strings'
          : f.type === 'text'
            ? 'a string'
            : `a${/^[aeiou]/.test(f.type) ? 'n' : ''} ${f.type}`;

export default defineRule({
  meta: {
    code: 'catalog/config-field',
    severity: 'warning',
    description: "A node's config fields have the types our catalog expects, and the fields it needs.",
    docs: 'Block configs are not part of the spec, so these are warnings only; see docs/catalog.md.',
  },
  check(ctx) {
    for (const a of ctx.automations()) if (a.graph) checkGraph(ctx, a.graph);
  },
});

/** One graph. A module-level function called per automation, so V8 optimises it once and keeps it. */
function checkGraph(ctx: RuleContext, g: GraphModel): void {
  for (let n = 0; n < g.nodeCount; n++) {
    const info = g.info(n);
    if (!info || info.fields.length === 0 || g.isBroken(n)) continue;
    const config = isObj(g.config(n)) ? (g.config(n) as Record<string, unknown>) : undefined;
    for (const field of info.fields) {
      const v = config?.[field.name];
      if (v === undefined || v === null) {
        if (field.required)
          ctx.report({
            pointer: config ? `${g.nodePointer(n)}/config` : g.nodePointer(n),
            message: `${info.kind} node "${g.id(n)}" has no config.${field.name} (${field.label}); the block needs it to do anything.`,
            missing: config ? field.name : 'config',
          });
      } else if (!fits(field, v)) {
        ctx.report({
          pointer: `${g.nodePointer(n)}/config/${field.name}`,
          message: `config.${field.name} of ${info.kind} node "${g.id(n)}" should be ${describe(field)}.`,
        });
      }
    }
  }
}
