// Pretty output and GitHub annotations print a few findings of many, so validate asks core for
// findings in document order without positions and places only those these formats print. Their
// output must be what placing every finding gives, byte for byte: on every fixture and on a pack
// with tens of thousands of findings.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { placeFindings, RULE_METADATA, validatePack } from '@setup-pack/core';
import { makeLimitPack } from '../../core/bench/limit-pack.mjs';
import { nodeHasher } from '../src/lib/hasher.js';
import { makeColors } from '../src/lib/color.js';
import { prettyChunks } from '../src/report/pretty.js';
import { githubChunks } from '../src/report/github.js';
import type { FileReport, ReportOptions } from '../src/report/model.js';
import { CLI_FIXTURES, FIXTURES } from './helpers.js';

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? jsonFiles(p) : p.endsWith('.json') ? [p] : [];
  });
}

/** Each text as a report placed in full (the default) and as one placed on demand. */
function reports(texts: [string, string][]): { placed: FileReport[]; onDemand: FileReport[] } {
  const placed: FileReport[] = [];
  const onDemand: FileReport[] = [];
  for (const [path, text] of texts) {
    const full = validatePack(text, { hashBase64: nodeHasher });
    placed.push({ path, text, diagnostics: full.diagnostics });
    const lazy = validatePack(text, { hashBase64: nodeHasher, place: false });
    onDemand.push({ path, text, diagnostics: lazy.diagnostics, place: (findings) => placeFindings(lazy, findings) });
  }
  return { placed, onDemand };
}

const base: ReportOptions = { cwd: '/work', rules: RULE_METADATA, toolVersion: '0.0.0', workspaceRoot: '/work' };
const variants: [string, ReportOptions][] = [
  ['default', base],
  ['quiet', { ...base, quiet: true }],
  ['expand', { ...base, expand: true }],
  ['max-warnings', { ...base, maxWarnings: 0 }],
];

function expectSameOutput(texts: [string, string][]): void {
  // GitHub's cap counts annotations across files, so the files go in one report as well as alone.
  for (const set of [texts, ...texts.map((t) => [t])]) {
    for (const [name, options] of variants) {
      const { placed, onDemand } = reports(set);
      for (const colors of [false, true]) {
        const want = [...prettyChunks(placed, options, makeColors(colors))].join('');
        expect([...prettyChunks(onDemand, options, makeColors(colors))].join(''), `pretty ${name} ${set.map((t) => t[0])}`).toBe(want);
      }
      const { placed: p2, onDemand: o2 } = reports(set);
      expect([...githubChunks(o2, options)].join(''), `github ${name} ${set.map((t) => t[0])}`).toBe(
        [...githubChunks(p2, options)].join(''),
      );
    }
  }
}

/** A pack whose findings test the order: unknown fields out of alphabetical order, escaped names, missing fields, findings on property names. */
function trickyPack(): string {
  const nodes: unknown[] = [{ id: 'n0', kind: 'trigger.contact_created', config: {} }];
  const edges: unknown[] = [];
  for (let i = 1; i < 40; i++) {
    const config: Record<string, unknown> = {
      zeta_legacy: i,
      body: `Step ${i}`,
      'a/b~c': true,
      alpha_legacy: { nested: [1, 2, { deep: i }] },
    };
    if (i % 7 === 0) delete config.body; // a missing required field: placed on its object
    nodes.push({ id: `n${i}`, kind: 'action.add_note', ...(i % 5 === 0 ? { colour: 'red' } : {}), config });
    edges.push({ id: `e${i}`, source: `n${i - 1}`, target: `n${i}` });
  }
  const automations = [0, 1, 2].map((a) => ({
    key: `a${a}`,
    zz_unknown: a,
    document: { format: 'service.automation-template', version: 1, name: `Automation ${a}`, graph: { nodes, edges } },
  }));
  return JSON.stringify(
    {
      format: 'service.setup-pack',
      zebra: 1,
      schemaVersion: 2,
      packId: '8d0c2f3e-1a2b-4c3d-9e4f-5a6b7c8d9e0f',
      name: 'Tricky',
      version: '1.0.0',
      automations,
      apple: 2,
    },
    null,
    2,
  );
}

describe('pretty and github output with findings placed on demand', () => {
  it('is what placing every finding gives, on every fixture', () => {
    const files = [...jsonFiles(FIXTURES), ...jsonFiles(CLI_FIXTURES)].filter((f) => !f.endsWith('.schema.json'));
    expect(files.length).toBeGreaterThan(50);
    const texts = files.map((f): [string, string] => [f.slice(FIXTURES.length - 'fixtures/'.length), readFileSync(f, 'utf8')]);
    // Each alone, and all in one report (the annotation cap spans files).
    for (const t of texts) expectSameOutput([t]);
    for (const [name, options] of variants) {
      const { placed, onDemand } = reports(texts);
      expect([...githubChunks(onDemand, options)].join(''), name).toBe([...githubChunks(placed, options)].join(''));
    }
  });

  it('is what placing every finding gives, on a pack whose findings are out of alphabetical order and on names', () => {
    const text = trickyPack();
    const lazy = validatePack(text, { place: false });
    // The order came from the parsed pack, not from positions.
    expect(lazy.diagnostics.length).toBeGreaterThan(100);
    expect(lazy.diagnostics.every((d) => d.line === undefined)).toBe(true);
    expect(new Set(lazy.diagnostics.map((d) => d.code)).size).toBeGreaterThan(2);
    expectSameOutput([['tricky.json', text]]);
  });

  it('is what placing every finding gives, on the pack at every limit with 43,780 findings', { timeout: 120_000 }, () => {
    const text = JSON.stringify(makeLimitPack({ assetBytes: 1024, unknownFields: 2, textDurations: true }), null, 2);
    const { placed, onDemand } = reports([['noisy.json', text]]);
    expect(onDemand[0].diagnostics.length).toBe(43_780);
    let placedNow = 0;
    const counting: FileReport = { ...onDemand[0], place: (findings) => ((placedNow += findings.length), onDemand[0].place!(findings)) };
    expect([...prettyChunks([counting], base, makeColors(true))].join('')).toBe([...prettyChunks(placed, base, makeColors(true))].join(''));
    // Only what was printed was placed.
    expect(placedNow).toBeLessThan(100);
    expect(onDemand[0].diagnostics.filter((d) => d.line !== undefined).length).toBeLessThan(100);
    expect([...githubChunks(onDemand, base)].join('')).toBe([...githubChunks(placed, base)].join(''));
  });
});
