import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { EditorStore } from './store.js';
import { serializePack } from './serialize.js';
import { editGraph } from './actions.js';
import { addNode, moveNodes, nodesOf } from './graph.js';
import { addItem, documentOf, newItem, removeItem, updateItem } from './pack.js';
import type { PackValue } from './pack.js';
import { lostOnOpen } from './fileText.js';

const text = readFileSync(new URL('../../../../fixtures/valid/buyer-lead-starter.json', import.meta.url), 'utf8');

describe('EditorStore', () => {
  it('moves what the opened file lost with its item on each edit, and undo and redo give each state its own', () => {
    const twice = text.replace('"name": "Old reminder",', '"name": "Older reminder",\n      "name": "Old reminder",');
    expect(twice).not.toBe(text);
    const store = new EditorStore();
    const lost = lostOnOpen(twice);
    store.open(JSON.parse(twice) as PackValue, 'twice.json', twice, { numbers: lost.numbers, duplicates: lost.duplicates });
    const at = () => store.getState().duplicates?.map((d) => d.finding.pointer);
    expect(at()).toEqual(['/automations/2/document/name']);
    store.commit((p) => ({ ...p, name: 'Renamed' }));
    const unmoved = store.getState().duplicates;
    expect(unmoved).toBe(lost.duplicates); // nothing moved: the same array
    store.commit((p) => ({ ...p, automations: (p.automations as unknown[]).slice(1) }));
    expect(at()).toEqual(['/automations/1/document/name']);
    store.commit((p) => ({ ...p, automations: (p.automations as unknown[]).slice(0, 1) }));
    expect(at()).toEqual([]);
    store.undo();
    expect(at()).toEqual(['/automations/1/document/name']);
    store.undo();
    expect(store.getState().duplicates).toBe(unmoved);
    store.redo();
    expect(at()).toEqual(['/automations/1/document/name']);
  });
  it('tracks unsaved changes through edits, undo and export', () => {
    const store = new EditorStore();
    let notified = 0;
    store.subscribe(() => notified++);
    store.open(JSON.parse(text) as PackValue, 'starter.json', text);
    expect(store.dirty).toBe(false);
    store.commit((p) => editGraph(p, 0, (d) => addNode(d, 'action.add_note', { x: 0, y: 900 }).doc));
    expect(store.dirty).toBe(true);
    expect(serializePack(store.pack, store.getState().origin)).not.toBe(text);
    store.undo();
    expect(store.dirty).toBe(false);
    expect(serializePack(store.pack, store.getState().origin)).toBe(text);
    store.redo();
    store.markSaved();
    expect(store.dirty).toBe(false);
    expect(notified).toBeGreaterThanOrEqual(5);
  });
  it('merges typing in one field into one undo step', () => {
    const store = new EditorStore();
    store.open(JSON.parse(text) as PackValue, 'starter.json', text);
    for (const name of ['B', 'Bu', 'Buy']) store.commit((p) => ({ ...p, name }), 'pack:name');
    store.commit((p) => ({ ...p, version: '2.0.0' }), 'pack:version');
    store.undo();
    expect(store.pack.name).toBe('Buy');
    store.undo();
    expect(store.pack.name).toBe('Buyer Lead Starter');
  });
  it('commits a drag of several blocks as one undo step, with the positions written into the pack', () => {
    // What the canvas does on drag stop (its only commit for a drag): one moveNodes over every dragged block.
    const store = new EditorStore();
    store.open(JSON.parse(text) as PackValue, 'starter.json', text);
    const before = store.pack;
    const ids = nodesOf(documentOf(before, 0))
      .slice(0, 3)
      .map((n) => String(n.id));
    store.commit((p) => editGraph(p, 0, (d) => moveNodes(d, new Map(ids.map((id, i) => [id, { x: 1000 + i * 10.4, y: 2000 }])))));
    expect(store.getState().history.past).toHaveLength(1);
    const moved = new Map(nodesOf(documentOf(store.pack, 0)).map((n) => [n.id, n.position]));
    expect(ids.map((id) => moved.get(id))).toEqual([
      { x: 1000, y: 2000 },
      { x: 1010, y: 2000 },
      { x: 1021, y: 2000 },
    ]);
    expect(documentOf(store.pack, 0).references).toBe(documentOf(before, 0).references);
    // A drag that ends where it started changes nothing and records nothing.
    store.commit((p) => editGraph(p, 0, (d) => moveNodes(d, new Map([[ids[0]!, { x: 1000, y: 2000 }]]))));
    expect(store.getState().history.past).toHaveLength(1);
    store.undo();
    expect(store.pack).toBe(before);
  });
  it('a restored dirty draft stays dirty', () => {
    const store = new EditorStore();
    store.open({ name: 'x' }, 'draft', undefined, { dirty: true });
    expect(store.dirty).toBe(true);
  });
  it('shows the item an undo or a redo brings back, and never leaves an item shown that is gone', () => {
    const store = new EditorStore();
    store.open(JSON.parse(text) as PackValue, 'starter.json', text);
    const target = () => store.getState().target;
    // Removing the shown template (the sidebar then shows the pack), undone: the template is shown again.
    store.select({ kind: 'messageTemplates', index: 0 });
    store.commit((p) => removeItem(p, 'messageTemplates', 0));
    store.select({ kind: 'pack' });
    store.undo();
    expect(target()).toEqual({ kind: 'messageTemplates', index: 0 });
    // Adding a smart list, undone: it is gone, so the kind's last one is shown; redone, it is shown again.
    store.commit((p) => addItem(p, 'smartLists', newItem(p, 'smartLists')).pack);
    store.select({ kind: 'smartLists', index: 1 });
    store.undo();
    expect(target()).toEqual({ kind: 'smartLists', index: 0 });
    store.redo();
    expect(target()).toEqual({ kind: 'smartLists', index: 1 });
    // An edit to the shown item, undone and redone: it stays shown.
    store.select({ kind: 'pipelines', index: 0 });
    store.commit((p) => updateItem(p, 'pipelines', 0, (i) => ({ ...i, name: 'Renamed' })));
    store.undo();
    expect(target()).toEqual({ kind: 'pipelines', index: 0 });
    store.redo();
    expect(target()).toEqual({ kind: 'pipelines', index: 0 });
    // Undoing the addition of a kind's only item while it is shown: nothing of that kind is left, so the pack is shown.
    store.commit((p) => addItem(p, 'assets', newItem(p, 'assets')).pack);
    store.select({ kind: 'assets', index: 0 });
    store.undo();
    expect(target()).toEqual({ kind: 'pack' });
  });
});
