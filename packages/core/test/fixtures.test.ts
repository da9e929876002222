// Every rule has a failing fixture in fixtures/invalid/<code>.json and its expected diagnostics
// (code, severity, pointer, line, column) beside it; valid fixtures give no findings at all.
import { describe, expect, it } from 'vitest';
import { RULE_METADATA, RULES, validatePack } from '@setup-pack/core';
import { listFixtures, loadFixture, readFixture } from './helpers.js';

const slug = (code: string) => code.replace('/', '-');

describe('valid fixtures', () => {
  for (const dir of ['valid', 'releases']) {
    for (const file of listFixtures(dir)) {
      it(`${dir}/${file} validates with no findings`, () => {
        const result = validatePack(readFixture(`${dir}/${file}`));
        expect(result.diagnostics).toEqual([]);
        expect(result.pack).toBeDefined();
      });
    }
  }
});

describe('invalid fixtures', () => {
  const files = listFixtures('invalid');
  for (const file of files) {
    it(`${file} gives exactly its expected diagnostics`, () => {
      const result = validatePack(readFixture(`invalid/${file}`));
      const got = result.diagnostics.map((d) => ({
        code: d.code,
        severity: d.severity,
        pointer: d.pointer,
        line: d.line,
        column: d.column,
      }));
      expect(got).toEqual(loadFixture(`expected/${file}`));
      // The fixture is named after the code it exists to show.
      expect(got.map((d) => slug(d.code))).toContain(file.replace(/\.json$/, ''));
      for (const d of result.diagnostics) {
        expect(d.message.length).toBeGreaterThan(20);
        expect(d.message).not.toMatch(/undefined|\[object Object\]/);
      }
    });
  }

  it('covers every diagnostic code core can produce', () => {
    const covered = new Set(files.map((f) => f.replace(/\.json$/, '')));
    const missing = RULE_METADATA.map((m) => m.code).filter((c) => c !== 'internal/error' && !covered.has(slug(c)));
    expect(missing).toEqual([]);
  });

  it('lists every rule module in the metadata exactly once', () => {
    const codes = RULE_METADATA.map((m) => m.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const r of RULES) expect(codes).toContain(r.meta.code);
  });
});
