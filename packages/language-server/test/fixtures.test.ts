// Every fixture pack (one per finding code in fixtures/invalid, the valid packs, the release pairs)
// opened as an editor opens a .json file: the server recognises each as a pack and publishes
// exactly the findings `setup-pack validate --format json` reports for it, code by code and range
// by range, related places included; and, all of them together, the results of its SARIF log.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, buildServer, FIXTURES, LspClient, readText, ROOT, uriOf } from './client.js';
import { cliFindingsOfFiles, fromLsp, type Finding } from './compare.js';

const packs = ['invalid', 'valid', 'releases'].flatMap((dir) =>
  readdirSync(join(FIXTURES, dir))
    .filter((f) => f.endsWith('.json') && !f.endsWith('.expected.json'))
    .map((f) => join(FIXTURES, dir, f)),
);
let client: LspClient;
let cli: Map<string, Finding[]>;

beforeAll(async () => {
  buildServer();
  cli = cliFindingsOfFiles(packs);
  client = await LspClient.start();
  for (const file of packs) await client.open(uriOf(file), readText(file));
}, 120_000);

afterAll(async () => {
  await client.stop();
});

describe('the fixture packs', () => {
  it('cover every code of fixtures/invalid', () => {
    expect(packs.filter((p) => p.includes('/invalid/')).length).toBeGreaterThanOrEqual(40);
  });

  it.each(packs.map((p) => [p.slice(FIXTURES.length + 1), p]))('%s: published diagnostics equal the CLI findings', async (_, file) => {
    const published = (await client.diagnostics(uriOf(file), 1)).map(fromLsp);
    expect(published).toEqual(cli.get(file));
    if (file.includes('/invalid/')) expect(published.length).toBeGreaterThan(0);
  });

  it("publishes, for every pack together, the CLI's SARIF results: rule, level, message and region", async () => {
    const sarif = sarifResults(packs);
    expect(sarif.length).toBeGreaterThanOrEqual(packs.filter((p) => p.includes('/invalid/')).length);
    const published: string[] = [];
    for (const file of packs) {
      const at = relative(ROOT, file).split('\\').join('/');
      for (const d of await client.diagnostics(uriOf(file), 1)) {
        const { start, end } = d.range;
        // SARIF's text is the message and its hint; the diagnostic keeps the hint for the hover.
        const hint = (d.data as { hint?: string }).hint;
        published.push(
          `${at}:${start.line + 1}:${start.character + 1}-${end.line + 1}:${end.character + 1} ${d.code} ${LEVEL[d.severity!]} ${d.message}${hint ? ` ${hint}` : ''}`,
        );
      }
    }
    expect(published.sort()).toEqual(sarif.sort());
  });
});

const LEVEL = ['', 'error', 'warning', 'note'];

interface SarifResult {
  ruleId: string;
  level: string;
  message: { text: string };
  locations: {
    physicalLocation: {
      artifactLocation: { uri: string };
      region?: { startLine: number; startColumn: number; endLine?: number; endColumn?: number };
    };
  }[];
}

/** `setup-pack validate --format sarif` on the files, each result as one line to compare. */
function sarifResults(paths: string[]): string[] {
  const r = spawnSync(process.execPath, [BIN, 'validate', '--format', 'sarif', ...paths], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: { ...process.env, NO_COLOR: '1', GITHUB_ACTIONS: '' },
  });
  if (r.status !== 0 && r.status !== 1) throw new Error(`setup-pack validate exited ${r.status}: ${r.stderr}`);
  const log = JSON.parse(r.stdout) as { runs: { columnKind: string; results: SarifResult[] }[] };
  expect(log.runs[0].columnKind).toBe('utf16CodeUnits');
  return log.runs[0].results.map(({ ruleId, level, message, locations: [{ physicalLocation: p }] }) => {
    const g = p.region ?? { startLine: 1, startColumn: 1 };
    return `${p.artifactLocation.uri}:${g.startLine}:${g.startColumn}-${g.endLine ?? g.startLine}:${g.endColumn ?? g.startColumn} ${ruleId} ${level} ${message.text}`;
  });
}
