import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { EditorStore } from './store.js';
import { serializePack } from './serialize.js';
import { editGraph } from './actions.js';
import { addNode } from './graph.js';
import type { PackValue } from './pack.js';

const text = readFileSync(new URL('../../../../fixtures/valid/buyer-lead-starter.json', import.meta.url), 'utf8');

describe('EditorStore', () => {
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
  it('a restored dirty draft stays dirty', () => {
    const store = new EditorStore();
    store.open({ name: 'x' }, 'draft', undefined, { dirty: true });
    expect(store.dirty).toBe(true);
  });
});
