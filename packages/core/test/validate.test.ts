import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { codePoints, validatePack, validateAutomationDocument, type Diagnostic } from '@setup-pack/core';
import { loadFixture, readFixture } from './helpers.js';

const codes = (ds: Diagnostic[]) => ds.map((d) => `${d.severity} ${d.code} ${d.pointer}`);

describe('validatePack', () => {
  it('accepts text and parsed objects alike', () => {
    const text = readFixture('valid/listing-marketing.json');
    expect(validatePack(text).pack).toEqual(JSON.parse(text));
    expect(validatePack(JSON.parse(text)).diagnostics).toEqual([]);
  });

  it('gives positions for text input only', () => {
    const pack = loadFixture('valid/buyer-lead-starter.json');
    pack.name = '';
    const fromText = validatePack(JSON.stringify(pack, null, 2)).diagnostics[0];
    expect(fromText).toMatchObject({ code: 'schema/too-short', pointer: '/name', line: 6, column: 11 });
    const fromObject = validatePack(pack).diagnostics[0];
    expect(fromObject.line).toBeUndefined();
    expect(fromObject.pointer).toBe('/name');
  });

  it('counts lengths in code points, as JSON Schema does', () => {
    const pack = loadFixture('valid/buyer-lead-starter.json');
    const lengthCodes = (name: string) => validatePack({ ...pack, name }).diagnostics.map((d) => d.code);
    expect(lengthCodes('🏠'.repeat(160))).toEqual([]); // 320 UTF-16 units, 160 characters
    expect(lengthCodes('🏠'.repeat(161))).toEqual(['schema/too-long']);
    expect(lengthCodes('a'.repeat(161))).toEqual(['schema/too-long']);
    expect(lengthCodes('🏠')).toEqual([]);
    expect(lengthCodes('')).toEqual(['schema/too-short']);
    // codePoints counts as the schema does: what the editor's "N / 20,000 characters" shows.
    expect(codePoints('🏠'.repeat(160))).toBe(160);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        expect(codePoints(s)).toBe([...s].length);
      }),
    );
  });

  it('places an unknown field on its name', () => {
    const text =
      '{\n  "format": "service.setup-pack",\n  "schemaVersion": 2,\n  "packId": "6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12",\n  "name": "x",\n  "version": "1",\n  "colour": 1\n}';
    const [d] = validatePack(text).diagnostics;
    expect(d).toMatchObject({ code: 'schema/unknown-field', pointer: '/colour', line: 7, column: 3 });
  });

  it('reports a node with an unknown kind once, without graph or reference noise', () => {
    const pack = loadFixture('valid/buyer-lead-starter.json');
    pack.automations[0].document.graph.nodes[0].kind = 'trigger.contact_createdd';
    expect(codes(validatePack(pack).diagnostics)).toEqual(['error schema/enum /automations/0/document/graph/nodes/0/kind']);
  });

  it('suggests the node an edge meant when only its case differs, for every dangling end', () => {
    const pack = loadFixture('valid/buyer-lead-starter.json');
    const g = pack.automations[0].document.graph;
    const [first, second] = g.nodes.map((n: { id: string }) => n.id);
    g.edges.push(...Array.from({ length: 40 }, (_, i) => ({ id: `shout${i}`, source: first.toUpperCase(), target: second })), {
      id: 'lost',
      source: first,
      target: 'nowhere',
    });
    const ds = validatePack(pack).diagnostics.filter((d) => d.code === 'graph/unknown-node');
    expect(ds).toHaveLength(41);
    expect(ds.slice(0, 40).every((d) => d.hint === `Did you mean "${first}"?` && d.pointer.endsWith('/source'))).toBe(true);
    expect(ds[40]).toMatchObject({ pointer: `/automations/0/document/graph/edges/${g.edges.length - 1}/target` });
    expect(ds[40].hint).toBeUndefined();
  });

  it('suggests the same kind for every block of one misspelt kind, and stands the graph rules down at each of them, as for one', () => {
    const pack = loadFixture('valid/buyer-lead-starter.json');
    const nodes = pack.automations[0].document.graph.nodes;
    nodes[0].kind = 'trigger.contact_createdd';
    const copies = Array.from({ length: 50 }, (_, i) => ({ ...nodes[0], id: `copy${i}`, kind: 'trigger.contact_createdd' }));
    nodes.push(...copies);
    const found = validatePack(pack).diagnostics;
    // Every misspelt block is one schema error with the same guess; none of them is also reported
    // by a graph rule (an unreachable or unwired block), whatever the number of schema errors.
    expect(found.map((d) => d.code)).toEqual(Array(51).fill('schema/enum'));
    expect(new Set(found.map((d) => d.message.slice(d.message.indexOf(' is ')))).size).toBe(1);
    expect(found[0].message).toContain('Did you mean "trigger.contact_created"?');
  });
  it('names the cycle path and the edge that closes it', () => {
    const pack = loadFixture('valid/buyer-lead-starter.json');
    pack.automations[1].document.graph.edges.push({ id: 'back', source: 'note', target: 'ai' });
    const [d] = validatePack(pack).diagnostics;
    expect(d.code).toBe('graph/cycle');
    expect(d.message).toContain('ai → note → ai');
    expect(d.pointer).toBe('/automations/1/document/graph/edges/3');
  });

  it('checks control.ai_branch handles against its declared outcomes', () => {
    const pack = loadFixture('valid/buyer-lead-starter.json');
    pack.automations[1].document.graph.edges[2].handle = 'maybe';
    const ds = validatePack(pack).diagnostics;
    expect(codes(ds)).toEqual(['error graph/invalid-handle /automations/1/document/graph/edges/2/handle']);
    expect(ds[0].message).toContain('"ready", "later"');
  });

  it('says an edge without a handle names one of its outputs in sourceHandle, which fix moves', () => {
    const pack = loadFixture('valid/buyer-lead-starter.json');
    const edges = pack.automations[0].document.graph.edges;
    const { handle, ...e5 } = edges[4]; // control.if "replied" → "task" through "true"
    edges[4] = { ...e5, sourceHandle: handle };
    const [error] = validatePack(pack).diagnostics;
    expect(error.code).toBe('graph/invalid-handle');
    expect(error.hint).toBe(
      'Its "sourceHandle" ("true") is not read: rename it "handle", or run setup-pack fix (the editor\'s Fix), which does.',
    );
    edges[4] = { ...e5, sourceHandle: 'yes' }; // not an output of control.if: moving it would not help
    expect(validatePack(pack).diagnostics[0].hint).toBe('Set "handle" to one of "true", "false".');
  });

  it('notes node and edge fields the format does not define, guessing the one meant, without making them errors', () => {
    const pack = loadFixture('valid/buyer-lead-starter.json');
    const g = pack.automations[0].document.graph;
    g.nodes[0].label = 'Start here';
    g.nodes[1]['a/b'] = 1;
    g.nodes[1].posiiton = { x: 1, y: 2 };
    // An edge written the way xyflow names it: the handle is not read, so it leaves through "next".
    g.edges[0].sourceHandle = 'next';
    const ds = validatePack(pack).diagnostics;
    expect(codes(ds)).toEqual([
      'info graph/unknown-field /automations/0/document/graph/edges/0/sourceHandle',
      'info graph/unknown-field /automations/0/document/graph/nodes/0/label',
      'info graph/unknown-field /automations/0/document/graph/nodes/1/a~1b',
      'info graph/unknown-field /automations/0/document/graph/nodes/1/posiiton',
    ]);
    expect(ds[1].message).toBe(
      `Node "${g.nodes[0].id}" has a field "label" the format does not define; it is kept as it is, but nothing reads it.`,
    );
    expect(ds[1].hint).toBe('The format defines "id", "kind", "config", "position".');
    expect(ds[3].hint).toBe('Did you mean "position"?');
    expect(ds[0].message).toBe(
      `Edge "${g.edges[0].id}" has a field "sourceHandle" the format does not define; it is kept as it is, but nothing reads it.`,
    );
    expect(ds[0].hint).toBe('Did you mean "handle"? setup-pack fix moves it there when the edge has none.');
    // Only an edge's sourceHandle is moved by fix, and only its hint says so.
    g.nodes[2].sourceHandle = 'next';
    expect(validatePack(pack).diagnostics.find((d) => d.pointer === '/automations/0/document/graph/nodes/2/sourceHandle')?.hint).toBe(
      'The format defines "id", "kind", "config", "position".',
    );
    delete g.nodes[2].sourceHandle;
    // The defined fields come from the schemas: the same pack without the extras is clean.
    delete g.nodes[0].label;
    delete g.nodes[1]['a/b'];
    delete g.nodes[1].posiiton;
    delete g.edges[0].sourceHandle;
    expect(validatePack(pack).diagnostics).toEqual([]);
  });

  it('accepts outcomes declared as objects, and does not guess when none are declared', () => {
    const pack = loadFixture('valid/buyer-lead-starter.json');
    const ai = pack.automations[1].document.graph.nodes[1];
    ai.config.outcomes = [
      { key: 'ready', label: 'Ready' },
      { key: 'later', label: 'Later' },
    ];
    expect(validatePack(pack).diagnostics).toEqual([]);
    delete ai.config.outcomes;
    const ds = validatePack(pack).diagnostics;
    expect(ds.filter((d) => d.severity === 'error')).toEqual([]);
    expect(codes(ds)).toEqual(['warning catalog/config-field /automations/1/document/graph/nodes/1/config']);
    expect(ds[0].missing).toBe('outcomes');
  });

  it('names the absent field of a finding about one (missing), pointing at the object lacking it', () => {
    const pack = loadFixture('valid/buyer-lead-starter.json');
    delete pack.packId;
    delete pack.automations[0].document.graph.nodes[6].config.template_id;
    const ds = validatePack(pack).diagnostics;
    expect(ds.find((d) => d.code === 'schema/required')).toMatchObject({ pointer: '', missing: 'packId' });
    expect(ds.find((d) => d.code === 'catalog/config-field')).toMatchObject({
      pointer: '/automations/0/document/graph/nodes/6/config',
      missing: 'template_id',
    });
    // Findings about a value that is there name nothing absent.
    pack.name = '';
    expect(validatePack(pack).diagnostics.find((d) => d.code === 'schema/too-short')!.missing).toBeUndefined();
  });

  it('never makes unspecified shapes errors: block configs, brand, resource data, filters', () => {
    const pack = loadFixture('valid/listing-marketing.json');
    pack.automations[0].document.graph.nodes[1].config = { template_id: 42, serviceOnlyField: { deep: [1, 2] } };
    pack.brand = { anything: { goes: true } };
    pack.resources[0].data = { whatever: [null] };
    pack.smartLists[0].filters = { version: 2, root: { op: 'AND', rules: [] }, serviceMeta: 1 };
    const ds = validatePack(pack).diagnostics;
    expect(ds.filter((d) => d.severity === 'error')).toEqual([]);
    expect(validatePack(pack).pack).toBeDefined();
  });

  it('is case-sensitive about sha256 hex, as the spec requires lower case', () => {
    const pack = loadFixture('valid/listing-marketing.json');
    pack.assets[0].sha256 = pack.assets[0].sha256.toUpperCase();
    expect(codes(validatePack(pack).diagnostics)).toEqual(['error schema/pattern /assets/0/sha256']);
  });

  it('uses a caller-provided hasher', () => {
    const pack = loadFixture('valid/listing-marketing.json');
    const seen: string[] = [];
    const sizes = pack.assets.map((a: { byteSize: number }) => a.byteSize);
    const ds = validatePack(pack, {
      hashBase64: (d) => (seen.push(d), { byteSize: sizes[seen.length - 1], sha256: 'f'.repeat(64) }),
    }).diagnostics;
    expect(seen.length).toBe(2);
    expect(ds.map((d) => d.code)).toEqual(['asset/sha256-mismatch', 'asset/sha256-mismatch']);
  });

  it('does not trust a lenient hasher with malformed base64', () => {
    const pack = loadFixture('valid/listing-marketing.json');
    pack.assets[0].data = pack.assets[0].data.slice(0, 8) + '!!!!' + pack.assets[0].data.slice(12);
    // A decoder that skips bad characters (as Node's Buffer does) decodes fewer bytes than the length promises.
    const lenient = (d: string) => ({ byteSize: Math.floor((d.replace(/[^A-Za-z0-9+/]/g, '').length * 3) / 4), sha256: 'f'.repeat(64) });
    const onFirst = validatePack(pack, { hashBase64: lenient }).diagnostics.filter((d) => d.pointer.startsWith('/assets/0/'));
    expect(onFirst.map((d) => d.code)).toEqual(['asset/invalid-base64']);
  });

  it('accepts schemaVersion 1 without a brand and null settings', () => {
    const pack = loadFixture('valid/buyer-lead-starter.json');
    pack.schemaVersion = 1;
    pack.brand = null;
    expect(validatePack(pack).diagnostics).toEqual([]);
  });
});

describe('validateAutomationDocument', () => {
  it('validates a document on its own, with pointers inside it', () => {
    const pack = loadFixture('valid/buyer-lead-starter.json');
    const doc = pack.automations[0].document;
    expect(validateAutomationDocument(doc).diagnostics).toEqual([]);
    doc.graph.edges.push({ id: 'x', source: 'email', target: 'start' });
    expect(codes(validateAutomationDocument(doc).diagnostics)).toEqual(['error graph/edge-into-trigger /graph/edges/6/target']);
    expect(codes(validateAutomationDocument({ format: 'nope' }).diagnostics)).toEqual([
      'error schema/required ',
      'error schema/required ',
      'error schema/required ',
      'error schema/const /format',
    ]);
  });
});

describe('one root cause, one error', () => {
  it('two edges without a string id are each a schema error, not also duplicate ids (found by the mutation property)', () => {
    const pack = structuredClone(loadFixture('valid/buyer-lead-starter.json')) as any;
    const edges = pack.automations[0].document.graph.edges;
    edges[0].id = {};
    delete edges[edges.length - 1].id;
    const codes = validatePack(JSON.stringify(pack, null, 2)).diagnostics.map((d) => d.code);
    expect(codes).not.toContain('graph/duplicate-edge-id');
    expect(codes.filter((c) => c.startsWith('schema/'))).toHaveLength(2);
  });
});
