import { defineRule, type RuleContext } from './rule.js';
import type { GraphModel } from '../graph/model.js';
import { outputsList } from '../graph/connect.js';
import { MOVED_EDGE_FIELDS } from '../fix.js';
import { getOwn } from '../own.js';

export default defineRule({
  meta: { code: 'graph/invalid-handle', severity: 'error', description: "An edge's handle is an output of its source node's kind." },
  check(ctx) {
    for (const a of ctx.automations()) if (a.graph) checkGraph(ctx, a.graph);
  },
});

/** One graph. A module-level function called per automation, so V8 optimises it once and keeps it. */
function checkGraph(ctx: RuleContext, g: GraphModel): void {
  for (let e = 0; e < g.edgeCount; e++) {
    const source = g.from(e);
    if (source < 0) continue;
    const handles = g.handles(source);
    const handle = g.handle(e);
    if (!handles || handles.includes(handle)) continue;
    const kind = g.kind(source);
    const list = outputsList(handles);
    ctx.report({
      pointer: g.explicitHandle(e) ? `${g.edgePointer(e)}/handle` : g.edgePointer(e),
      message: g.explicitHandle(e)
        ? `Edge "${g.edgeId(e)}" leaves ${kind} "${g.id(source)}" through handle "${handle}", which that node does not have; its outputs are ${list}.`
        : `Edge "${g.edgeId(e)}" leaves ${kind} "${g.id(source)}" without a handle, so it uses "next", which that node does not have; its outputs are ${list}.`,
      hint:
        kind === 'control.ai_branch'
          ? "Declare the outcome in the node's config.outcomes, or use one that is declared."
          : (movedHint(g, e, handles) ?? `Set "handle" to one of ${list}.`),
    });
  }
}

/**
 * For an edge without a handle that names one of the outputs in a field the fixes move to
 * `handle` (React Flow's `sourceHandle`): that the fix routes it. Asked only for a finding.
 */
function movedHint(g: GraphModel, e: number, handles: readonly string[]): string | undefined {
  if (g.explicitHandle(e)) return undefined;
  const edge = g.edge(e);
  for (const [from, to] of MOVED_EDGE_FIELDS) {
    const value = getOwn(edge, from);
    if (typeof value === 'string' && handles.includes(value))
      return `Its "${from}" ("${value}") is not read: rename it "${to}", or run setup-pack fix (the editor's Fix), which does.`;
  }
  return undefined;
}
