// The binary reads the large files `validate` is given while the command loads (bin/setup-pack.js,
// read-ahead): the report is the one the same bytes give read any other way, small files and
// other commands are read as before, a file named twice is read ahead and checked once, and a
// large file that is not an input (an option's value) is read in vain without changing the run.
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, run, tempDir } from './helpers.js';

const debug = { NODE_DEBUG: 'setup-pack' };
let dir: string;
let big: string;
let small: string;

beforeAll(() => {
  ensureBuilt();
  dir = tempDir();
  // Over a MiB: 30 automations of 200 blocks, each block with two config fields our catalog does
  // not know (an info each), and one wait whose duration is text (a warning).
  const automations = Array.from({ length: 30 }, (_, a) => {
    const nodes: unknown[] = [{ id: 'n0', kind: 'trigger.contact_created', config: {} }];
    const edges: unknown[] = [];
    for (let i = 1; i < 200; i++) {
      nodes.push(
        i === 100
          ? { id: `n${i}`, kind: 'control.wait', config: { duration: '1 day' } }
          : {
              id: `n${i}`,
              kind: 'action.add_note',
              config: { body: `Step ${i} of automation ${a}`, legacy_color: 'red', legacy_weight: i },
            },
      );
      edges.push({ id: `e${i}`, source: `n${i - 1}`, target: `n${i}` });
    }
    return {
      key: `a${a}`,
      document: { format: 'service.automation-template', version: 1, name: `Automation ${a}`, graph: { nodes, edges } },
    };
  });
  big = join(dir, 'big.json');
  writeFileSync(
    big,
    JSON.stringify(
      {
        format: 'service.setup-pack',
        schemaVersion: 2,
        packId: '8d0c2f3e-1a2b-4c3d-9e4f-5a6b7c8d9e0f',
        name: 'Read ahead',
        version: '1.0.0',
        automations,
      },
      null,
      2,
    ),
  );
  small = join(dir, 'small.json');
  writeFileSync(
    small,
    JSON.stringify(
      {
        format: 'service.setup-pack',
        schemaVersion: 2,
        packId: '8d0c2f3e-1a2b-4c3d-9e4f-5a6b7c8d9e0f',
        name: 'Small',
        version: '1.0.0',
        automations: automations.slice(0, 1),
      },
      null,
      2,
    ),
  );
});

describe('validate reads large files ahead', () => {
  it('reads a file of a MiB or more while the command loads, and reports what the same file read later gives', () => {
    expect(statSync(big).size).toBeGreaterThan(1 << 20);
    for (const format of ['json', 'sarif', 'pretty', 'github']) {
      const ahead = run(['validate', '--format', format, 'big.json'], { cwd: dir, env: debug });
      expect(ahead.stderr).toContain(`reading ahead ${big}`);
      // A glob names no file the binary could read ahead: the command reads big.json itself.
      const later = run(['validate', '--format', format, 'big.jso?'], { cwd: dir, env: debug });
      expect(later.stderr).not.toContain('reading ahead');
      expect(ahead.code).toBe(0);
      expect(ahead.stdout).toBe(later.stdout);
    }
    const report = JSON.parse(run(['validate', '--format', 'json', big]).stdout);
    expect(report.summary).toMatchObject({ errors: 0, warnings: 30, infos: 2 * 198 * 30 });
  });

  it('a large file named as an option value is read ahead in vain, and the run is unchanged', () => {
    // The binary does not know which options take values: an earlier report of a MiB or more,
    // named by -o, is read ahead, dropped once the command knows its inputs, and overwritten.
    const out = join(dir, 'report.json');
    writeFileSync(out, 'x'.repeat(2 << 20));
    const r = run(['validate', '--format', 'json', '-o', out, small], { cwd: dir, env: debug });
    expect(r.stderr).toContain(`reading ahead ${out}`);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')).files.map((f: { path: string }) => f.path)).toEqual(['small.json']);
  });

  it('reads small files, and files given to other commands, as before', () => {
    expect(run(['validate', small], { env: debug }).stderr).not.toContain('reading ahead');
    expect(run(['fmt', '--check', big], { env: debug }).stderr).not.toContain('reading ahead');
  });

  it('reads a file named twice ahead once and checks it once', () => {
    const r = run(['validate', '--format', 'json', big, 'big.json', small], { cwd: dir, env: debug });
    expect(r.stderr.match(/reading ahead (.*)/)![1]).toBe(big);
    expect(JSON.parse(r.stdout).files.map((f: { path: string }) => f.path)).toEqual(['big.json', 'small.json']);
  });
});
