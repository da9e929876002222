import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { sha256Hex, validatePack } from '@setup-pack/core';
import { createHistory, push, redo, undo } from './history.js';
import { syncReferences, updateReference } from './references.js';
import { documentOf, newPack, updateDocument, type PackValue } from './pack.js';
import { setNodeConfigAndSync } from './actions.js';
import { serializePack } from './serialize.js';
import { tidyUp } from './layout.js';
import { nodesOf, addNode, updateNode, moveNodes } from './graph.js';
import { indexFindings, locate, targetFindings, type FindingIndex } from './findings.js';
import fc from 'fast-check';
import type { Diagnostic } from '@setup-pack/core';
import { neighbour } from './navigation.js';
import { addChild, newCondition, removeAt, updateAtPath, parseValue } from './filters.js';
import { addStage, mergeTags, moveStage, NO_SWATCH, previewMerge, replaceAssetFile, swatchColor } from './items.js';
import { setUnknownConfig, unknownConfig, fieldValue } from './config.js';
import { catalogFields } from './config.js';
import { draftSuperseded, memoryDraftStore, noteLeaving, packOfDraft, readLeaving } from './autosave.js';
import { applyEdit, findingEdits } from './edits.testing.js';
import { changedRun, worthUpdating } from './findingsDelta.js';
import type { Obj } from './json.js';

const root = new URL('../../../../fixtures/', import.meta.url);
const fixtureFiles = ['valid', 'releases'].flatMap((dir) =>
  readdirSync(new URL(dir + '/', root))
    .filter((f) => f.endsWith('.json'))
    .map((f) => `${dir}/${f}`),
);
const text = (p: string) => readFileSync(new URL(p, root), 'utf8');
const starter = (): PackValue => JSON.parse(text('valid/buyer-lead-starter.json'));

describe('exportedAt on export', () => {
  const at = new Date('2026-11-22T01:02:03.456Z');
  it('is left alone when the pack is untouched, and stamped (in place, to the second) when it changed', () => {
    const t = text('valid/buyer-lead-starter.json');
    const value = JSON.parse(t) as PackValue;
    const origin = { value, text: t };
    expect(serializePack(value, origin, { exportedAt: at })).toBe(t);
    const changed = JSON.parse(serializePack({ ...value, name: 'Changed' }, origin, { exportedAt: at }));
    expect(changed.exportedAt).toBe('2026-11-22T01:02:03Z');
    expect(Object.keys(changed)).toEqual(Object.keys(value)); // the fixture has one: it keeps its place
  });
  it('goes after version when the pack had none', () => {
    const pack = {
      format: 'service.setup-pack',
      schemaVersion: 2,
      packId: 'x',
      name: 'n',
      version: '1',
      automations: [],
    } as unknown as PackValue;
    expect(Object.keys(JSON.parse(serializePack(pack, undefined, { exportedAt: at })))).toEqual([
      'format',
      'schemaVersion',
      'packId',
      'name',
      'version',
      'exportedAt',
      'automations',
    ]);
  });
});

describe('export round-trip', () => {
  it.each(fixtureFiles)('%s exports byte-identical when untouched, and after an edit is undone', (file) => {
    const t = text(file);
    const value = JSON.parse(t) as PackValue;
    const origin = { value, text: t };
    expect(serializePack(value, origin)).toBe(t);
    // Without the original text, the pack's own formatting reproduces the same bytes.
    expect(serializePack(JSON.parse(t))).toBe(t);
    let h = createHistory(value);
    h = push(h, { ...value, name: 'Changed' });
    expect(serializePack(h.present, origin)).not.toBe(t);
    h = undo(h);
    expect(serializePack(h.present, origin)).toBe(t);
  });
});

describe('history', () => {
  it('undoes and redoes, and coalesces typing in one field', () => {
    let h = createHistory(1);
    h = push(h, 2, 'name');
    h = push(h, 3, 'name');
    h = push(h, 4);
    expect(h.past).toEqual([1, 3]);
    h = undo(h);
    expect(h.present).toBe(3);
    h = undo(h);
    expect(h.present).toBe(1);
    h = redo(h);
    expect(h.present).toBe(3);
    h = push(h, 9);
    expect(h.future).toEqual([]);
  });
});

describe('references kept in step', () => {
  it('adds a reference when a ref field starts writing an id, and drops it when no config writes it', () => {
    let pack = starter();
    pack = updateDocument(pack, 0, (d) => addNode(d, 'action.add_tag', { x: 0, y: 0 }).doc);
    pack = setNodeConfigAndSync(pack, 0, 'add_tag', { tag_id: 'tag-vip' });
    const refs = () => (documentOf(pack, 0).references as Obj[]).map((r) => `${r.type}:${r.id}`);
    expect(refs()).toContain('tag:tag-vip');
    // The new reference has no name and is not a pack key: core reports it.
    expect(validatePack(pack).diagnostics.map((d) => d.code)).toContain('reference/missing-name');
    pack = updateDocument(pack, 0, (d) => updateReference(d, (d.references as Obj[]).length - 1, { name: 'VIP' }));
    expect(validatePack(pack).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    pack = setNodeConfigAndSync(pack, 0, 'add_tag', { tag_id: 'tag-buyer-lead' });
    expect(refs()).not.toContain('tag:tag-vip');
    expect(refs().filter((r) => r === 'tag:tag-buyer-lead')).toHaveLength(1);
  });
  it('keeps references the edit did not touch', () => {
    const d = documentOf(starter(), 0);
    const after = updateNode(d, 'wait', (n) => ({ ...n, config: { duration: 2, unit: 'days' } }));
    expect(syncReferences(d, after).references).toBe(d.references);
  });
  it('settles a move (configs untouched) without rescanning, and still syncs when only a kind changes', () => {
    let pack = starter();
    pack = updateDocument(pack, 0, (d) => addNode(d, 'action.add_tag', { x: 0, y: 0 }).doc);
    pack = setNodeConfigAndSync(pack, 0, 'add_tag', { tag_id: 'tag-vip' });
    const d = documentOf(pack, 0);
    const moved = moveNodes(d, new Map([['add_tag', { x: 40, y: 80 }]]));
    expect(syncReferences(d, moved)).toBe(moved);
    // Same config object under another kind: the ids it writes may differ, so references are re-derived.
    const rekinded = updateNode(d, 'add_tag', (n) => ({ ...n, kind: 'action.add_note' }));
    const synced = syncReferences(d, rekinded);
    expect((synced.references as Obj[]).map((r) => `${r.type}:${r.id}`)).toContain('tag:tag-vip'); // still written as a string: kept
    const removed = syncReferences(
      d,
      updateNode(d, 'add_tag', (n) => ({ ...n, config: {} })),
    );
    expect((removed.references as Obj[]).map((r) => `${r.type}:${r.id}`)).not.toContain('tag:tag-vip');
  });
});

describe('tidy-up', () => {
  it('is stable: tidying a tidy graph moves nothing, and positions are written into the pack', () => {
    const d = documentOf(starter(), 0);
    const once = tidyUp(d);
    expect(tidyUp(once)).toBe(once);
    for (const n of nodesOf(once)) expect(n.position).toEqual({ x: expect.any(Number), y: expect.any(Number) });
  });
  it('keeps the layout anchored where the nodes were', () => {
    const d = documentOf(starter(), 0);
    const t = tidyUp(d);
    const start = nodesOf(t).find((n) => n.id === 'start')!.position as { x: number; y: number };
    const triggers = nodesOf(t).map((n) => (n.position as { y: number }).y);
    expect(Math.min(...triggers)).toBe(start.y);
    expect(Math.abs(start.y - 0)).toBeLessThan(200);
  });
  it('keeps the left/right order of siblings as the author arranged them', () => {
    const d = documentOf(starter(), 0);
    const x = (doc: Obj, id: string) => (nodesOf(doc).find((n) => n.id === id)!.position as { x: number }).x;
    expect(x(tidyUp(d), 'task')).toBeLessThan(x(tidyUp(d), 'email'));
    const swapped = moveNodes(
      d,
      new Map([
        ['task', { x: 160, y: 600 }],
        ['email', { x: -160, y: 600 }],
      ]),
    );
    const t = tidyUp(swapped);
    expect(x(t, 'task')).toBeGreaterThan(x(t, 'email'));
  });
  it('onlyNew places new nodes and leaves the others alone', () => {
    const d = documentOf(starter(), 0);
    const withNew = updateNode(addNode(d, 'action.add_note', { x: 0, y: 0 }).doc, 'add_note', (n) => {
      const { position: _p, ...rest } = n;
      return rest;
    });
    const t = tidyUp(withNew, { onlyNew: true });
    expect(nodesOf(t).find((n) => n.id === 'tag')!.position).toEqual({ x: 0, y: 120 });
    expect(nodesOf(t).find((n) => n.id === 'add_note')!.position).toEqual({ x: expect.any(Number), y: expect.any(Number) });
  });
  it('lays out 200 nodes quickly', () => {
    const nodes = [{ id: 'n0', kind: 'trigger.manual' }];
    const edges = [];
    for (let i = 1; i < 200; i++) {
      nodes.push({ id: `n${i}`, kind: 'action.add_note' });
      edges.push({ id: `e${i}`, source: `n${Math.floor((i - 1) / 2)}`, target: `n${i}` });
    }
    const d: Obj = { graph: { nodes, edges } };
    const t0 = performance.now();
    const t = tidyUp(d);
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(new Set(nodesOf(t).map((n) => JSON.stringify(n.position))).size).toBe(200);
  });
});

describe('findings', () => {
  it('maps a pointer to the node and field', () => {
    const pack = starter();
    expect(locate(pack, '/automations/0/document/graph/nodes/1/config/tag_id')).toEqual({
      target: { kind: 'automations', index: 0 },
      nodeId: 'tag',
      path: ['config', 'tag_id'],
    });
    expect(locate(pack, '/name')).toEqual({ target: { kind: 'pack' }, path: ['name'] });
    const idx = indexFindings(pack, [{ code: 'x', severity: 'error', message: '', pointer: '/automations/0/document/graph/nodes/1' }]);
    expect(idx.byNode.get('0/tag')?.error).toBe(1);
    expect(idx.byItem.get('automations/0')?.error).toBe(1);
  });

  it('keeps the index while the findings are the same array and every graph id stays where it was', () => {
    const pack = starter();
    const diagnostics = [
      { code: 'x', severity: 'error', message: '', pointer: '/automations/0/document/graph/nodes/1/config/tag_id' },
      { code: 'y', severity: 'info', message: '', pointer: '/automations/0/document/graph/edges/0' },
      { code: 'z', severity: 'warning', message: '', pointer: '/name' },
    ] as const;
    const idx = indexFindings(pack, diagnostics);
    expect(idx.byTarget.get('automations/0')?.map((d) => d.code)).toEqual(['x', 'y']);
    expect(idx.byTarget.get('pack')?.map((d) => d.code)).toEqual(['z']);
    // Typing in a block's config: a new pack, the same ids: the same index object.
    const typed = updateDocument(pack, 0, (d) =>
      updateNode(d, 'tag', (n) => ({ ...n, config: { ...(n.config as Obj), tag_id: 'tag-typed' } })),
    );
    expect(indexFindings(typed, diagnostics, idx)).toBe(idx);
    // A new result (even with equal findings) is indexed again.
    const again = indexFindings(typed, [...diagnostics], idx);
    expect(again).not.toBe(idx);
    expect(again.byNode.get('0/tag')?.error).toBe(1);
    // A renamed block moves its findings to the new id.
    const renamed = updateDocument(pack, 0, (d) => updateNode(d, 'tag', (n) => ({ ...n, id: 'tag2' })));
    const moved = indexFindings(renamed, diagnostics, idx);
    expect(moved).not.toBe(idx);
    expect(moved.byNode.get('0/tag2')?.error).toBe(1);
    expect(moved.byNode.get('0/tag')).toBeUndefined();
    // An added block (the node list grows) is indexed again too.
    expect(
      indexFindings(
        updateDocument(pack, 0, (d) => addNode(d, 'action.add_tag', { x: 0, y: 0 }).doc),
        diagnostics,
        idx,
      ),
    ).not.toBe(idx);
  });

  it('counts only the findings that left and came when a validation changed a run of them, and ends where a fresh index does', () => {
    const pack = starter();
    const pointers = [
      '/name',
      '/automations/0',
      '/automations/0/document/graph/nodes/1/config/tag_id',
      '/automations/0/document/graph/nodes/0',
      '/automations/0/document/graph/edges/0',
      '/messageTemplates/0/body',
      '/smartLists/0',
    ];
    const finding = fc
      .record({
        pointer: fc.constantFrom(...pointers),
        severity: fc.constantFrom('error', 'warning', 'info'),
        code: fc.constantFrom('a', 'b'),
      })
      .map((f) => ({ ...f, message: '' }) as Diagnostic);
    const plain = (idx: FindingIndex) => {
      const keys = new Set([...idx.byTarget.keys(), ...idx.pending, 'pack', ...pointers.map((p) => p.split('/').slice(1, 3).join('/'))]);
      return {
        byItem: Object.fromEntries([...idx.byItem].sort()),
        byNode: Object.fromEntries([...idx.byNode].sort()),
        byEdge: Object.fromEntries([...idx.byEdge].sort()),
        pack: idx.pack,
        total: idx.total,
        lists: Object.fromEntries([...keys].sort().map((k) => [k, targetFindings(idx, k)])),
      };
    };
    fc.assert(
      fc.property(findingEdits(finding, 8), ([start, edits]) => {
        let list = start;
        let idx = indexFindings(pack, list);
        for (const e of edits) {
          const before = idx;
          const snapshot = structuredClone(plain(before));
          list = applyEdit(before.diagnostics, e);
          idx = indexFindings(pack, list, idx);
          expect(plain(idx)).toEqual(plain(indexFindings(pack, list)));
          expect(plain(before)).toEqual(snapshot); // the index before is left as it was
          // At most half changed: only the findings that came were placed.
          const run = changedRun(before.diagnostics, list);
          if (worthUpdating(run, list.length)) expect(idx.newlyPlaced).toBe(run.came);
        }
      }),
    );
  });
});

describe('navigation', () => {
  const nodes = [
    { id: 'a', position: { x: 0, y: 0 } },
    { id: 'b', position: { x: 0, y: 100 } },
    { id: 'c', position: { x: 200, y: 110 } },
  ];
  it('moves to the nearest node in a direction', () => {
    expect(neighbour(nodes, 'a', 'down')).toBe('b');
    expect(neighbour(nodes, 'b', 'right')).toBe('c');
    expect(neighbour(nodes, 'a', 'up')).toBeUndefined();
  });
});

describe('other kinds', () => {
  it('edits the filter tree', () => {
    let root: unknown = { type: 'and', children: [] };
    root = addChild(root, [], newCondition());
    root = addChild(root, [], { type: 'or', children: [] });
    root = addChild(root, [1], newCondition());
    root = updateAtPath(root, [1, 0], (c) => ({ ...c, field: 'city', value: 'Boston' }));
    expect(root).toEqual({
      type: 'and',
      children: [newCondition(), { type: 'or', children: [{ ...newCondition(), field: 'city', value: 'Boston' }] }],
    });
    root = removeAt(root, [0]);
    expect((root as Obj).children).toHaveLength(1);
    expect(parseValue('7')).toEqual({ value: 7 });
    expect(parseValue('-2.5e1')).toEqual({ value: -25 });
    expect(parseValue('x')).toEqual({ value: 'x' });
    expect(parseValue('true')).toEqual({ value: true });
    expect(parseValue('[1, 2]')).toEqual({ value: [1, 2] });
    expect(parseValue('[1, 2')).toEqual({ value: '[1, 2' });
    // Not JSON's spelling of a number: kept as the text it is (a zip code), where it read as 1234.
    expect(parseValue('01234')).toEqual({ value: '01234' });
  });
  it("does not read a condition value the editor would not keep as written: core's finding says why", () => {
    expect(parseValue('9007199254740993')).toEqual({
      error: expect.stringMatching(
        /^Not applied: value is the number 9007199254740993, with more digits than a JSON number keeps here .* it reads as 9007199254740992,/,
      ),
    });
    expect(parseValue('1e-400')).toEqual({
      error: expect.stringMatching(/^Not applied: value is the number 1e-400, closer to 0 than a JSON number can hold here/),
    });
    expect(parseValue('1e400')).toEqual({
      error: expect.stringMatching(/^Not applied: value is the number 1e400, beyond what a JSON number can hold here/),
    });
    expect(parseValue('[1, 1e-400]')).toEqual({
      error: expect.stringMatching(
        /^Not applied: this JSON says what the editor cannot keep as written: line 1: value\[1\] is the number 1e-400/,
      ),
    });
    expect(parseValue('{"a": 1, "a": 2}')).toEqual({ error: expect.stringContaining('The property "a" appears more than once') });
  });
  it('reorders and adds pipeline stages', () => {
    const p = (starter().pipelines as Obj[])[0]!;
    const keys = (x: Obj) => (x.stages as Obj[]).map((s) => s.key);
    expect(keys(moveStage(p, 0, 1)).slice(0, 2)).toEqual(['showing', 'new']);
    const added = addStage(p);
    expect(keys(added)).toHaveLength(keys(p).length + 1);
    expect((added.stages as Obj[]).findIndex((s) => String(s.key).startsWith('stage-'))).toBeLessThan(
      (added.stages as Obj[]).findIndex((s) => s.stageType === 'CLOSED_WON'),
    );
  });
  it("shows a stage's color in a swatch in every spelling the schema accepts, and grey for one it refuses", () => {
    for (const [color, shown] of [
      ['#f00', '#ff0000'],
      ['#F00A', '#ff0000'],
      ['#22c55e', '#22c55e'],
      ['#22C55E80', '#22c55e'],
      [undefined, NO_SWATCH],
      ['red', NO_SWATCH],
      ['#12345', NO_SWATCH],
      [5, NO_SWATCH],
    ] as const)
      expect(swatchColor(color), String(color)).toBe(shown);
  });
  it('previews merge tags', () => {
    expect(mergeTags('Hi {{contact.first_name}} {{ x.y }}')).toEqual(['contact.first_name', 'x.y']);
    expect(previewMerge('Hi {{contact.first_name}} {{x.y}}')).toBe('Hi Alex [x.y]');
  });
  it('replacing an asset file recomputes sha256 and byteSize, and the pack validates', () => {
    const pack = JSON.parse(text('valid/listing-marketing.json')) as PackValue;
    const bytes = new TextEncoder().encode('new logo bytes');
    const assets = pack.assets as Obj[];
    const next = { ...pack, assets: assets.map((a, i) => (i === 0 ? replaceAssetFile(a, bytes, 'logo.png', 'image/png') : a)) };
    expect((next.assets as Obj[])[0]).toMatchObject({ byteSize: 14, sha256: sha256Hex(bytes), fileName: 'logo.png' });
    const codes = validatePack(next).diagnostics.map((d) => d.code);
    expect(codes).not.toContain('asset/sha256-mismatch');
    expect(codes).not.toContain('asset/size-mismatch');
  });
});

describe('config forms', () => {
  it('keeps unknown config when known fields change and when the raw JSON is edited', () => {
    const config = { tag_id: 'a', custom: { deep: 1 }, other: 2 };
    expect(unknownConfig('action.add_tag', config)).toEqual({ custom: { deep: 1 }, other: 2 });
    expect(setUnknownConfig('action.add_tag', config, { custom: 3, added: true })).toEqual({ tag_id: 'a', custom: 3, added: true });
    // Keys named like Object.prototype members are config keys like any other.
    const odd = JSON.parse('{"tag_id": "a", "constructor": 1, "__proto__": {"x": 2}}');
    expect(Object.keys(unknownConfig('action.add_tag', odd))).toEqual(['constructor', '__proto__']);
    const set = setUnknownConfig('action.add_tag', { tag_id: 'a' }, JSON.parse('{"constructor": 5, "__proto__": [1]}'));
    expect(JSON.stringify(set)).toBe('{"tag_id":"a","constructor":5,"__proto__":[1]}');
    const f = catalogFields('action.create_task').find((x) => x.name === 'title')!;
    expect(fieldValue(f, 'Call')).toBe('Call');
    expect(fieldValue(f, '')).toBeUndefined();
  });
});

describe('autosave and new packs', () => {
  it('saves and restores a draft as a copy', async () => {
    const store = memoryDraftStore();
    const pack = starter();
    await store.save({ savedAt: 'now', pack, dirty: true });
    pack.name = 'changed after saving';
    expect((await store.load())?.pack?.name).toBe('Buyer Lead Starter');
    await store.clear();
    expect(await store.load()).toBeUndefined();
  });
  it('keeps a pack as it was opened as its text alone, and reads it back as opening it did', async () => {
    const t = text('valid/buyer-lead-starter.json');
    const store = memoryDraftStore();
    await store.save({ savedAt: 'now', originText: t, dirty: false });
    const draft = (await store.load())!;
    expect(draft.pack).toBeUndefined();
    expect(packOfDraft(draft)).toEqual(JSON.parse(t));
    // Text JSON.parse refuses but core reads (a byte order mark), as the editor opens it.
    expect(packOfDraft({ savedAt: 'now', originText: `\uFEFF${t}`, dirty: false })?.name).toBe('Buyer Lead Starter');
    expect(packOfDraft({ savedAt: 'now', originText: '[1]', dirty: false })).toBeUndefined();
    expect(packOfDraft({ savedAt: 'now', pack: starter(), originText: '[1]', dirty: false })?.name).toBe('Buyer Lead Starter');
  });
  it('does not restore a draft of unsaved work when the page that wrote it was left later with none', () => {
    const kept = new Map<string, string>();
    const storage = { setItem: (k: string, v: string) => void kept.set(k, v), getItem: (k: string) => kept.get(k) ?? null };
    const draft = { savedAt: new Date(Date.now() - 1000).toISOString(), pack: starter(), dirty: true, page: 'p1' };
    expect(draftSuperseded(draft, readLeaving(storage))).toBe(false); // never left: restore it
    noteLeaving('p1', false, storage); // every edit undone, then left before the draft said so
    expect(draftSuperseded(draft, readLeaving(storage))).toBe(true);
    expect(draftSuperseded({ ...draft, page: 'p2' }, readLeaving(storage))).toBe(false); // another tab's leaving
    expect(draftSuperseded({ ...draft, savedAt: new Date(Date.now() + 1000).toISOString() }, readLeaving(storage))).toBe(false); // written after
    expect(draftSuperseded({ ...draft, dirty: false }, readLeaving(storage))).toBe(false);
    noteLeaving('p1', true, storage); // left with unsaved work: the draft is the best there is
    expect(draftSuperseded(draft, readLeaving(storage))).toBe(false);
    expect(readLeaving({ getItem: () => '{"at": 1}' })).toBeUndefined();
    expect(readLeaving(undefined)).toBeUndefined();
  });
  it('a new item of every kind validates without errors', async () => {
    const { ITEM_KINDS, addItem, newItem } = await import('./pack.js');
    let pack = newPack('6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12');
    for (const kind of ITEM_KINDS) for (let i = 0; i < 2; i++) pack = addItem(pack, kind, newItem(pack, kind)).pack;
    expect(validatePack(pack).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
  it('a new pack validates without errors', () => {
    expect(validatePack(newPack('6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12')).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
});

describe('visual diff', () => {
  it('marks added, removed and changed nodes, and a moved node is not a change', async () => {
    const { comparePacks, mergedAutomation } = await import('./diffview.js');
    const oldPack = JSON.parse(text('releases/buyer-lead-1.0.0.json')) as PackValue;
    const newPack = JSON.parse(text('releases/buyer-lead-1.1.0.json')) as PackValue;
    const diff = comparePacks(oldPack, newPack);
    expect(diff.items.length).toBeGreaterThan(0);
    const changed = diff.items.find((i) => i.kind === 'automations' && i.change === 'changed');
    expect(changed).toBeDefined();
    const merged = mergedAutomation(oldPack, newPack, changed!);
    expect(merged.marks.size).toBeGreaterThan(0);
    for (const [id, mark] of merged.marks) if (mark !== 'removed') expect(nodesOf(merged.doc).some((n) => n.id === id)).toBe(true);
    // Moving every node of the new release changes nothing in the diff.
    const moved = updateDocument(oldPack, 0, (d) => ({
      ...d,
      graph: { ...(d.graph as Obj), nodes: nodesOf(d).map((n) => ({ ...n, position: { x: 999, y: 999 } })) },
    }));
    expect(comparePacks(oldPack, moved).items).toEqual([]);
  });

  it('says which blocks and settings of an automation changed, never the bare "document"', async () => {
    const { comparePacks, describeItemChange } = await import('./diffview.js');
    const diff = comparePacks(
      JSON.parse(text('releases/buyer-lead-1.0.0.json')) as PackValue,
      JSON.parse(text('releases/buyer-lead-1.1.0.json')) as PackValue,
    );
    const welcome = diff.items.find((i) => i.kind === 'automations' && i.name === 'New lead welcome')!;
    expect(describeItemChange(welcome)).toEqual(['block wait changed: config.duration', 'block wait config.duration: 1 → 2']);
    for (const c of diff.items) expect(describeItemChange(c).join('\n')).not.toMatch(/\bdocument\b/);
    const list = diff.items.find((i) => i.kind === 'smartLists')!;
    expect(describeItemChange(list)).toEqual([
      'condition root › 2 changed (value): created at is within the last 7 days → created at is within the last 14 days',
    ]);
  });

  it("says what changed in a control.if block's conditions, by place, in words", async () => {
    const { comparePacks, describeItemChange } = await import('./diffview.js');
    const oldPack = JSON.parse(text('valid/buyer-lead-starter.json'));
    const newPack = structuredClone(oldPack);
    const node = newPack.automations[0].document.graph.nodes.find((n: { kind: string }) => n.kind === 'control.if');
    node.config.conditions.operator = 'is_not_set';
    const [change] = comparePacks(oldPack as PackValue, newPack as PackValue).items;
    expect(describeItemChange(change)).toEqual([
      `block ${node.id} changed: config.conditions`,
      `block ${node.id} condition root changed (operator): last reply at is set → last reply at is not set`,
    ]);
  });

  it('says which stages of a pipeline changed, by key, never the bare "stages"', async () => {
    const { comparePacks, describeItemChange } = await import('./diffview.js');
    const oldPack = JSON.parse(text('valid/buyer-lead-starter.json'));
    const newPack = structuredClone(oldPack);
    const stages = newPack.pipelines[0].stages;
    stages[1].name = 'Touring homes';
    stages.splice(2, 0, { ...stages[2], key: 'pre-offer', name: 'Pre-offer' });
    newPack.pipelines[0].name = 'Buyers 2';
    const [change] = comparePacks(oldPack as PackValue, newPack as PackValue).items;
    expect(describeItemChange(change)).toEqual([
      'changed: name',
      'name: "Buyers" → "Buyers 2"',
      `stage ${stages[1].key} "Touring homes" changed: name`,
      `stage ${stages[1].key} name: "Showing homes" → "Touring homes"`,
      'stage pre-offer "Pre-offer" added',
    ]);
    [stages[0], stages[1]] = [stages[1], stages[0]];
    const [moved] = comparePacks(oldPack as PackValue, newPack as PackValue).items;
    expect(describeItemChange(moved)).toContain(`stage order: ${stages.map((st: { key: string }) => st.key).join(', ')}`);
  });
});
