// SARIF results are written as text by hand (sarifResult), JSON findings as records stringified a
// batch at a time (findingRecord, LazyArray `records`), one per line. Each line must be exactly the
// text JSON.stringify gives for the item the report's schema describes, for any finding: optional
// parts present or not, any characters in messages and pointers. The objects below are that
// description, in its key order.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Diagnostic } from '@setup-pack/core';
import { findingRecord } from './json.js';
import { jsonChunks, LazyArray } from './stream.js';
import { sarifResult } from './sarif.js';

const LEVEL = { error: 'error', warning: 'warning', info: 'note' } as const;

function findingObject(d: Diagnostic) {
  return {
    code: d.code,
    severity: d.severity,
    message: d.message,
    pointer: d.pointer,
    line: d.line ?? null,
    column: d.column ?? null,
    endLine: d.endLine ?? null,
    endColumn: d.endColumn ?? null,
    ...(d.hint ? { hint: d.hint } : {}),
    ...(d.missing ? { missing: d.missing } : {}),
    ...(d.related?.length
      ? { related: d.related.map((x) => ({ pointer: x.pointer, message: x.message, line: x.line ?? null, column: x.column ?? null })) }
      : {}),
  };
}

function resultObject(d: Diagnostic, ruleIndex: number, artifactLocation: { uri: string; uriBaseId?: string }, fingerprint: string) {
  const region =
    d.line !== undefined
      ? {
          startLine: d.line,
          startColumn: d.column ?? 1,
          ...(d.endLine !== undefined ? { endLine: d.endLine, endColumn: d.endColumn ?? (d.column ?? 1) + 1 } : {}),
        }
      : undefined;
  return {
    ruleId: d.code,
    ruleIndex,
    level: LEVEL[d.severity],
    message: { text: d.hint ? `${d.message} ${d.hint}` : d.message },
    locations: [
      {
        physicalLocation: { artifactLocation, ...(region ? { region } : {}) },
        logicalLocations: [{ fullyQualifiedName: d.pointer || '/', kind: 'element' }],
      },
    ],
    ...(d.related?.length
      ? {
          relatedLocations: d.related.map((x, i) => ({
            id: i + 1,
            message: { text: x.message },
            physicalLocation: {
              artifactLocation,
              ...(x.line !== undefined ? { region: { startLine: x.line, startColumn: x.column ?? 1 } } : {}),
            },
          })),
        }
      : {}),
    partialFingerprints: { 'setupPackPath/v2': fingerprint },
    properties: { pointer: d.pointer, ...(d.missing ? { missing: d.missing } : {}) },
  };
}

const text = fc.string({ unit: 'binary', maxLength: 40 });
const position = fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: undefined });
const diagnostic: fc.Arbitrary<Diagnostic> = fc.record(
  {
    code: fc.constantFrom('graph/cycle', 'catalog/unknown-config-field', 'schema/type', 'a"b\\c'),
    severity: fc.constantFrom('error', 'warning', 'info'),
    message: text,
    pointer: fc.oneof(
      fc.constant(''),
      fc.constant('/'),
      text.map((s) => `/${s}`),
    ),
    line: position,
    column: position,
    endLine: position,
    endColumn: position,
    hint: fc.option(text, { nil: undefined }),
    missing: fc.option(text, { nil: undefined }),
    related: fc.option(
      fc.array(fc.record({ pointer: text, message: text, line: position, column: position }, { requiredKeys: ['pointer', 'message'] }), {
        maxLength: 3,
      }),
      { nil: undefined },
    ),
  },
  { requiredKeys: ['code', 'severity', 'message', 'pointer'] },
);

const artifacts = [{ uri: 'packs/p.json', uriBaseId: '%SRCROOT%' }, { uri: 'file:///tmp/a%20b/%22q%22.json' }];

describe('findings and results written by hand', () => {
  it('JSON findings, written a batch at a time, are one line each with the text JSON.stringify gives for each', () => {
    fc.assert(
      fc.property(fc.array(diagnostic, { maxLength: 700 }), (list) => {
        const text = [...jsonChunks({ diagnostics: new LazyArray(list.map(findingRecord), 'records', '{"code":') })].join('');
        const want = list.length
          ? `{\n  "diagnostics": [\n${list.map((d) => `    ${JSON.stringify(findingObject(d))}`).join(',\n')}\n  ]\n}`
          : '{\n  "diagnostics": []\n}';
        expect(text).toBe(want);
      }),
      { numRuns: 60 },
    );
  });

  it('a SARIF result is the text JSON.stringify gives for it', () => {
    fc.assert(
      fc.property(diagnostic, fc.nat(40), fc.constantFrom(...artifacts), (d, ruleIndex, artifact) => {
        const fingerprint = '0123456789abcdef0123456789abcdef';
        const head = `{"ruleId":${JSON.stringify(d.code)},"ruleIndex":${ruleIndex},"level":`;
        expect(sarifResult(d, head, artifact, JSON.stringify(artifact), fingerprint)).toBe(
          JSON.stringify(resultObject(d, ruleIndex, artifact, fingerprint)),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('writes a finding in the documented key order', () => {
    const d: Diagnostic = {
      code: 'x/y',
      severity: 'warning',
      message: 'm',
      pointer: '/a',
      line: 1,
      column: 2,
      hint: 'h',
      missing: 'stage_id',
    };
    expect(JSON.stringify(findingRecord(d))).toBe(
      '{"code":"x/y","severity":"warning","message":"m","pointer":"/a","line":1,"column":2,"endLine":null,"endColumn":null,"hint":"h","missing":"stage_id"}',
    );
  });
});
