// Properties (fast-check): validatePack never throws, every pointer it reports resolves inside
// the document, and packs generated to be valid give no errors.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { resolvePointer, validatePack, NODE_KINDS } from '@setup-pack/core';
import { loadFixture } from './helpers.js';

const fixtures = [loadFixture('valid/buyer-lead-starter.json'), loadFixture('valid/listing-marketing.json')];

function allPaths(v: unknown, path: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(path);
  if (Array.isArray(v)) v.forEach((c, i) => allPaths(c, [...path, i], out));
  else if (v && typeof v === 'object') for (const k of Object.keys(v)) allPaths((v as Record<string, unknown>)[k], [...path, k], out);
  return out;
}

type Mutation = { pick: number; op: 'set' | 'delete' | 'duplicate'; value: unknown };
function mutate(doc: unknown, muts: Mutation[]): unknown {
  const copy = structuredClone(doc);
  for (const m of muts) {
    const paths = allPaths(copy).filter((p) => p.length > 0);
    if (paths.length === 0) break;
    const path = paths[m.pick % paths.length];
    let parent = copy as Record<string | number, unknown>;
    for (const t of path.slice(0, -1)) parent = parent[t] as Record<string | number, unknown>;
    const last = path[path.length - 1];
    if (m.op === 'set') parent[last] = m.value;
    else if (m.op === 'delete') {
      if (Array.isArray(parent)) parent.splice(last as number, 1);
      else delete parent[last];
    } else if (Array.isArray(parent)) parent.push(structuredClone(parent[last as number]));
  }
  return copy;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  pick: fc.nat(),
  op: fc.constantFrom('set', 'delete', 'duplicate'),
  value: fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom('', 'next', 'true', 'each', 'start', 'trigger.manual', 'CLOSED_WON', 0, 1, -1, null),
  ),
});

function expectPointersResolve(doc: unknown, result: ReturnType<typeof validatePack>) {
  for (const d of result.diagnostics) {
    if (d.code === 'internal/error') throw new Error(d.message);
    expect(resolvePointer(doc, d.pointer).found, `${d.code} ${d.pointer}`).toBe(true);
  }
}

describe('properties', () => {
  it('arbitrary JSON never makes validatePack throw, as value or as text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const a = validatePack(v);
        const b = validatePack(JSON.stringify(v) ?? 'null');
        expectPointersResolve(v, a);
        expect(b.diagnostics.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it('arbitrary text never makes validatePack throw', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => void validatePack(s)),
      { numRuns: 300 },
    );
  });

  it('duplicate keys are reported exactly when the text repeats a name, whatever the spacing and string contents', () => {
    const ws = fc.constantFrom('', ' ', '\t', '\n ', '\r\n');
    // Values that hold quote-colon pairs, spaced or not, to upset counting shortcuts.
    const value = fc.oneof(
      fc.constantFrom('a": 1', 'x" : y', '":', '\\":', 'https://x', ' : '),
      fc.integer(),
      fc.jsonValue({ maxDepth: 1 }),
    );
    const member = fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e:', 'f"'), ws, ws, value);
    fc.assert(
      fc.property(fc.array(member, { maxLength: 6 }), fc.array(member, { maxLength: 4 }), (outer, inner) => {
        const obj = (ms: typeof outer) =>
          `{${ms.map(([k, w1, w2, v]) => `${JSON.stringify(k)}${w1}:${w2}${JSON.stringify(v)}`).join(',')}}`;
        const text = `{"pack": ${obj(outer)}, "inner": [${obj(inner)}]}`;
        const repeats = (ms: typeof outer) => new Set(ms.map((m) => m[0])).size !== ms.length;
        const found = validatePack(text).diagnostics.filter((d) => d.code === 'json/duplicate-key').length > 0;
        expect(found).toBe(repeats(outer) || repeats(inner));
      }),
      { numRuns: 500 },
    );
  });

  it('mutations of valid packs never throw, and every pointer resolves inside the document', () => {
    fc.assert(
      fc.property(fc.constantFrom(0, 1), fc.array(mutation, { minLength: 1, maxLength: 4 }), (which, muts) => {
        const doc = mutate(fixtures[which], muts);
        const text = JSON.stringify(doc, null, 2);
        const result = validatePack(text);
        expectPointersResolve(doc, result);
        for (const d of result.diagnostics) {
          expect(d.line).toBeGreaterThanOrEqual(1);
          expect(d.message).not.toMatch(/undefined|\[object Object\]/);
        }
      }),
      { numRuns: 250 },
    );
  });

  const key = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/);
  const triggers = NODE_KINDS.filter((k) => k.startsWith('trigger.'));
  const simpleActions = ['action.add_note', 'action.notify', 'action.webhook', 'control.wait'];
  const automation = fc.record({
    name: fc.string({ minLength: 1, maxLength: 40 }),
    trigger: fc.constantFrom(...triggers),
    steps: fc.array(fc.constantFrom(...simpleActions), { maxLength: 8 }),
  });
  const stageName = fc.string({ minLength: 1, maxLength: 20 });

  const validPack = fc
    .record({
      packId: fc.uuid({ version: 4 }),
      name: fc.string({ minLength: 1, maxLength: 160 }),
      version: fc.string({ minLength: 1, maxLength: 40 }),
      automationKeys: fc.uniqueArray(key, { maxLength: 5 }),
      automations: fc.array(automation, { minLength: 5, maxLength: 5 }),
      tagKeys: fc.uniqueArray(key, { maxLength: 5 }),
      stageNames: fc.uniqueArray(stageName, { minLength: 1, maxLength: 5 }),
      templates: fc.uniqueArray(key, { maxLength: 4 }),
      body: fc.string({ minLength: 1, maxLength: 200 }),
    })
    .map((r) => ({
      format: 'service.setup-pack',
      schemaVersion: 2,
      packId: r.packId,
      name: r.name,
      version: r.version,
      automations: r.automationKeys.map((k, i) => {
        const a = r.automations[i];
        const nodes = [
          { id: 'n0', kind: a.trigger, position: { x: 0, y: 0 } },
          ...a.steps.map((kind, j) => ({
            id: `n${j + 1}`,
            kind,
            config:
              kind === 'control.wait'
                ? { duration: 1, unit: 'days' }
                : kind === 'action.webhook'
                  ? { url: 'https://example.com/hook' }
                  : kind === 'action.notify'
                    ? { message: 'hi' }
                    : { body: 'note' },
          })),
        ];
        return {
          key: k,
          document: {
            format: 'service.automation-template',
            version: 1,
            name: a.name,
            graph: { nodes, edges: nodes.slice(1).map((n, j) => ({ id: `e${j}`, source: `n${j}`, target: n.id })) },
          },
        };
      }),
      messageTemplates: r.templates.map((k) => ({ key: k, name: k, channel: 'sms', body: r.body })),
      pipelines: [
        {
          key: 'p',
          name: 'P',
          stages: [
            ...r.stageNames.map((n, i) => ({ key: `s${i}`, name: `open ${n}` })),
            { key: 'won', name: 'Won', stageType: 'CLOSED_WON' },
            { key: 'lost', name: 'Lost', stageType: 'CLOSED_LOST', probability: 0 },
          ],
        },
      ],
      resources: r.tagKeys.map((k) => ({ key: k, kind: 'tag', name: k })),
    }));

  it('generated valid packs give no errors', () => {
    fc.assert(
      fc.property(validPack, (pack) => {
        const result = validatePack(JSON.stringify(pack));
        expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        expect(result.pack).toBeDefined();
      }),
      { numRuns: 150 },
    );
  });
});
