import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { portableHasher, validatePack } from '@setup-pack/core';
import { createFixer } from './fixes.js';
import { EditorStore } from './store.js';
import { diffForWorker } from './patch.js';
import type { PackValue } from './pack.js';

type Any = any; // packs as JSON.parse gives them
const fixture = (name: string): Any => JSON.parse(readFileSync(new URL(`../../../../fixtures/${name}`, import.meta.url), 'utf8'));

/** The starter pack with edge e5 (control.if "replied" → "task" through "true") written as React Flow writes it. */
function withSourceHandle(): Any {
  const pack = fixture('valid/buyer-lead-starter.json');
  const { handle, ...e5 } = pack.automations[0].document.graph.edges[4];
  pack.automations[0].document.graph.edges[4] = { ...e5, sourceHandle: handle };
  return pack;
}

describe('fixes in the editor', () => {
  it("offers core's fixes only when a finding is about a place they write, and then hashes nothing twice", () => {
    const hashed: string[] = [];
    const fixer = createFixer((data) => (hashed.push(data), portableHasher(data)));
    const pack = fixture('valid/listing-marketing.json');
    expect(fixer.offered(pack, validatePack(pack).diagnostics)).toEqual([]);
    expect(hashed).toEqual([]); // no finding a fix addresses: not run at all
    const changed = { ...pack, assets: [{ ...pack.assets[0], byteSize: 1 }, ...pack.assets.slice(1)] };
    expect(fixer.offered(changed, validatePack(changed).diagnostics)).toEqual([`asset "logo": byteSize 1 → ${pack.assets[0].byteSize}`]);
    expect(fixer.apply(changed).changes).toHaveLength(1);
    expect(hashed).toHaveLength(pack.assets.length); // each asset once, for both
    expect(fixer.offered(undefined, [])).toEqual([]);
  });

  it('applies them as one undoable step that replaces only what they change', () => {
    const store = new EditorStore();
    const pack = withSourceHandle();
    store.open(pack as PackValue, 'starter.json', JSON.stringify(pack));
    const fixer = createFixer();
    const diagnostics = validatePack(store.pack).diagnostics;
    expect(diagnostics.map((d) => d.code)).toEqual(['graph/invalid-handle', 'graph/unknown-field']);
    expect(fixer.offered(store.pack, diagnostics)).toEqual(['automation "new-lead-welcome" edge "e5": sourceHandle "true" → handle']);
    const before = store.pack;
    const { pack: fixed, changes } = fixer.apply(before);
    store.commit(() => fixed);
    expect(changes).toEqual(['automation "new-lead-welcome" edge "e5": sourceHandle "true" → handle']);
    expect(store.getState().history.past).toEqual([before]);
    expect((store.pack.automations as Any)[0].document.graph.edges[4]).toEqual({
      id: 'e5',
      source: 'replied',
      handle: 'true',
      target: 'task',
    });
    expect(validatePack(store.pack).diagnostics).toEqual([]);
    // The validation worker is sent the one automation that changed, not the pack.
    expect(diffForWorker(before, store.pack)).toEqual({
      set: {},
      remove: [],
      items: { automations: { length: 3, changed: { 0: (store.pack.automations as Any)[0] } } },
    });
    // With nothing left to fix, applying changes nothing and records nothing.
    expect(fixer.apply(store.pack).pack).toBe(store.pack);
    store.undo();
    expect(store.pack).toBe(before);
    expect(store.dirty).toBe(false);
    store.redo();
    expect(store.pack).toBe(fixed);
  });

  it('offers what fixing the pack it is given would change, even when its findings read the same, and keeps the array while the offer does', () => {
    const fixer = createFixer();
    const pack = withSourceHandle();
    const diagnostics = validatePack(pack).diagnostics;
    const first = fixer.offered(pack, diagnostics);
    expect(first).toEqual(['automation "new-lead-welcome" edge "e5": sourceHandle "true" → handle']);
    // Another validation of an equal pack: the same array, so the panel is not drawn again.
    expect(fixer.offered(structuredClone(pack), diagnostics)).toBe(first);
    // The sourceHandle now names the other branch: an edge without a handle still leaves through
    // next, so the findings' codes and places are as before, but the offer is about "false".
    const other = structuredClone(pack);
    other.automations[0].document.graph.edges[4].sourceHandle = 'false';
    const otherDiagnostics = validatePack(other).diagnostics;
    expect(otherDiagnostics.map((d) => [d.code, d.pointer])).toEqual(diagnostics.map((d) => [d.code, d.pointer]));
    expect(fixer.offered(other, otherDiagnostics)).toEqual(['automation "new-lead-welcome" edge "e5": sourceHandle "false" → handle']);
    expect(fixer.offered(other, [])).toEqual([]);
  });
});
