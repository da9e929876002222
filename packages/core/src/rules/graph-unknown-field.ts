import { defineRule, type RuleContext } from './rule.js';
import type { GraphModel } from '../graph/model.js';
import { escapeToken } from '../json/pointer.js';
import { fieldsOf } from '../schema/enums.js';
import { closest } from '../text.js';
import { MOVED_EDGE_FIELDS } from '../fix.js';

// Nodes and edges are the two objects of the format that allow fields it does not define (the
// spec's tables say "no additional properties" everywhere else), so the schema cannot name them.
// They are kept as they are, but nothing reads them: an edge written with xyflow's `sourceHandle`
// instead of `handle` leaves through "next". The defined fields are the schemas' own lists.
const NODE_FIELDS = fieldsOf('node');
const EDGE_FIELDS = fieldsOf('edge');

export default defineRule({
  meta: {
    code: 'graph/unknown-field',
    severity: 'info',
    description: 'A node or edge field the format does not define (kept as it is; nothing reads it).',
    docs: `The format lets nodes and edges carry fields it does not define, so they validate and are kept as they are, but neither the installer nor the service reads them. Nodes define ${NODE_FIELDS.map((f) => `\`${f}\``).join(', ')}; edges define ${EDGE_FIELDS.map((f) => `\`${f}\``).join(', ')}. An edge written with React Flow's \`sourceHandle\` instead of \`handle\` leaves through \`next\`, whatever it names: \`setup-pack fix\` (and the editor's Fix) moves it to \`handle\` when the edge has none, and validation then checks that handle as any other.`,
  },
  check(ctx) {
    // A hint per unknown name and list, worked out once per validation: an export that writes one
    // such field on every block repeats it 20,000 times, and each guess measures edit distances.
    const hints: Hints = { node: new Map(), edge: new Map() };
    for (const a of ctx.automations()) if (a.graph) checkGraph(ctx, a.graph, hints);
  },
});

/** The defined field an unknown one was probably meant to be: a near miss, or a name that ends with it (sourceHandle → handle). */
function meant(name: string, fields: readonly string[]): string | undefined {
  const near = closest(name, fields);
  if (near) return near;
  const lower = name.toLowerCase();
  return fields.find((f) => f.length > 2 && lower.endsWith(f.toLowerCase()));
}

interface Hints {
  node: Map<string, string>;
  edge: Map<string, string>;
}

/** The hint for an unknown field `name` among `fields`; `moved`: the names setup-pack fix moves, and where. */
function hintFor(known: Map<string, string>, name: string, fields: readonly string[], moved?: ReadonlyMap<string, string>): string {
  let hint = known.get(name);
  if (hint === undefined) {
    const guessed = meant(name, fields);
    hint = guessed ? `Did you mean "${guessed}"?` : `The format defines ${fields.map((f) => `"${f}"`).join(', ')}.`;
    const to = moved?.get(name);
    if (to !== undefined)
      hint +=
        guessed === to
          ? ' setup-pack fix moves it there when the edge has none.'
          : ` setup-pack fix moves it to "${to}" when the edge has none.`;
    known.set(name, hint);
  }
  return hint;
}

function report(ctx: RuleContext, what: string, pointer: string, name: string, hint: string): void {
  ctx.report({
    pointer: `${pointer}/${escapeToken(name)}`,
    message: `${what} has a field "${name}" the format does not define; it is kept as it is, but nothing reads it.`,
    hint,
  });
}

/** One graph. A module-level function called per automation, so V8 optimises it once and keeps it. */
function checkGraph(ctx: RuleContext, g: GraphModel, hints: Hints): void {
  for (let n = 0; n < g.nodeCount; n++) {
    const node = g.node(n);
    for (const name in node) {
      if (!NODE_FIELDS.includes(name) && Object.prototype.hasOwnProperty.call(node, name))
        report(ctx, `Node "${g.id(n)}"`, g.nodePointer(n), name, hintFor(hints.node, name, NODE_FIELDS));
    }
  }
  for (let e = 0; e < g.edgeCount; e++) {
    const edge = g.edge(e);
    for (const name in edge) {
      if (!EDGE_FIELDS.includes(name) && Object.prototype.hasOwnProperty.call(edge, name))
        report(
          ctx,
          g.hasStringId(e) ? `Edge "${g.edgeId(e)}"` : 'An edge',
          g.edgePointer(e),
          name,
          hintFor(hints.edge, name, EDGE_FIELDS, MOVED_EDGE_FIELDS),
        );
    }
  }
}
