// The canvas asks checkConnection; the validator runs the graph rules. They must agree: an edge
// checkConnection allows adds no graph finding, and one it refuses gives the finding of its code.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { buildGraphModel } from './model.js';
import { checkConnection } from './connect.js';
import { validatePack } from '../validate.js';
import { outputHandles } from '../catalog/nodes.js';

const pack = JSON.parse(readFileSync(new URL('../../../../fixtures/valid/buyer-lead-starter.json', import.meta.url), 'utf8'));
const graph = pack.automations[0].document.graph;
const ids: string[] = graph.nodes.map((n: { id: string }) => n.id);
const handles = [
  ...new Set([
    'next',
    'true',
    'false',
    'each',
    'done',
    'maybe',
    ...graph.nodes.flatMap((n: { kind: string; config: unknown }) => outputHandles(n.kind, n.config) ?? []),
  ]),
];
const GRAPH_CODES = ['graph/cycle', 'graph/edge-into-trigger', 'graph/invalid-handle', 'graph/duplicate-edge'];

const graphFindings = (p: unknown) =>
  validatePack(p)
    .diagnostics.filter((d) => GRAPH_CODES.includes(d.code))
    .map((d) => d.code);

describe('checkConnection', () => {
  it('says why, in words, naming the blocks', () => {
    const g = buildGraphModel(graph, '')!;
    const [first, second] = [graph.edges[0].source, graph.edges[0].target];
    expect(checkConnection(g, { source: second, target: first, handle: 'next' })).toMatchObject({
      ok: false,
      code: 'graph/edge-into-trigger',
      reason: expect.stringContaining('triggers start an automation and cannot be entered'),
    });
    const last = graph.edges[1].target;
    const back = checkConnection(g, { source: last, target: second, handle: 'next' });
    expect(back).toEqual({
      ok: false,
      code: 'graph/cycle',
      reason: `It would create a cycle ${last} → ${second} → ${last}; automation graphs are acyclic (repeat steps with control.loop).`,
    });
    expect(checkConnection(g, { source: first, target: second, handle: 'next' })).toMatchObject({
      ok: false,
      code: 'graph/duplicate-edge',
    });
    expect(checkConnection(g, { source: second, target: second, handle: 'next' })).toMatchObject({ ok: false, code: 'graph/cycle' });
  });

  it('agrees with the validator on every candidate edge', () => {
    expect(graphFindings(pack)).toEqual([]);
    fc.assert(
      fc.property(fc.constantFrom(...ids), fc.constantFrom(...ids), fc.constantFrom(...handles), (source, target, handle) => {
        const r = checkConnection(buildGraphModel(graph, '')!, { source, target, handle });
        const next = structuredClone(pack);
        next.automations[0].document.graph.edges.push({ id: 'candidate', source, target, ...(handle === 'next' ? {} : { handle }) });
        const found = graphFindings(next);
        if (r.ok) expect(found).toEqual([]);
        else expect(found).toContain(r.code);
      }),
      { numRuns: 1000 },
    );
  });
});
