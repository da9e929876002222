// fmt on pack source folders: each JSON file build reads is rewritten where it stands in the
// canonical form unpack writes (sourceFileText), and nothing else is touched; build gives the
// same pack before and after.
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatPack } from '@setup-pack/core';
import { ensureBuilt, readJson, ROOT, run, tempDir } from './helpers.js';
import { packArb, shuffled } from './arbitraries.js';
import { main } from '../src/main.js';
import { makeColors } from '../src/lib/color.js';
import { sourceRole, unpackToFiles } from '../src/source/layout.js';
import { readTree, writeTree } from '../src/source/tree.js';
import { buildTree } from '../src/source/compile.js';

beforeAll(() => ensureBuilt());

const fixturePath = (f: string) => join(ROOT, 'fixtures', f);
const STAMP = '2031-05-06T07:08:09Z';

/** Every file below `dir`: path inside it → its bytes and when it was last written (nanoseconds). */
function snapshot(dir: string): Map<string, { text: string; mtime: bigint }> {
  const out = new Map<string, { text: string; mtime: bigint }>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const abs = join(e.parentPath, e.name);
    out.set(abs.slice(dir.length + 1), { text: readFileSync(abs).toString('base64'), mtime: statSync(abs, { bigint: true }).mtimeNs });
  }
  return out;
}

/** The JSON files of a source folder that fmt formats (those with a role), as paths inside it. */
const jsonFiles = (dir: string) => [...snapshot(dir).keys()].filter((p) => sourceRole(p) !== undefined).sort();

const unpacked = (fixture: string) => {
  const dir = join(tempDir(), 'src');
  const u = run(['unpack', fixturePath(fixture), dir]);
  expect(u.code, u.stderr).toBe(0);
  return dir;
};

/** Rewrites a JSON file with every object's keys shuffled (seeded), 3-space indentation and no final newline. */
function messUp(dir: string, rel: string, seed = 1): void {
  const abs = join(dir, rel);
  writeFileSync(abs, JSON.stringify(shuffled(JSON.parse(readFileSync(abs, 'utf8')), seed), null, 3));
}

/** The pack the folder builds, exportedAt aside. */
function built(dir: string): unknown {
  const b = run(['build', dir, '--exported-at', STAMP]);
  expect(b.code, b.stderr).toBe(0);
  const { exportedAt: _, ...pack } = JSON.parse(b.stdout);
  return pack;
}

describe('fmt on a pack source folder', () => {
  it.each(['valid/buyer-lead-starter.json', 'valid/listing-marketing.json', 'releases/buyer-lead-1.1.0.json'])(
    'finds every file of a folder unpack wrote from %s formatted, writes nothing, and so for each file named alone',
    (fixture) => {
      const dir = unpacked(fixture);
      const before = snapshot(dir);
      const files = jsonFiles(dir);
      expect(files).toContain('manifest.json');
      const check = run(['fmt', '--check', dir]);
      expect(check.code, check.stderr).toBe(0);
      expect(check.stdout).toBe(`✔ ${files.length} files already formatted\n`);
      expect(check.stderr).toBe('');
      const fmt = run(['fmt', dir]);
      expect(fmt.code, fmt.stderr).toBe(0);
      expect(snapshot(dir)).toEqual(before);
      // As the pre-commit hook passes them: every file of the folder by its own name, template
      // bodies and asset files included (those are skipped, with a note).
      const each = run(['fmt', '--check', ...[...before.keys()].map((p) => join(dir, p))]);
      expect(each.code, each.stderr).toBe(0);
      expect(each.stdout).toBe(`✔ ${files.length} files already formatted\n`);
      for (const p of before.keys()) if (!files.includes(p)) expect(each.stderr).toContain(`${p}: skipped`);
      expect(snapshot(dir)).toEqual(before);
    },
  );

  it('formats a folder with shuffled keys and odd indentation: --check passes then, build gives the same pack, and nothing else is touched', () => {
    const dir = unpacked('valid/listing-marketing.json');
    const files = jsonFiles(dir);
    files.forEach((f, i) => messUp(dir, f, i));
    const others = [...snapshot(dir)].filter(([p]) => !files.includes(p));
    const pack = built(dir);
    const r = run(['fmt', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').sort()).toEqual(files.map((f) => `${join(dir, f)}: formatted`).sort());
    expect(run(['fmt', '--check', dir]).code).toBe(0);
    expect(built(dir)).toEqual(pack);
    const after = snapshot(dir);
    for (const [p, s] of others) expect(after.get(p), p).toEqual(s);
    for (const f of files) expect(readFileSync(join(dir, f), 'utf8')).toMatch(/^[{[][^]*\n$/);
  });

  it("gives back unpack's bytes for files only re-indented or with the schemas' keys reordered at their top", () => {
    const dir = unpacked('valid/buyer-lead-starter.json');
    const canonical = new Map(jsonFiles(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
    for (const f of canonical.keys()) {
      const value = JSON.parse(canonical.get(f)!);
      const top = Array.isArray(value) ? value : Object.fromEntries(Object.entries(value).reverse());
      writeFileSync(join(dir, f), `\uFEFF${JSON.stringify(top, null, '\t').replace(/\n/g, '\r\n')}\r\n\r\n`);
    }
    const r = run(['fmt', dir]);
    expect(r.code, r.stderr).toBe(0);
    for (const [f, text] of canonical) expect(readFileSync(join(dir, f), 'utf8'), f).toBe(text);
  });

  it('keeps a template body written inline in its .json file there, in its place', () => {
    const dir = unpacked('valid/buyer-lead-starter.json');
    const pack = built(dir);
    const html = readdirSync(join(dir, 'templates')).find((f) => f.endsWith('.html'))!;
    const json = join(dir, 'templates', html.replace(/\.html$/, '.json'));
    const body = readFileSync(join(dir, 'templates', html), 'utf8');
    rmSync(join(dir, 'templates', html));
    writeFileSync(json, JSON.stringify({ body, ...readJson(json) }));
    expect(built(dir)).toEqual(pack);
    const r = run(['fmt', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${json}: formatted\n`);
    const after = readJson(json);
    expect(after.body).toBe(body);
    expect(Object.keys(after)).toEqual(['name', 'channel', 'category', 'subject', 'body', 'richTextDoc']);
    expect(readdirSync(join(dir, 'templates'))).not.toContain(html);
    expect(built(dir)).toEqual(pack);
  });

  it('reports a file that does not parse with its line and column, leaves it as it is, and formats the others (exit 1)', () => {
    const dir = unpacked('valid/listing-marketing.json');
    const canonical = new Map(jsonFiles(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
    for (const f of canonical.keys()) writeFileSync(join(dir, f), JSON.stringify(JSON.parse(canonical.get(f)!)));
    const broken = 'automations/open-house-invite.json';
    const bad = '{\n  "format": "service.automation-template",\n  "name": "Open house" "x"\n}\n';
    writeFileSync(join(dir, broken), bad);
    const r = run(['fmt', 'src'], { cwd: join(dir, '..') });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^src\/automations\/open-house-invite\.json:3:\d+ error The file is not valid JSON/m);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(readFileSync(join(dir, broken), 'utf8')).toBe(bad);
    for (const [f, text] of canonical) if (f !== broken) expect(readFileSync(join(dir, f), 'utf8'), f).toBe(text);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(canonical.size - 1);
  });

  it("formats the other files as the layout's while manifest.json does not parse, and never an asset file as a pack", () => {
    const dir = unpacked('valid/listing-marketing.json');
    const canonical = new Map(jsonFiles(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
    for (const f of canonical.keys()) writeFileSync(join(dir, f), JSON.stringify(JSON.parse(canonical.get(f)!)));
    const manifest = readFileSync(join(dir, 'manifest.json'), 'utf8').replace('"format":', '"format" ');
    writeFileSync(join(dir, 'manifest.json'), manifest);
    writeFileSync(join(dir, 'assets', 'data.json'), '{"b": 1,   "a": 2}');
    for (const args of [[dir], [`${dir}/**/*.json`]]) {
      const r = run(['fmt', ...args]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${join(dir, 'manifest.json')}:1:`);
      expect(readFileSync(join(dir, 'manifest.json'), 'utf8')).toBe(manifest);
      expect(readFileSync(join(dir, 'assets', 'data.json'), 'utf8')).toBe('{"b": 1,   "a": 2}');
      for (const [f, text] of canonical) if (f !== 'manifest.json') expect(readFileSync(join(dir, f), 'utf8'), f).toBe(text);
    }
  });

  it('--check lists exactly the files that are not formatted, writes nothing, and exits 1', () => {
    const dir = unpacked('valid/listing-marketing.json');
    const messy = ['manifest.json', 'assets.json', 'resources/tag.json', jsonFiles(dir).find((f) => f.startsWith('templates/'))!].sort();
    for (const f of messy) messUp(dir, f);
    const before = snapshot(dir);
    const r = run(['fmt', '--check', 'src'], { cwd: join(dir, '..') });
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines.slice(0, -1).sort()).toEqual(messy.map((f) => `src/${f}: not formatted`));
    expect(lines.at(-1)).toBe(`${messy.length} of ${jsonFiles(dir).length} files not formatted; run 'setup-pack fmt' on them.`);
    expect(snapshot(dir)).toEqual(before);
  });

  it('re-indents a file of the wrong shape for its role and leaves its keys in their order; build reports the shape', () => {
    const dir = unpacked('valid/buyer-lead-starter.json');
    const automation = join(dir, 'automations', 'new-lead-welcome.json');
    writeFileSync(automation, '[{"name": "x",    "format": "service.automation-template"}, 3]');
    const tags = join(dir, 'resources', 'tag.json');
    writeFileSync(tags, '{"name": "n", "key": "k"}');
    const r = run(['fmt', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(automation, 'utf8')).toBe('[\n  {\n    "name": "x",\n    "format": "service.automation-template"\n  },\n  3\n]\n');
    expect(readFileSync(tags, 'utf8')).toBe('{\n  "name": "n",\n  "key": "k"\n}\n');
    expect(run(['fmt', '--check', dir]).code).toBe(0);
    const b = run(['build', dir]);
    expect(b.code).toBe(1);
    expect(b.stderr).toContain('resources/tag.json must hold an array of resources');
    expect(b.stderr).not.toContain('internal error');
  });

  it('never touches template bodies, asset files, dot files or other top-level files, in a folder or named', () => {
    const dir = unpacked('valid/listing-marketing.json');
    const odd = '{"b": 1,   "a": 2}';
    for (const f of [
      'README.json',
      'package.json',
      'automations/.draft.json',
      '.vscode/settings.json',
      'assets/data.json',
      'assets/deep/more.json',
    ]) {
      mkdirSync(join(dir, f, '..'), { recursive: true });
      writeFileSync(join(dir, f), odd);
    }
    const before = snapshot(dir);
    for (const args of [
      [dir],
      [`${dir}/**/*.json`],
      [join(dir, 'README.json'), join(dir, 'automations/.draft.json'), join(dir, 'assets/deep/more.json'), join(dir, 'templates')],
    ]) {
      const r = run(['fmt', ...args]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/already formatted\n$/);
      expect(snapshot(dir)).toEqual(before);
    }
    const named = run([
      'fmt',
      join(dir, 'README.json'),
      join(dir, 'assets/deep/more.json'),
      ...readdirSync(join(dir, 'templates')).map((f) => join(dir, 'templates', f)),
    ]);
    expect(named.stderr).toContain(
      `${join(dir, 'README.json')}: skipped, in the source folder ${dir}/ but not one of the JSON files build reads`,
    );
    expect(named.stderr).toContain(
      `${join(dir, 'assets/deep/more.json')}: skipped, an asset file of the source folder ${dir}/ (fmt never changes an asset's bytes)`,
    );
    expect(named.stderr).toMatch(/templates\/[^/]+\.html: skipped/);
  });

  it('leaves a file with a property written twice as it is and says why (exit 1)', () => {
    const dir = unpacked('valid/buyer-lead-starter.json');
    const list = join(dir, 'smart-lists', readdirSync(join(dir, 'smart-lists'))[0]);
    const text = readFileSync(list, 'utf8').replace('{\n', '{\n  "name": "first",\n');
    writeFileSync(list, text);
    const r = run(['fmt', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'The property "name" appears more than once in this object; only the last one counts. fmt leaves the file as it is',
    );
    expect(r.stderr).toMatch(/smart-lists\/[^:]+\.json:\d+:\d+ error/);
    expect(readFileSync(list, 'utf8')).toBe(text);
  });

  it('says a link in the folder that leads to nothing cannot be read (exit 2), and formats the rest', () => {
    const dir = unpacked('valid/buyer-lead-starter.json');
    rmSync(join(dir, 'resources', 'tag.json'));
    symlinkSync('../../gone.json', join(dir, 'resources', 'tag.json'));
    const automation = readdirSync(join(dir, 'automations'))[0];
    writeFileSync(join(dir, 'automations', automation), JSON.stringify(readJson(join(dir, 'automations', automation))));
    const r = run(['fmt', dir]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `resources/tag.json: error cannot read the file: it is a symbolic link to '../../gone.json', which does not exist`,
    );
    expect(r.stderr).toContain('1 file could not be read');
    expect(r.stdout).toContain(`automations/${automation}: formatted`);
  });

  it('does not write through a link that leads out of the repository', () => {
    const outside = join(tempDir(), 'tags.json');
    writeFileSync(outside, '[{"name": "n",   "key": "k"}]');
    const dir = unpacked('valid/buyer-lead-starter.json');
    rmSync(join(dir, 'resources', 'tag.json'));
    symlinkSync(outside, join(dir, 'resources', 'tag.json'));
    for (const args of [[dir], [join(dir, 'resources', 'tag.json')]]) {
      const r = run(['fmt', ...args]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        `resources/tag.json: skipped, a link to ${realpathSync(outside)}, outside the source folder (no repository holds it): build reads no file from outside it`,
      );
      expect(readFileSync(outside, 'utf8')).toBe('[{"name": "n",   "key": "k"}]');
    }
  });
});

describe('fmt on source folders of random packs (in process)', () => {
  /** Runs the CLI in this process (as the binary does), capturing what it writes. */
  async function cli(args: string[]) {
    let stdout = '';
    let stderr = '';
    const ctx = {
      cwd: ROOT,
      env: {},
      stdout: { write: (t: string) => ((stdout += t), true) },
      stderr: { write: (t: string) => ((stderr += t), true) },
      colors: () => makeColors(false),
    };
    const code = await main(args, ctx);
    return { code, stdout, stderr };
  }
  /** What build makes of the folder, whether or not it validates: the pack in canonical form and the build's own findings. */
  async function compiled(dir: string) {
    const b = buildTree(await readTree(dir), STAMP);
    return { pack: b.pack && formatPack(b.pack), codes: b.diagnostics.map((d) => `${d.file} ${d.code}`).sort() };
  }
  const layout = (rel: string) => sourceRole(rel) !== undefined;

  // How a person might leave a file: keys in another order, other indentation, CRLF, a BOM, no final newline.
  const messArb = fc.record({
    shuffle: fc.option(fc.integer(), { nil: undefined }),
    indent: fc.constantFrom(0, 1, 3, 4, '\t'),
    crlf: fc.boolean(),
    bom: fc.boolean(),
    end: fc.constantFrom('', '\n', '\n\n'),
  });
  type Mess = typeof messArb extends fc.Arbitrary<infer T> ? T : never;
  const mess = (text: string, m: Mess) => {
    const value = JSON.parse(text);
    let out = JSON.stringify(m.shuffle === undefined ? value : shuffled(value, m.shuffle), null, m.indent) + m.end;
    if (m.crlf) out = out.replace(/\n/g, '\r\n');
    return (m.bom ? '\uFEFF' : '') + out;
  };

  it("unpack's folder is formatted; a folder messed up formats to one that builds the same pack, and formatting again changes nothing", async () => {
    await fc.assert(
      fc.asyncProperty(
        packArb,
        fc.array(fc.option(messArb, { nil: undefined }), { minLength: 40, maxLength: 40 }),
        async (pack, messes) => {
          const dir = join(tempDir(), 'src');
          const files = unpackToFiles(pack);
          await writeTree(dir, dir, files);
          const clean = snapshot(dir);
          const check = await cli(['fmt', '--check', dir]);
          expect(check.code, check.stdout + check.stderr).toBe(0);
          expect(snapshot(dir)).toEqual(clean);

          const json = [...files.keys()].filter(layout).sort();
          json.forEach((f, i) => {
            const m = messes[i % messes.length];
            if (m) writeFileSync(join(dir, f), mess(readFileSync(join(dir, f), 'utf8'), m));
          });
          const messy = snapshot(dir);
          const before = await compiled(dir);
          const r = await cli(['fmt', dir]);
          expect(r.code, r.stderr).toBe(0);
          expect(await compiled(dir)).toEqual(before);
          const formatted = snapshot(dir);
          for (const [p, s] of messy) {
            if (!layout(p))
              expect(formatted.get(p), p).toEqual(s); // bodies and asset bytes untouched
            else
              expect(JSON.parse(readFileSync(join(dir, p), 'utf8')), p).toEqual(
                JSON.parse(
                  Buffer.from(s.text, 'base64')
                    .toString('utf8')
                    .replace(/^\uFEFF/, ''),
                ),
              ); // the same values
          }
          expect((await cli(['fmt', '--check', dir])).code).toBe(0);
          expect((await cli(['fmt', dir])).stdout).toMatch(/already formatted\n$/);
          expect(snapshot(dir)).toEqual(formatted);
          rmSync(join(dir, '..'), { recursive: true, force: true });
        },
      ),
      { numRuns: 60 },
    );
  });
});
