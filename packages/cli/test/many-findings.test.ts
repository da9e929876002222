// A pack with thousands of findings (config fields our catalog does not know, as packs exported by
// the real service carry): every format lists or counts all of them, pretty output folds repeats,
// and a reader that closes the pipe early ends the run quietly.
import { beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, ensureBuilt, readJson, run, tempDir } from './helpers.js';

const AUTOMATIONS = 10;
const BLOCKS = 200;
// Two unknown fields on every action block: 2 × 199 × 10 infos.
const INFOS = 2 * (BLOCKS - 1) * AUTOMATIONS;
let file: string;

beforeAll(() => {
  ensureBuilt();
  const automations = Array.from({ length: AUTOMATIONS }, (_, a) => {
    const nodes = [{ id: 'n0', kind: 'trigger.contact_created', config: {} }];
    const edges = [];
    for (let i = 1; i < BLOCKS; i++) {
      nodes.push({ id: `n${i}`, kind: 'action.add_note', config: { body: `Step ${i}`, legacy_color: 'red', legacy_weight: i } as never });
      edges.push({ id: `e${i}`, source: `n${i - 1}`, target: `n${i}` });
    }
    return {
      key: `a${a}`,
      document: { format: 'service.automation-template', version: 1, name: `Automation ${a}`, graph: { nodes, edges } },
    };
  });
  const pack = {
    format: 'service.setup-pack',
    schemaVersion: 2,
    packId: '8d0c2f3e-1a2b-4c3d-9e4f-5a6b7c8d9e0f',
    name: 'Many findings',
    version: '1.0.0',
    automations,
  };
  file = join(tempDir(), 'many.json');
  writeFileSync(file, JSON.stringify(pack, null, 2));
});

describe('validate with thousands of findings', () => {
  it('pretty folds repeats of one message into one entry with a count and positions, and counts every finding', () => {
    const r = run(['validate', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`0 errors, 0 warnings, ${INFOS.toLocaleString('en-US')} infos in 1 file`);
    expect(r.stdout).toMatch(/config\.legacy_color of action\.add_note node "n1" is not in our catalog.*\n/);
    // The repeats listed name what sets each apart from the first (its node), then where it is: the
    // unknown field's name.
    expect(r.stdout).toContain(
      `and ${(INFOS / 2 - 1).toLocaleString('en-US')} more like it (catalog/unknown-config-field): "n2" at 35:17, "n3" at 44:17, "n4" at 53:17, "n5" at 62:17, "n6" at 71:17, and ${(INFOS / 2 - 6).toLocaleString('en-US')} more\n`,
    );
    expect(r.stdout).toContain('--expand prints every one');
    expect(r.stdout.split('\n').length).toBeLessThan(60);
  });

  it('--expand prints every finding', () => {
    const r = run(['validate', '--expand', file]);
    expect(r.stdout.match(/ info /g)?.length).toBe(INFOS);
  });

  it('json and sarif list every finding, each with its position', () => {
    const json = run(['validate', '--format', 'json', file]);
    const report = JSON.parse(json.stdout);
    expect(report.summary.infos).toBe(INFOS);
    expect(report.files[0].diagnostics).toHaveLength(INFOS);
    expect(report.files[0].diagnostics.every((d: { line: number | null }) => typeof d.line === 'number')).toBe(true);
    const sarif = JSON.parse(run(['validate', '--format', 'sarif', file]).stdout);
    expect(sarif.runs[0].results).toHaveLength(INFOS);
    expect(
      sarif.runs[0].results.every(
        (x: { locations: { physicalLocation: { region?: unknown } }[] }) => x.locations[0].physicalLocation.region,
      ),
    ).toBe(true);
  });

  it('a report file streamed with -o holds the same document as stdout', () => {
    const out = join(tempDir(), 'report.json');
    const r = run(['validate', '--format', 'json', '-o', out, file]);
    expect(r.code).toBe(0);
    expect(readJson(out).files[0].diagnostics).toHaveLength(INFOS);
  });

  it('github stays within the notice cap, folds the rest into the log and ends with a summary', () => {
    const r = run(['validate', '--format', 'github', file]);
    const lines = r.stdout.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('::notice')).length).toBe(10);
    expect(lines.length).toBeLessThan(20);
    expect(lines.at(-1)).toMatch(
      /^setup-pack: 0 errors, 0 warnings, \d{1,3}(,\d{3})* infos in 1 file \(\d{1,3}(,\d{3})* more findings listed above without annotations/,
    );
  });

  it('a reader that closes the pipe early ends the run quietly with the run’s exit code', async () => {
    const child = spawn(process.execPath, [BIN, 'validate', '--expand', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
