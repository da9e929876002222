import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { canonicalize, formatPack, inCanonicalOrder } from './canonical.js';
import { publishedSchemas } from '../generated/schemas.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../../../fixtures/${name}`, import.meta.url), 'utf8'));

describe('canonicalize', () => {
  it('orders top-level keys as the pack schema lists its properties', () => {
    const out = canonicalize({ version: '1', name: 'x', packId: 'p', format: 'f', schemaVersion: 2, $schema: 's' });
    const schemaOrder = Object.keys(publishedSchemas.pack.properties as object);
    expect(Object.keys(out)).toEqual(schemaOrder.filter((k) => k in out));
    expect(Object.keys(out)[0]).toBe('$schema');
  });

  it('follows $ref into items, documents, graphs and nodes; unknown keys keep their order after known ones', () => {
    const pack = {
      automations: [
        {
          document: {
            graph: {
              edges: [{ target: 'b', id: 'e', source: 'a' }],
              nodes: [{ position: { y: 1, x: 2 }, zeta: 1, kind: 'k', alpha: 2, id: 'a', config: { z: 1, a: 2 } }],
            },
            name: 'n',
            format: 'f',
          },
          key: 'k',
        },
      ],
      pipelines: [{ stages: [{ stageType: 'OPEN', name: 'n', key: 's' }], key: 'p' }],
      brand: { z: 1, a: 2 },
    };
    const out = canonicalize(pack) as any;
    expect(Object.keys(out.automations[0])).toEqual(['key', 'document']);
    expect(Object.keys(out.automations[0].document)).toEqual(['format', 'name', 'graph']);
    expect(Object.keys(out.automations[0].document.graph)).toEqual(['nodes', 'edges']);
    expect(Object.keys(out.automations[0].document.graph.nodes[0])).toEqual(['id', 'kind', 'config', 'position', 'zeta', 'alpha']);
    expect(Object.keys(out.automations[0].document.graph.nodes[0].position)).toEqual(['x', 'y']);
    expect(Object.keys(out.automations[0].document.graph.nodes[0].config)).toEqual(['z', 'a']);
    expect(Object.keys(out.automations[0].document.graph.edges[0])).toEqual(['id', 'source', 'target']);
    expect(Object.keys(out.pipelines[0].stages[0])).toEqual(['key', 'name', 'stageType']);
    expect(Object.keys(out.brand)).toEqual(['z', 'a']);
  });

  it.each([
    ['canonicalize', canonicalize],
    ['inCanonicalOrder', inCanonicalOrder],
  ])('%s keeps a "__proto__" key as data and does not mutate the input', (_, order) => {
    const input = JSON.parse('{"brand":{"__proto__":{"x":1}},"name":"n"}');
    const out = order(input) as any;
    expect(Object.keys(out.brand)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(out.brand)).toBe(Object.prototype);
    expect(Object.keys(input)).toEqual(['brand', 'name']);
  });

  it('is idempotent on the fixtures and formatPack ends with one newline', () => {
    for (const f of ['valid/buyer-lead-starter.json', 'valid/listing-marketing.json']) {
      const once = formatPack(fixture(f));
      expect(formatPack(JSON.parse(once))).toBe(once);
      expect(once.endsWith('}\n')).toBe(true);
      expect(JSON.parse(once)).toEqual(fixture(f));
    }
  });

  it('leaves scalars and arrays of scalars alone', () => {
    expect(canonicalize(3)).toBe(3);
    expect(canonicalize([1, 'a', null])).toEqual([1, 'a', null]);
  });
});

import fc from 'fast-check';

describe('canonicalize properties', () => {
  it('keeps every value, and is idempotent, on any JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const once = canonicalize(v);
        expect(once).toEqual(v);
        expect(JSON.stringify(canonicalize(once))).toBe(JSON.stringify(once));
      }),
    );
  });
});

/** `value` with every object's keys in the order `pick` chooses (a shuffle), values unchanged. */
function reorder(value: unknown, pick: (n: number) => number): unknown {
  if (Array.isArray(value)) return value.map((v) => reorder(v, pick));
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  const out: Record<string, unknown> = {};
  while (keys.length) {
    const [k] = keys.splice(pick(keys.length), 1);
    Object.defineProperty(out, k, {
      value: reorder((value as Record<string, unknown>)[k], pick),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

describe('inCanonicalOrder', () => {
  it('returns a canonical pack itself, not a copy, and copies only the objects out of order and those above them', () => {
    const pack = canonicalize(fixture('valid/buyer-lead-starter.json')) as any;
    expect(inCanonicalOrder(pack)).toBe(pack);
    const node = pack.automations[0].document.graph.nodes[0];
    const moved = { kind: node.kind, id: node.id, ...node };
    pack.automations[0].document.graph.nodes[0] = moved;
    const out = inCanonicalOrder(pack) as any;
    expect(out).not.toBe(pack);
    expect(Object.keys(out.automations[0].document.graph.nodes[0])).toEqual(Object.keys(node));
    expect(out.automations[0].document.graph.nodes[1]).toBe(pack.automations[0].document.graph.nodes[1]);
    expect(out.pipelines).toBe(pack.pipelines);
    expect(out.automations[0].document.graph.nodes[0].config).toBe(node.config);
    expect(Object.keys(pack.automations[0].document.graph.nodes[0])).toEqual(Object.keys(moved)); // the input is left as it was
  });

  it('writes what canonicalize writes, and leaves its input as it was, for a pack with its keys in any order and any JSON', () => {
    const packs = ['valid/buyer-lead-starter.json', 'valid/listing-marketing.json'].map(fixture);
    fc.assert(
      fc.property(fc.constantFrom(...packs), fc.array(fc.nat(), { minLength: 1, maxLength: 64 }), (pack, picks) => {
        let i = 0;
        const shuffled = reorder(pack, (n) => picks[i++ % picks.length] % n);
        const before = JSON.stringify(shuffled);
        expect(JSON.stringify(inCanonicalOrder(shuffled))).toBe(JSON.stringify(canonicalize(shuffled)));
        expect(JSON.stringify(shuffled)).toBe(before);
      }),
      { numRuns: 60 },
    );
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const before = JSON.stringify(v);
        expect(JSON.stringify(inCanonicalOrder(v))).toBe(JSON.stringify(canonicalize(v)));
        expect(JSON.stringify(v)).toBe(before);
      }),
    );
  });
});
