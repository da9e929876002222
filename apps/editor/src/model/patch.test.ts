import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { applyPatch, diffForWorker } from './patch.js';
import { addItem, newItem, removeItem, updateDocument, type PackValue } from './pack.js';
import { addNode } from './graph.js';

const pack = (): PackValue =>
  JSON.parse(readFileSync(new URL('../../../../fixtures/valid/listing-marketing.json', import.meta.url), 'utf8'));

describe('patches for the validation worker', () => {
  it('sends only the changed item, and the worker rebuilds an equal pack', () => {
    const a = pack();
    const b = updateDocument(a, 1, (d) => addNode(d, 'action.add_note', { x: 0, y: 0 }).doc);
    const p = diffForWorker(a, b);
    expect('items' in p && Object.keys(p.items)).toEqual(['automations']);
    expect('items' in p && Object.keys(p.items.automations!.changed)).toEqual(['1']);
    expect(applyPatch(structuredClone(a), structuredClone(p))).toEqual(b);
  });
  it('handles added and removed items, changed and removed fields', () => {
    const a = pack();
    let b = addItem(a, 'resources', newItem(a, 'resources')).pack;
    b = removeItem(b, 'assets', 0);
    b = { ...b, name: 'Renamed' };
    delete b.description;
    expect(applyPatch(structuredClone(a), structuredClone(diffForWorker(a, b)))).toEqual(b);
    expect(diffForWorker(undefined, b)).toEqual({ reset: b });
  });
});
