// Hostile input: every case returns diagnostics, never throws, and pollutes nothing.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeStrictBase64, isBase64, validatePack } from '@setup-pack/core';
import { readFixture } from './helpers.js';

const valid = readFixture('valid/buyer-lead-starter.json');

describe('hostile input', () => {
  it('not JSON', () => {
    const r = validatePack('packId: nope');
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ code: 'json/syntax', line: 1, column: 1 });
  });

  it('empty file', () => {
    expect(validatePack('').diagnostics[0].message).toMatch(/empty/);
    expect(validatePack('  \n').diagnostics[0].code).toBe('json/syntax');
  });

  it('truncated JSON, at every cut of a real pack', () => {
    for (let cut = 1; cut < valid.length - 2; cut += 97) {
      const r = validatePack(valid.slice(0, cut));
      expect(r.diagnostics.map((d) => d.code)).toEqual(['json/syntax']);
      expect(r.diagnostics[0].line).toBeGreaterThanOrEqual(1);
    }
  });

  it('a 100 MB string value', { timeout: 60_000 }, () => {
    const huge = 'a'.repeat(100 * 1024 * 1024);
    const r = validatePack(
      `{"format":"service.setup-pack","schemaVersion":2,"packId":"6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12","name":"${huge}","version":"1"}`,
    );
    expect(r.diagnostics.map((d) => d.code)).toEqual(['schema/too-long']);
    expect(r.diagnostics[0].message.length).toBeLessThan(300);
  });

  it('nesting 10,000 deep, as text and as an object', { timeout: 60_000 }, () => {
    const deep = '{"brand":'.repeat(10000) + '{}' + '}'.repeat(10000);
    expect(validatePack(deep).diagnostics.map((d) => d.code)).toEqual(['json/too-deep']);
    const arrays = '['.repeat(10000) + ']'.repeat(10000);
    expect(validatePack(arrays).diagnostics.map((d) => d.code)).toEqual(['json/too-deep']);
    let obj: Record<string, unknown> = {};
    const root = obj;
    for (let i = 0; i < 10000; i++) obj = (obj.next = {}) as Record<string, unknown>;
    expect(validatePack(root).diagnostics.map((d) => d.code)).toEqual(['json/too-deep']);
  });

  it('a cyclic object', () => {
    const pack = JSON.parse(valid);
    pack.brand = { self: pack };
    expect(validatePack(pack).diagnostics.map((d) => d.code)).toEqual(['json/too-deep']);
  });

  it('__proto__ and constructor keys do not pollute prototypes', () => {
    const text = valid.replace(
      '"name": "Buyer Lead Starter",',
      '"name": "Buyer Lead Starter", "__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}},',
    );
    const r = validatePack(text);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(r.diagnostics.map((d) => `${d.code} ${d.pointer}`)).toEqual([
      'schema/unknown-field /__proto__',
      'schema/unknown-field /constructor',
    ]);
    const nodeText = valid.replace('"config": { "tag_id": "tag-buyer-lead" }', '"config": {"__proto__": {"x": 1}}');
    expect(() => validatePack(nodeText)).not.toThrow();
  });

  it('duplicate keys are found and placed on the second occurrence', () => {
    const r = validatePack(
      '{"format":"service.setup-pack","schemaVersion":2,"packId":"6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12",\n"name":"a",\n"name":"b","version":"1"}',
    );
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ code: 'json/duplicate-key', severity: 'warning', pointer: '/name', line: 3, column: 1 });
    expect(r.diagnostics[0].related?.[0]).toMatchObject({ line: 2, column: 1 });
    expect(r.pack?.name).toBe('b');
  });

  it('finds duplicates when keys have white space before the colon, or string values contain quote-colon pairs', () => {
    const head = '"format":"service.setup-pack","schemaVersion":2,"packId":"6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12","version":"1"';
    const spaced = validatePack(`{${head},"name" : "a", "name"\t: "b"}`);
    expect(spaced.diagnostics.map((d) => d.code)).toEqual(['json/duplicate-key']);
    // One duplicate and one value holding '":' would balance a naive pair count.
    const balanced = validatePack(`{${head},"description": "say \\"x\\": y","name" : "a","name" : "b"}`);
    expect(balanced.diagnostics.map((d) => d.code)).toEqual(['json/duplicate-key']);
    const noDup = validatePack(`{${head},"description": "say \\"x\\": y", "name" : "a"}`);
    expect(noDup.diagnostics).toEqual([]);
  });

  it('strings with escaped quotes and colons do not confuse the duplicate-key count', () => {
    const pack = JSON.parse(valid);
    pack.messageTemplates[0].body = 'He said \\"hi\\": "x": {"y": 1} \\\\';
    expect(validatePack(JSON.stringify(pack)).diagnostics).toEqual([]);
  });

  it('non-JSON values in objects', () => {
    const pack = JSON.parse(valid);
    pack.name = () => 1;
    pack.version = 10n;
    pack.automations[0].document.graph.nodes[0] = undefined;
    const r = validatePack(pack);
    expect(r.diagnostics.length).toBeGreaterThan(0);
    expect(r.diagnostics.every((d) => d.severity === 'error' || d.severity === 'warning' || d.severity === 'info')).toBe(true);
  });

  it('top-level values that are not objects', () => {
    for (const v of [null, 1, 'x', [], true, undefined]) expect(validatePack(v).diagnostics[0].code).toMatch(/^schema\/type|json\/syntax$/);
    for (const t of ['null', '1', '"x"', '[]', 'true']) expect(validatePack(t).diagnostics.map((d) => d.code)).toEqual(['schema/type']);
    // Said in words, with an article where English wants one.
    const said = (t: string) => validatePack(t).diagnostics[0].message;
    expect(['null', '1', '"x"', '[]', 'true'].map(said)).toEqual([
      'A pack is a JSON object, not null.',
      'A pack is a JSON object, not a number.',
      'A pack is a JSON object, not a string.',
      'A pack is a JSON object, not an array.',
      'A pack is a JSON object, not a boolean.',
    ]);
    expect(validatePack(undefined).diagnostics[0].message).toBe('A pack is a JSON object, not undefined.');
  });

  it('a byte-order mark is tolerated and does not shift columns', () => {
    const pack = JSON.parse(valid);
    pack.name = '';
    const r = validatePack('\uFEFF' + JSON.stringify(pack, null, 2));
    expect(r.diagnostics[0]).toMatchObject({ code: 'schema/too-short', line: 6, column: 11 });
  });
});

describe('portable base64 check', () => {
  it('decodes through Uint8Array.fromBase64 where the platform has it, with the same verdicts as through atob', () => {
    // Node 20 has no fromBase64: stand in one with its strict semantics (white space skipped,
    // padding required, no stray bits), as browsers implement it.
    const U = Uint8Array as unknown as { fromBase64?: (s: string, o: object) => Uint8Array };
    const strictFrom = (s: string) => {
      const t = s.replace(/[\t\n\f\r ]/g, '');
      if (t.length % 4 !== 0 || Buffer.from(t, 'base64').toString('base64') !== t) throw new SyntaxError('not strict base64');
      return new Uint8Array(Buffer.from(t, 'base64'));
    };
    const alphabet = fc.constantFrom(...'ABQgwz09+/=-_ \n*'.split(''));
    const texts = fc.oneof(
      fc.string({ unit: alphabet, maxLength: 16 }),
      fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b).toString('base64')),
    );
    fc.assert(
      fc.property(texts, (s) => {
        const native = U.fromBase64;
        delete U.fromBase64;
        const viaAtob = decodeStrictBase64(s);
        U.fromBase64 = strictFrom;
        try {
          expect(decodeStrictBase64(s), JSON.stringify(s)).toEqual(viaAtob);
        } finally {
          if (native) U.fromBase64 = native;
          else delete U.fromBase64;
        }
        expect(viaAtob !== undefined).toBe(Buffer.from(s, 'base64').toString('base64') === s);
      }),
      { numRuns: 1000 },
    );
  });

  it('accepts exactly the texts that re-encode to themselves (strict, padded, canonical)', () => {
    const alphabet = fc.constantFrom(...'ABQgwz09+/=-_ \n*'.split(''));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: alphabet, maxLength: 16 }),
          fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b).toString('base64')),
        ),
        (s) => {
          expect(isBase64(s), JSON.stringify(s)).toBe(Buffer.from(s, 'base64').toString('base64') === s);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
