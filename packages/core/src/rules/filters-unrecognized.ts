import { defineRule } from './rule.js';
import { isObj } from './util.js';
import { isFilterCondition, isFilterGroup } from '../filters.js';
import { count } from '../text.js';

export default defineRule({
  meta: {
    code: 'filters/unrecognized',
    severity: 'warning',
    description: 'A smart list filter node is an and/or/not group or a condition in the shape docs/filters.md describes.',
    docs: 'Filter fields and operators are not part of the spec, so these are warnings only.',
  },
  check(ctx) {
    for (const list of ctx.items('smartLists')) {
      const filters = list.value.filters;
      if (!isObj(filters) || !isObj(filters.root)) continue;
      const stack: [unknown, string, number][] = [[filters.root, `${list.pointer}/filters/root`, 0]];
      while (stack.length) {
        const [node, p, depth] = stack.pop()!;
        if (!isObj(node)) {
          ctx.report({
            pointer: p,
            message: `This filter node is ${JSON.stringify(node)?.slice(0, 40)}, not an object (a group or a condition).`,
          });
          continue;
        }
        if (isFilterGroup(node)) {
          if (!Array.isArray(node.children)) ctx.report({ pointer: p, message: `The "${node.type}" group has no children array.` });
          else {
            if (node.type === 'not' && node.children.length !== 1)
              ctx.report({
                pointer: `${p}/children`,
                message: `A "not" group has exactly one child; this one has ${count(node.children.length)}.`,
              });
            if (depth < 64) node.children.forEach((c, i) => stack.push([c, `${p}/children/${i}`, depth + 1]));
          }
        } else if (isFilterCondition(node)) {
          if (typeof node.field !== 'string' || typeof node.operator !== 'string')
            ctx.report({ pointer: p, message: 'A filter condition has a "field" and an "operator" (strings).' });
        } else {
          const what =
            node.type === undefined
              ? 'This filter node has no "type"'
              : `Filter node type ${JSON.stringify(node.type)?.slice(0, 40)} is not one we read`;
          ctx.report({ pointer: p, message: `${what} ("and", "or", "not" or "condition"); it is kept as it is.` });
        }
      }
    }
  },
});
