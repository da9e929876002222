import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fixedPack, fixPack, mayBeFixed } from './fix.js';
import { portableHasher, sha256Hex } from './hash.js';
import { validatePack } from './validate.js';

type Any = any; // packs as JSON.parse gives them
const fixture = (name: string): Any => JSON.parse(readFileSync(new URL(`../../../fixtures/${name}`, import.meta.url), 'utf8'));
/** Freezes every object and array of `v`, so a write to any of them throws. */
function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}
const codes = (pack: unknown) => validatePack(pack).diagnostics.map((d) => `${d.code} ${d.pointer}`);

describe('fixPack', () => {
  it("records each asset's sha256 and byteSize from its data, one line per field that changes", () => {
    const pack = fixture('valid/listing-marketing.json');
    const [logo, hero] = pack.assets;
    const bytes = new TextEncoder().encode('a new logo');
    logo.data = btoa('a new logo');
    hero.byteSize = 1;
    const want = sha256Hex(bytes);
    expect(codes(pack).sort()).toEqual([
      'asset/sha256-mismatch /assets/0/sha256',
      'asset/size-mismatch /assets/0/byteSize',
      'asset/size-mismatch /assets/1/byteSize',
    ]);
    const oldSha = logo.sha256 as string;
    const oldSize = logo.byteSize as number;
    expect(fixPack(pack, portableHasher)).toEqual([
      `asset "logo": sha256 ${oldSha.slice(0, 12)}… → ${want.slice(0, 12)}…`,
      `asset "logo": byteSize ${oldSize} → ${bytes.length}`,
      `asset "open-house-hero": byteSize 1 → ${portableHasher(hero.data)!.byteSize}`,
    ]);
    expect(pack.assets[0]).toMatchObject({ sha256: want, byteSize: bytes.length });
    expect(codes(pack)).toEqual([]);
    expect(fixPack(pack, portableHasher)).toEqual([]); // nothing left to fix
  });

  it('names an asset without a key by its index, a missing hash as such, and leaves data that is not strict base64 alone', () => {
    const pack: Any = {
      assets: [{ data: btoa('x') }, { key: 'bad', data: 'not base64!', sha256: 'x', byteSize: 3 }, { key: 'none' }, 'not an asset'],
    };
    expect(fixPack(pack, portableHasher)).toEqual([
      `assets[0]: sha256 set to ${sha256Hex(new Uint8Array([120])).slice(0, 12)}…`,
      'assets[0]: byteSize set to 1',
    ]);
    // A value written, even one of the wrong type, is named as it is written.
    expect(fixPack({ assets: [{ key: 'k', data: btoa('x'), sha256: null, byteSize: '1' }] }, portableHasher)).toEqual([
      `asset "k": sha256 null → ${sha256Hex(new Uint8Array([120])).slice(0, 12)}…`,
      'asset "k": byteSize "1" → 1',
    ]);
    expect(pack.assets.slice(1)).toEqual([{ key: 'bad', data: 'not base64!', sha256: 'x', byteSize: 3 }, { key: 'none' }, 'not an asset']);
  });

  it('uses the hasher it is given', () => {
    const pack: Any = { assets: [{ key: 'a', data: 'QQ==', sha256: 'f'.repeat(64), byteSize: 1 }] };
    expect(fixPack(pack, () => ({ byteSize: 1, sha256: 'f'.repeat(64) }))).toEqual([]);
    expect(fixPack(pack, () => undefined)).toEqual([]);
  });

  it('sets won stages to 100 and lost stages to 0, leaving open stages and probabilities that are not numbers alone', () => {
    const pack = fixture('valid/buyer-lead-starter.json');
    const stages = pack.pipelines[0].stages as Any[];
    const won = stages.find((s) => s.stageType === 'CLOSED_WON');
    const lost = stages.find((s) => s.stageType === 'CLOSED_LOST');
    const open = stages.find((s) => s.stageType !== 'CLOSED_WON' && s.stageType !== 'CLOSED_LOST');
    won.probability = 80;
    lost.probability = 5;
    const openProbability = open.probability;
    expect(codes(pack).filter((c) => c.startsWith('pipeline/'))).toHaveLength(2);
    expect(fixPack(pack, portableHasher)).toEqual([
      `pipeline "${pack.pipelines[0].key}" stage "${won.key}": probability 80 → 100`,
      `pipeline "${pack.pipelines[0].key}" stage "${lost.key}": probability 5 → 0`,
    ]);
    const probability = (s: Any) => pack.pipelines[0].stages.find((x: Any) => x.key === s.key).probability;
    expect([probability(won), probability(lost), probability(open)]).toEqual([100, 0, openProbability]);
    expect(codes(pack)).toEqual([]);
    const odd: Any = { pipelines: [{ key: 'p', stages: [{ key: 'w', stageType: 'CLOSED_WON', probability: '80' }] }] };
    expect(fixPack(odd, portableHasher)).toEqual([]);
    expect(odd.pipelines[0].stages[0].probability).toBe('80');
  });

  it('changes nothing in what is not a pack', () => {
    for (const v of [null, 3, 'pack', [], { assets: 'x', pipelines: {} }]) expect(fixPack(v, portableHasher)).toEqual([]);
  });
});

describe('fixPack: an edge written with sourceHandle', () => {
  /** The starter pack with edge e5 (control.if "replied" → "task", handle "true") written as React Flow writes it. */
  function withSourceHandle(value: unknown = 'true'): Any {
    const pack = fixture('valid/buyer-lead-starter.json');
    const edges = pack.automations[0].document.graph.edges;
    edges[4] = { id: 'e5', source: 'replied', sourceHandle: value, target: 'task' };
    return pack;
  }
  const e5 = '/automations/0/document/graph/edges/4';

  it('moves it to handle, in its place: the edge then leaves through the branch it names, and validates', () => {
    const pack = withSourceHandle();
    // Unread, the edge left through "next", which control.if does not have.
    expect(codes(pack)).toEqual([`graph/invalid-handle ${e5}`, `graph/unknown-field ${e5}/sourceHandle`]);
    expect(fixPack(pack, portableHasher)).toEqual(['automation "new-lead-welcome" edge "e5": sourceHandle "true" → handle']);
    expect(pack.automations[0].document.graph.edges[4]).toEqual({ id: 'e5', source: 'replied', handle: 'true', target: 'task' });
    expect(Object.keys(pack.automations[0].document.graph.edges[4])).toEqual(['id', 'source', 'handle', 'target']);
    expect(codes(pack)).toEqual([]);
  });

  it('moves a handle the source block does not have too, and validation names it as it does any handle', () => {
    const pack = withSourceHandle('yes');
    expect(fixPack(pack, portableHasher)).toEqual(['automation "new-lead-welcome" edge "e5": sourceHandle "yes" → handle']);
    const ds = validatePack(pack).diagnostics;
    expect(ds.map((d) => `${d.code} ${d.pointer}`)).toEqual([`graph/invalid-handle ${e5}/handle`]);
    expect(ds[0]!.message).toBe(
      'Edge "e5" leaves control.if "replied" through handle "yes", which that node does not have; its outputs are "true", "false".',
    );
  });

  it("leaves an edge that has a handle too (which one is meant is the author's call), and a value that is not a non-empty string", () => {
    const both = withSourceHandle();
    both.automations[0].document.graph.edges[4].handle = 'false';
    for (const pack of [both, withSourceHandle(''), withSourceHandle(null), withSourceHandle(1), withSourceHandle(['true'])]) {
      const before = JSON.stringify(pack);
      expect(fixPack(pack, portableHasher)).toEqual([]);
      expect(JSON.stringify(pack)).toBe(before);
      expect(codes(pack)).toContain(`graph/unknown-field ${e5}/sourceHandle`);
    }
  });

  it('names an edge without an id by its index, and an automation without a key by its own', () => {
    const pack: Any = {
      automations: [
        {
          document: {
            graph: {
              nodes: [],
              edges: [
                { source: 'a', target: 'b', sourceHandle: 'next' },
                { id: 3, source: 'a', target: 'c', sourceHandle: 'done' },
              ],
            },
          },
        },
      ],
    };
    expect(fixPack(pack, portableHasher)).toEqual([
      'automations[0] edges[0]: sourceHandle "next" → handle',
      'automations[0] edges[1]: sourceHandle "done" → handle',
    ]);
    expect(pack.automations[0].document.graph.edges).toEqual([
      { source: 'a', target: 'b', handle: 'next' },
      { id: 3, source: 'a', target: 'c', handle: 'done' },
    ]);
  });

  it('reads nothing that is not a graph', () => {
    for (const automations of [
      'x',
      [null],
      [{ document: 'x' }],
      [{ document: { graph: [] } }],
      [{ document: { graph: { edges: {} } } }],
      [{ document: { graph: { edges: ['e', null] } } }],
    ]) {
      const pack: Any = { automations };
      expect(fixPack(pack, portableHasher)).toEqual([]);
      expect(pack.automations).toBe(automations);
    }
  });
});

describe('fixedPack', () => {
  it('never changes the pack it is given: what a fix changes is copied, with the path to it, and everything else is shared', () => {
    const pack = fixture('valid/buyer-lead-starter.json');
    pack.pipelines[0].stages[3].probability = 90;
    deepFreeze(pack);
    const { pack: fixed, changes } = fixedPack(pack, portableHasher);
    expect(changes).toEqual([`pipeline "${pack.pipelines[0].key}" stage "won": probability 90 → 100`]);
    expect(pack.pipelines[0].stages[3].probability).toBe(90);
    expect(fixed).not.toBe(pack);
    expect(fixed.pipelines[0].stages[3]).toEqual({ ...pack.pipelines[0].stages[3], probability: 100 });
    expect(Object.keys(fixed.pipelines[0].stages[3])).toEqual(Object.keys(pack.pipelines[0].stages[3]));
    // The rest is the same objects: the other stages, the automations, the pack's other fields.
    expect(fixed.pipelines[0].stages.filter((s: unknown, i: number) => s === pack.pipelines[0].stages[i])).toHaveLength(
      pack.pipelines[0].stages.length - 1,
    );
    expect(fixed.automations).toBe(pack.automations);
    expect(fixed.smartLists).toBe(pack.smartLists);
    expect(Object.keys(fixed)).toEqual(Object.keys(pack));
    expect(codes(fixed)).toEqual([]);
  });

  it('copies only the graph whose edge it fixes', () => {
    const pack = fixture('valid/buyer-lead-starter.json');
    const edges = pack.automations[1].document.graph.edges;
    edges[1] = { id: 'e2', source: 'ai', sourceHandle: 'ready', target: 'deal' };
    deepFreeze(pack);
    const { pack: fixed, changes } = fixedPack(pack, portableHasher);
    expect(changes).toEqual(['automation "nurture-by-stage" edge "e2": sourceHandle "ready" → handle']);
    expect(fixed.automations[0]).toBe(pack.automations[0]);
    expect(fixed.automations[2]).toBe(pack.automations[2]);
    const [was, now] = [pack.automations[1].document, fixed.automations[1].document];
    expect(now.graph.nodes).toBe(was.graph.nodes);
    expect(now.references).toBe(was.references);
    expect(now.graph.edges[0]).toBe(was.graph.edges[0]);
    expect(now.graph.edges[1]).toEqual({ id: 'e2', source: 'ai', handle: 'ready', target: 'deal' });
    expect(fixed.pipelines).toBe(pack.pipelines);
  });

  it('gives the pack itself when there is nothing to fix', () => {
    for (const f of ['valid/buyer-lead-starter.json', 'valid/listing-marketing.json']) {
      const pack = deepFreeze(fixture(f));
      expect(fixedPack(pack, portableHasher)).toEqual({ pack, changes: [] });
      expect(fixedPack(pack, portableHasher).pack).toBe(pack);
    }
  });

  it('keeps a "__proto__" key a key in what it copies', () => {
    const pack = JSON.parse(
      '{"__proto__": {"polluted": 1}, "assets": [{"__proto__": 2, "key": "a", "data": "QQ==", "sha256": "0", "byteSize": 1}]}',
    );
    const { pack: fixed } = fixedPack(pack, portableHasher);
    expect(Object.keys(fixed)).toEqual(['__proto__', 'assets']);
    expect(Object.keys(fixed.assets[0])).toEqual(['__proto__', 'key', 'data', 'sha256', 'byteSize']);
    expect(Object.getPrototypeOf(fixed.assets[0])).toBe(Object.prototype);
    expect(({} as Any).polluted).toBeUndefined();
  });
});

describe('mayBeFixed', () => {
  it('names every finding that fixing removes, and none of the findings it leaves', () => {
    const pack = fixture('valid/listing-marketing.json');
    pack.assets[0].sha256 = '0'.repeat(64);
    pack.assets[1].byteSize = 7;
    delete pack.assets[1].sha256; // schema/required, with "missing"
    pack.automations[0].document.graph.edges[0].sourceHandle = 'next';
    pack.automations[0].document.graph.nodes[0].sourceHandle = 'next'; // a node's: not moved
    pack.automations[0].document.graph.edges[1].note = 'x';
    const stages = pack.pipelines[0].stages as Any[];
    stages.find((s) => s.stageType === 'CLOSED_LOST').probability = 12;
    const before = validatePack(pack).diagnostics;
    const after = validatePack(fixedPack(pack, portableHasher).pack).diagnostics;
    const key = (d: { code: string; pointer: string }) => `${d.code} ${d.pointer}`;
    const left = new Set(after.map(key));
    const removed = before.filter((d) => !left.has(key(d)));
    expect(removed.map(key).sort()).toEqual([
      'asset/sha256-mismatch /assets/0/sha256',
      'asset/size-mismatch /assets/1/byteSize',
      'graph/unknown-field /automations/0/document/graph/edges/0/sourceHandle',
      `pipeline/probability-normalised /pipelines/0/stages/${stages.findIndex((s) => s.stageType === 'CLOSED_LOST')}/probability`,
      'schema/required /assets/1',
    ]);
    expect(removed.every(mayBeFixed)).toBe(true);
    expect(after.map(key).sort()).toEqual([
      'graph/unknown-field /automations/0/document/graph/edges/1/note',
      'graph/unknown-field /automations/0/document/graph/nodes/0/sourceHandle',
    ]);
    expect(after.some(mayBeFixed)).toBe(false);
  });

  it('is a question of the pointer (and the absent field) alone', () => {
    expect(mayBeFixed({ pointer: '/assets/12/sha256' })).toBe(true);
    expect(mayBeFixed({ pointer: '/assets/12', missing: 'byteSize' })).toBe(true);
    expect(mayBeFixed({ pointer: '/assets/12', missing: 'data' })).toBe(false);
    expect(mayBeFixed({ pointer: '/assets/12/data' })).toBe(false);
    expect(mayBeFixed({ pointer: '/pipelines/0/stages/3/probability' })).toBe(true);
    expect(mayBeFixed({ pointer: '/pipelines/0/stages/3/name' })).toBe(false);
    expect(mayBeFixed({ pointer: '/automations/2/document/graph/edges/40/sourceHandle' })).toBe(true);
    expect(mayBeFixed({ pointer: '/automations/2/document/graph/edges/40/sourceHandle/x' })).toBe(false);
    expect(mayBeFixed({ pointer: '/automations/2/document/graph/nodes/40/sourceHandle' })).toBe(false);
    expect(mayBeFixed({ pointer: '' })).toBe(false);
  });
});
