// The graph model's own walks (cycle, reachability) against @dagrejs/graphlib's algorithms, over
// random graphs with duplicate ids, dangling edges, edges into triggers and parallel edges; and
// models built with one shared id table against models built alone.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { alg } from '@dagrejs/graphlib';
import { buildGraphModel, findCycle, reachableFromTriggers, NodeIdTable, type GraphModel } from '../src/graph/model.js';

const kinds = ['trigger.contact_created', 'action.notify', 'control.if', 'control.loop', 'not.a.kind'];
const graphArb = fc
  .tuple(
    fc.array(fc.tuple(fc.integer({ min: 0, max: 9 }), fc.constantFrom(...kinds)), { maxLength: 10 }),
    fc.array(
      fc.tuple(fc.integer({ min: 0, max: 11 }), fc.integer({ min: 0, max: 11 }), fc.constantFrom('next', 'true', 'false', undefined)),
      { maxLength: 20 },
    ),
  )
  .map(([nodes, edges]) => ({
    nodes: nodes.map(([id, kind]) => ({ id: `n${id}`, kind, config: {} })),
    edges: edges.map(([s, t, handle], i) => ({ id: `e${i}`, source: `n${s}`, target: `n${t}`, ...(handle ? { handle } : {}) })),
  }));

function facts(m: GraphModel) {
  const nodes = Array.from({ length: m.nodeCount }, (_, n) => ({
    id: m.id(n),
    duplicate: m.isDuplicate(n),
    first: m.first(n),
    group: m.group(n),
  }));
  const edges = Array.from({ length: m.edgeCount }, (_, e) => ({
    from: m.from(e),
    to: m.to(e),
    flows: m.flows(e),
    intoTrigger: m.intoTrigger(e),
  }));
  const out = Array.from({ length: m.nodeCount }, (_, n) => Array.from(m.outList.subarray(m.outStart[n], m.outStart[n + 1])));
  return {
    nodes,
    edges,
    out,
    dangling: m.hasDanglingEdges,
    trigger: m.hasTrigger,
    cycle: findCycle(m),
    reached: Array.from(reachableFromTriggers(m)),
  };
}

describe('graph model', () => {
  // Many graphs of different sizes in one process: also checks that the walks' scratch arrays, reused
  // from graph to graph, start clean.
  it('finds a cycle exactly when graphlib says the graph is cyclic, and the cycle is real', () => {
    fc.assert(
      fc.property(graphArb, (graph) => {
        const m = buildGraphModel(graph, '/g')!;
        const cycle = findCycle(m);
        expect(cycle !== undefined).toBe(!alg.isAcyclic(m.g));
        if (cycle) {
          expect(cycle.path[0]).toBe(cycle.path[cycle.path.length - 1]);
          for (let i = 0; i + 1 < cycle.path.length; i++) expect(m.g.hasEdge(cycle.path[i], cycle.path[i + 1])).toBe(true);
          expect(m.target(cycle.edge)).toBe(cycle.path[cycle.path.length - 1]);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('reaches from the triggers what graphlib reaches', () => {
    fc.assert(
      fc.property(graphArb, (graph) => {
        const m = buildGraphModel(graph, '/g')!;
        const triggers = Array.from({ length: m.nodeCount }, (_, n) => n).filter((n) => !m.isDuplicate(n) && m.group(n) === 'trigger');
        const want = new Set(
          alg.preorder(
            m.g,
            triggers.map((n) => m.id(n)),
          ),
        );
        const reached = reachableFromTriggers(m);
        const got = new Set(
          Array.from({ length: m.nodeCount }, (_, n) => n)
            .filter((n) => reached[n])
            .map((n) => m.id(n)),
        );
        expect(got).toEqual(want);
      }),
      { numRuns: 500 },
    );
  });

  it('gives the same model whether graphs share one id table or not', () => {
    fc.assert(
      fc.property(fc.array(graphArb, { minLength: 1, maxLength: 5 }), (graphs) => {
        const table = new NodeIdTable();
        const shared = graphs.map((g, i) => buildGraphModel(g, `/a/${i}`, undefined, table)!);
        const alone = graphs.map((g, i) => buildGraphModel(g, `/a/${i}`)!);
        expect(shared.map(facts)).toEqual(alone.map(facts));
      }),
      { numRuns: 300 },
    );
  });

  it('resolves edges to the first node of an id and keeps dangling ends out of the flow', () => {
    const m = buildGraphModel(
      {
        nodes: [
          { id: 'a', kind: 'trigger.contact_created' },
          { id: 'b', kind: 'action.notify' },
          { id: 'b', kind: 'action.notify' },
          { kind: 'action.notify' },
        ],
        edges: [
          { source: 'a', target: 'b' },
          { source: 'b', target: 'x' },
          { source: 'b', target: 'a' },
        ],
      },
      '/g',
    )!;
    expect(m.nodeCount).toBe(3);
    expect([m.isDuplicate(2), m.first(2), m.hasIdlessNodes, m.hasDanglingEdges]).toEqual([true, 1, true, true]);
    expect([m.to(0), m.to(1), m.flows(1), m.intoTrigger(2), m.flows(2)]).toEqual([1, -1, false, true, false]);
    expect([m.nodePointer(2), m.edgePointer(1)]).toEqual(['/g/nodes/2', '/g/edges/1']);
  });
});
