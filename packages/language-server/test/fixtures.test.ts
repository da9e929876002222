// Every fixture pack (one per finding code in fixtures/invalid, the valid packs, the release pairs)
// opened as an editor opens a .json file: the server recognises each as a pack and publishes
// exactly the findings `setup-pack validate --format json` reports for it, code by code and range
// by range, related places included.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, FIXTURES, LspClient, readText, uriOf } from './client.js';
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
});
