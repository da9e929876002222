import { beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { CLI_FIXTURES, ensureBuilt, FIXTURES, readJson, ROOT, run, tempDir } from './helpers.js';

beforeAll(() => ensureBuilt());

const valid = ['fixtures/valid/buyer-lead-starter.json', 'fixtures/valid/listing-marketing.json'];
const broken = 'packages/cli/test/fixtures/broken.json';
const ESC = '\u001b[';

describe('validate: pretty', () => {
  it('passes the valid fixtures with exit 0 and a summary', () => {
    const r = run(['validate', ...valid, 'fixtures/releases/*.json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('0 errors, 0 warnings in 4 files');
  });

  it('reports file:line:col, severity, code, message and a caret under the spot', () => {
    const r = run(['validate', broken]);
    expect(r.code).toBe(1);
    const lines = readFileSync(join(ROOT, broken), 'utf8').split('\n');
    const kindLine = lines.findIndex((l) => l.includes('"action.add_tagg"')) + 1;
    const col = lines[kindLine - 1].indexOf('"action.add_tagg"') + 1;
    expect(r.stdout).toContain(`${broken}:${kindLine}:${col} error`);
    expect(r.stdout).toMatch(/schema\/enum/);
    expect(r.stdout).toContain('Did you mean "action.add_tag"?');
    // The caret line: as many carets as the value is long, under its first character.
    const out = r.stdout.split('\n');
    const frame = out.findIndex((l) => l.startsWith('>') && l.includes('"action.add_tagg"'));
    expect(frame).toBeGreaterThan(0);
    const caret = out[frame + 1];
    expect(caret.indexOf('^')).toBe(out[frame].indexOf('"action.add_tagg"'));
    expect(caret.trim().replace(/^\|\s*/, '')).toMatch(/^\^{17}$/);
    expect(r.stdout).toContain('✖ 3 errors, 0 warnings in 1 file');
    expect(r.stdout).not.toContain(ESC); // not a TTY: no colour
  });

  it('counts lone CR line ends (classic Mac OS) as editors do: each finding on its own line, a code frame of a few lines', () => {
    const lines = readFileSync(join(ROOT, broken), 'utf8').split('\n');
    const dir = tempDir();
    writeFileSync(join(dir, 'mac.json'), lines.join('\r'));
    const kindLine = lines.findIndex((l) => l.includes('"action.add_tagg"')) + 1;
    const col = lines[kindLine - 1].indexOf('"action.add_tagg"') + 1;
    const r = run(['validate', 'mac.json'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`mac.json:${kindLine}:${col} error`);
    const out = r.stdout.split('\n');
    const frame = out.findIndex((l) => l.startsWith('>') && l.includes('"action.add_tagg"'));
    expect(out[frame]).toBe(`> ${kindLine} | ${lines[kindLine - 1]}`);
    expect(out[frame + 1].indexOf('^')).toBe(out[frame].indexOf('"action.add_tagg"'));
    expect(r.stdout).not.toContain('␍'); // no line shown with the file's line ends in it
    // JSON output: the same lines and columns as the file with LF line ends.
    const json = (cwd: string, file: string) =>
      JSON.parse(run(['validate', '-f', 'json', file], { cwd }).stdout).files[0].diagnostics.map((d: any) => [
        d.code,
        d.line,
        d.column,
        d.endLine,
        d.endColumn,
      ]);
    expect(json(dir, 'mac.json')).toEqual(json(ROOT, broken));
  });

  it('colours with FORCE_COLOR and not with NO_COLOR', () => {
    expect(run(['validate', broken], { env: { FORCE_COLOR: '1' } }).stdout).toContain(ESC);
    expect(run(['validate', broken], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } }).stdout).not.toContain(ESC);
    expect(run(['validate', broken, '--color']).stdout).toContain(ESC);
  });

  it('a folded group names what sets each listed repeat apart: the missing fields of a bare pack', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bare.json'), '{"format":"service.setup-pack"}\n');
    const r = run(['validate', 'bare.json'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('bare.json:1:1 error The pack is missing the required field "schemaVersion". schema/required');
    expect(r.stdout).toContain('and 3 more like it (schema/required): "packId" at 1:1, "name" at 1:1, "version" at 1:1\n');
  });

  it('--quiet hides warnings; --max-warnings turns warnings into exit 1', () => {
    const w = 'packages/cli/test/fixtures/warning.json';
    const plain = run(['validate', w]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('pipeline/probability-normalised');
    expect(run(['validate', w, '--quiet']).stdout).not.toContain('pipeline/probability-normalised');
    expect(run(['validate', w, '--max-warnings', '1']).code).toBe(0);
    const over = run(['validate', w, '--max-warnings', '0']);
    expect(over.code).toBe(1);
    expect(over.stdout).toContain('more warnings than --max-warnings 0');
    expect(run(['validate', w, '--disable', 'pipeline/probability-normalised']).stdout).toContain('0 errors, 0 warnings');
  });

  it('reports invalid JSON with its position and exit 1', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.json'), '{\n  "name": "x",\n  oops\n}\n');
    const r = run(['validate', 'bad.json'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/bad\.json:3:3 error The file is not valid JSON/);
  });

  it('names a UTF-16 file (what Windows PowerShell 5 writes) instead of calling it invalid JSON, and exits 2', () => {
    const dir = tempDir();
    const text = readFileSync(join(ROOT, valid[0]), 'utf8');
    writeFileSync(join(dir, 'le.json'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    writeFileSync(join(dir, 'be.json'), Buffer.from(text, 'utf16le').swap16());
    writeFileSync(join(dir, 'bom8.json'), `\ufeff${text}`);
    const r = run(['validate', 'le.json', 'be.json', 'bom8.json'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(
      'le.json: error cannot read the file: it is UTF-16LE text (it starts with the byte order mark FF FE), and a pack is JSON in UTF-8: save it as UTF-8',
    );
    expect(r.stdout).toContain('be.json: error cannot read the file: it is UTF-16BE text, and a pack is JSON in UTF-8');
    expect(r.stdout).not.toMatch(/bom8\.json/);
    expect(r.stdout).not.toContain('not valid JSON');
    const piped = run(['validate', '--stdin', '--format', 'json'], {
      input: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]),
    });
    expect(piped.code).toBe(2);
    expect(JSON.parse(piped.stdout).files[0].readError).toBe(
      'cannot read stdin: it is UTF-16LE text (it starts with the byte order mark FF FE), and a pack is JSON in UTF-8: save it as UTF-8',
    );
  });

  it('refuses a pack that is not UTF-8 (saved as Latin-1) naming the line, and fmt leaves it as it is, rather than turning its characters into U+FFFD', () => {
    const dir = tempDir();
    const text = readFileSync(join(ROOT, valid[0]), 'utf8').replace('"name": "Buyer Lead Starter"', '"name": "Buyer Lead Café"');
    const latin1 = Buffer.from(text, 'latin1');
    writeFileSync(join(dir, 'latin1.json'), latin1);
    const line = text.slice(0, text.indexOf('Café')).split('\n').length;
    const r = run(['validate', 'latin1.json'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(`latin1.json: error cannot read the file: it is not UTF-8 text: line ${line} has bytes that are not UTF-8`);
    expect(run(['fmt', 'latin1.json'], { cwd: dir }).code).toBe(2);
    expect(readFileSync(join(dir, 'latin1.json'))).toEqual(latin1);
  });
});

describe('validate: usage errors exit 2 with one line', () => {
  it.each([
    [['validate', 'does-not-exist.json'], /cannot read 'does-not-exist.json'/],
    [['validate', 'nothing/**/*.json'], /no files match/],
    [['validate', '--nope', ...valid], /unknown option '--nope'/],
    [['validate', '--format', 'xml', ...valid], /--format must be one of pretty, json, sarif, github/],
    [['validate', '--max-warnings', 'many', ...valid], /--max-warnings needs a whole number/],
    [['validate'], /missing argument/],
    [['validate', '--disable', 'graph/cylce', ...valid], /--disable: no rule 'graph\/cylce'; did you mean 'graph\/cycle'\?/],
  ])('%j', (args, message) => {
    const r = run(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });
});

describe('validate: json', () => {
  it('matches the documented output schema and carries positions', () => {
    const r = run(['validate', '--format', 'json', broken, ...valid]);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    const ajv = new Ajv2020({ allErrors: true });
    const check = ajv.compile(readJson(join(ROOT, 'packages/cli/schema/validate-report.schema.json')));
    expect(check(doc), JSON.stringify(check.errors)).toBe(true);
    expect(doc.version).toBe(1);
    expect(doc.summary).toMatchObject({ files: 3, errors: 3, warnings: 0 });
    const b = doc.files.find((f: any) => f.path === broken);
    expect(b.valid).toBe(false);
    const enumDiag = b.diagnostics.find((d: any) => d.code === 'schema/enum');
    expect(enumDiag.pointer).toBe('/automations/0/document/graph/nodes/1/kind');
    expect(enumDiag.line).toBeGreaterThan(1);
    expect(enumDiag.column).toBeGreaterThan(1);
    expect(doc.files.filter((f: any) => f.valid).map((f: any) => f.path)).toEqual(valid);
  });

  it('names the absent field of a finding about one (missing), in JSON and in SARIF', () => {
    const pack = 'fixtures/invalid/schema-required.json';
    const doc = JSON.parse(run(['validate', '--format', 'json', pack]).stdout);
    const check = new Ajv2020({ allErrors: true }).compile(readJson(join(ROOT, 'packages/cli/schema/validate-report.schema.json')));
    expect(check(doc), JSON.stringify(check.errors)).toBe(true);
    const required = doc.files[0].diagnostics.filter((d: any) => d.code === 'schema/required');
    expect(required.length).toBeGreaterThan(0);
    for (const d of required) expect(d.message).toContain(d.missing);
    const sarif = JSON.parse(run(['validate', '--format', 'sarif', pack]).stdout).runs[0].results;
    expect(sarif.filter((r: any) => r.ruleId === 'schema/required').map((r: any) => r.properties.missing)).toEqual(
      required.map((d: any) => d.missing),
    );
    // Other findings carry none.
    const other = JSON.parse(run(['validate', '--format', 'json', broken]).stdout).files[0].diagnostics;
    expect(
      other.filter((d: any) => d.code !== 'schema/required' && d.code !== 'catalog/config-field').every((d: any) => !('missing' in d)),
    ).toBe(true);
  });

  it('-o writes the report to a file', () => {
    const dir = tempDir();
    const out = join(dir, 'report.json');
    const r = run(['validate', '-f', 'json', '-o', out, ...valid]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(readJson(out).summary.files).toBe(2);
  });
});

describe('validate: sarif', () => {
  const sarifSchema = readJson(join(CLI_FIXTURES, 'sarif-2.1.0-subset.schema.json'));
  const validateSarif = addFormats(new Ajv({ allErrors: true, strict: false })).compile(sarifSchema);

  it('is valid SARIF 2.1.0 with rule metadata for every result', () => {
    const r = run(['validate', '--format', 'sarif', broken, 'packages/cli/test/fixtures/warning.json']);
    expect(r.code).toBe(1);
    const log = JSON.parse(r.stdout);
    expect(validateSarif(log), JSON.stringify(validateSarif.errors, null, 2)).toBe(true);
    const runObj = log.runs[0];
    expect(runObj.tool.driver.name).toBe('setup-pack');
    const rules = runObj.tool.driver.rules;
    expect(rules.length).toBeGreaterThan(20);
    expect(runObj.results.length).toBe(4);
    for (const res of runObj.results) {
      expect(rules[res.ruleIndex].id).toBe(res.ruleId);
      expect(res.locations[0].physicalLocation.region.startLine).toBeGreaterThan(0);
      expect(res.locations[0].physicalLocation.artifactLocation).toMatchObject({ uriBaseId: '%SRCROOT%' });
      expect(Object.values(res.partialFingerprints)[0]).toMatch(/^[0-9a-f]{32}$/);
    }
    expect(runObj.results.find((x: any) => x.ruleId === 'pipeline/probability-normalised').level).toBe('warning');
  });

  it('keeps fingerprints when lines move and items are reordered', () => {
    const dir = tempDir();
    const pack = readJson(join(ROOT, broken));
    writeFileSync(join(dir, 'p.json'), JSON.stringify(pack, null, 2));
    const before = JSON.parse(run(['validate', '-f', 'sarif', 'p.json'], { cwd: dir }).stdout).runs[0].results;
    pack.description = 'A much longer description\nthat moves nothing but text.';
    pack.automations.reverse();
    pack.resources.push({ key: 'extra', kind: 'tag', name: 'Extra' });
    writeFileSync(join(dir, 'p.json'), JSON.stringify(pack, null, 4));
    const after = JSON.parse(run(['validate', '-f', 'sarif', 'p.json'], { cwd: dir }).stdout).runs[0].results;
    const prints = (rs: any[]) => rs.map((x) => `${x.ruleId} ${x.partialFingerprints['setupPackPath/v2']}`).sort();
    expect(after.map((x: any) => x.locations[0].physicalLocation.region.startLine)).not.toEqual(
      before.map((x: any) => x.locations[0].physicalLocation.region.startLine),
    );
    expect(prints(after)).toEqual(prints(before));
  });
});

describe('validate: github', () => {
  it('is chosen on GitHub Actions and writes escaped annotations', () => {
    const r = run(['validate', broken], { env: { GITHUB_ACTIONS: 'true' } });
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /^::error file=packages\/cli\/test\/fixtures\/broken\.json,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,title=setup-pack schema\/enum::/,
    );
    expect(lines.at(-1)).toBe('setup-pack: 3 errors, 0 warnings in 1 file');
  });

  it('keeps within GitHub’s cap of 10 error and 10 warning annotations and ends with a summary', () => {
    const r = run(['validate', '-f', 'github', 'packages/cli/test/fixtures/many-errors.json']);
    const lines = r.stdout.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('::error')).length).toBe(10);
    expect(lines.filter((l) => l.startsWith('::warning')).length).toBe(10);
    // The 30 findings past the caps are in the log, folded by code and message shape.
    const logged = lines.filter((l) => !l.startsWith('::')).slice(0, -1);
    const listed = logged.reduce((n, l) => n + 1 + Number(/\(and (\d+) more like it\)$/.exec(l)?.[1] ?? 0), 0);
    expect(listed).toBe(26 + 24 - 20);
    expect(lines.at(-1)).toMatch(/^setup-pack: 26 errors, 24 warnings in 1 file \(30 more findings listed above without annotations/);
  });

  it('writes paths relative to GITHUB_WORKSPACE when run from a subfolder', () => {
    const r = run(['validate', '-f', 'github', 'test/fixtures/broken.json'], {
      cwd: join(ROOT, 'packages/cli'),
      env: { GITHUB_WORKSPACE: ROOT },
    });
    expect(r.stdout).toContain('::error file=packages/cli/test/fixtures/broken.json,');
  });

  it('names a file outside GITHUB_WORKSPACE in the message, since it has no place in the repository view', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'outside.json'), '{');
    const r = run(['validate', '-f', 'github', join(dir, 'outside.json')], { env: { GITHUB_WORKSPACE: ROOT } });
    const annotation = r.stdout.split('\n').find((l) => l.startsWith('::error'));
    expect(annotation).toBeDefined();
    expect(annotation).not.toContain('file=');
    expect(annotation).toContain(`::${join(dir, 'outside.json')}:1:2: `);
  });

  it('without GITHUB_WORKSPACE, takes the working directory as the checkout: a file outside it gets no absolute file= but is named in the message', () => {
    const cwd = tempDir();
    const dir = tempDir();
    writeFileSync(join(dir, 'outside.json'), '{');
    mkdirSync(join(cwd, 'sub'));
    writeFileSync(join(cwd, 'sub', 'inside.json'), '{');
    const r = run(['validate', '-f', 'github', join(dir, 'outside.json'), join(cwd, 'sub', 'inside.json')], {
      cwd,
      env: { GITHUB_WORKSPACE: undefined },
    });
    const annotations = r.stdout.split('\n').filter((l) => l.startsWith('::error'));
    expect(annotations).toHaveLength(2);
    expect(annotations[0]).not.toContain('file=');
    expect(annotations[0]).toContain(`::${join(dir, 'outside.json')}:1:2: `);
    expect(annotations[1]).toContain('::error file=sub/inside.json,line=1,col=2');
  });

  it('escapes newlines, commas and colons', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a,b:c.json'), '{');
    const r = run(['validate', '-f', 'github', 'a,b:c.json'], { cwd: dir });
    expect(r.stdout).toContain('file=a%2Cb%3Ac.json');
  });
});

describe('validate: stdin', () => {
  it('reads one pack from stdin under the given name', () => {
    const r = run(['validate', '--stdin', '--stdin-filename', 'piped.json'], { input: readFileSync(join(ROOT, broken), 'utf8') });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^piped\.json:\d+:\d+ error/m);
    expect(run(['validate', '--stdin'], { input: readFileSync(join(ROOT, valid[0]), 'utf8') }).code).toBe(0);
    expect(run(['validate', '--stdin', valid[0]]).code).toBe(2);
    // `-` as the one file is stdin too, named as --stdin names it.
    const dash = run(['validate', '-', '--stdin-filename', 'piped.json'], { input: readFileSync(join(ROOT, broken), 'utf8') });
    expect(dash.code).toBe(1);
    expect(dash.stdout).toContain('piped.json:');
    expect(run(['validate', '-'], { input: readFileSync(join(ROOT, valid[0]), 'utf8') }).code).toBe(0);
    const mixed = run(['validate', '-', valid[0]]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain("'-' reads one pack from stdin");
    // A name for stdin on a run that reads files is a usage error, not dropped without a word.
    const named = run(['validate', valid[0], '--stdin-filename', 'piped.json']);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain('--stdin-filename names what --stdin');
  });
});

describe('validate: source folders', () => {
  it('compiles a source folder in memory, positions errors in its files, and skips its files in a directory scan', () => {
    const dir = tempDir();
    expect(run(['new', 'packs/starter'], { cwd: dir }).code).toBe(0);
    writeFileSync(join(dir, 'packs', 'plain.json'), readFileSync(join(ROOT, valid[0])));
    const clean = JSON.parse(run(['validate', '-f', 'json', 'packs'], { cwd: dir }).stdout);
    expect(clean.files.map((f: any) => f.path)).toEqual(['packs/starter/', 'packs/plain.json']);
    expect(clean.summary.errors).toBe(0);
    const file = join(dir, 'packs/starter/automations/welcome-new-contact.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"action.add_tag"', '"action.add_tagx"'));
    const r = run(['validate', 'packs/starter'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^packs\/starter\/automations\/welcome-new-contact\.json:\d+:\d+ error .*schema\/enum/m);
  });
});

describe('validate: files of a source folder', () => {
  /** A tree as a repository holds it: an unpacked source folder beside a pack file. */
  function tree(): string {
    const dir = tempDir();
    expect(run(['unpack', join(ROOT, valid[0]), 'packs/buyer'], { cwd: dir }).code).toBe(0);
    writeFileSync(join(dir, 'packs', 'plain.json'), readFileSync(join(ROOT, valid[1])));
    return dir;
  }
  const report = (dir: string, args: string[]) => {
    const r = run(['validate', '-f', 'json', ...args], { cwd: dir });
    expect(r.stderr).toBe('');
    return { code: r.code, doc: JSON.parse(r.stdout) };
  };

  it("checks the folder once, as a folder, when a glob matches its files (the action's files: input), and none of them as a pack", () => {
    const dir = tree();
    const all = report(dir, ['packs/**/*.json']);
    expect(all.doc.files.map((f: any) => f.path)).toEqual(['packs/buyer/', 'packs/plain.json']);
    expect(all.doc.summary).toMatchObject({ files: 2, errors: 0, warnings: 0 });
    expect(all.code).toBe(0);
    // As `validate packs/buyer` does: a finding goes to the source file it comes from.
    const file = join(dir, 'packs/buyer/automations/new-lead-welcome.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"action.add_tag"', '"action.add_tagx"'));
    const broken = report(dir, ['packs/**/*.json']);
    expect(broken.code).toBe(1);
    expect(broken.doc.files.map((f: any) => `${f.path} ${f.diagnostics.map((d: any) => d.code).join(',')}`)).toEqual([
      'packs/buyer/automations/new-lead-welcome.json schema/enum',
      'packs/plain.json ',
    ]);
    expect(broken.doc).toEqual(report(dir, ['packs/buyer', 'packs/plain.json']).doc);
  });

  it('checks the folder when files of it are named (as the pre-commit hook passes them), or a directory inside it', () => {
    const dir = tree();
    for (const args of [
      ['packs/buyer/manifest.json'],
      ['packs/buyer/automations/new-lead-welcome.json', 'packs/buyer/manifest.json', 'packs/buyer/templates/tpl-follow-up.html'],
      ['packs/buyer/automations'],
      ['packs/buyer', 'packs/buyer/resources/*.json'],
    ]) {
      const { code, doc } = report(dir, args);
      expect(
        doc.files.map((f: any) => f.path),
        args.join(' '),
      ).toEqual(['packs/buyer/']);
      expect(doc.summary).toMatchObject({ files: 1, errors: 0 });
      expect(code).toBe(0);
    }
    const inside = run(['validate', '-f', 'json', 'automations/new-lead-welcome.json'], { cwd: join(dir, 'packs/buyer') });
    expect(JSON.parse(inside.stdout).files.map((f: any) => f.path)).toEqual([`${join(dir, 'packs/buyer')}/`]);
  });

  it('reads a pack in a folder below the source folder that is not part of its layout (dist/, packs/) as a pack, as fmt and fix do', () => {
    const dir = tree();
    // A pack built into the source folder (`build packs/buyer -o packs/buyer/dist/buyer.json`), or
    // a repository whose root is a source folder with built packs beside it.
    mkdirSync(join(dir, 'packs/buyer/dist'));
    writeFileSync(join(dir, 'packs/buyer/dist/built.json'), readFileSync(join(ROOT, valid[1])));
    const named = report(dir, ['packs/buyer/dist/built.json']);
    expect(named.doc.files.map((f: any) => f.path)).toEqual(['packs/buyer/dist/built.json']);
    expect(named.code).toBe(0);
    expect(report(dir, ['packs/**/*.json']).doc.files.map((f: any) => f.path)).toEqual([
      'packs/buyer/',
      'packs/buyer/dist/built.json',
      'packs/plain.json',
    ]);
    expect(report(dir, ['packs/buyer/dist']).doc.files.map((f: any) => f.path)).toEqual(['packs/buyer/dist/built.json']);
    // The source folder named, or the working directory inside it (`validate .` at a repository's
    // root): the folder as one, and the pack below it too. It was skipped, so CI passed it unread.
    expect(report(dir, ['packs/buyer']).doc.files.map((f: any) => f.path)).toEqual(['packs/buyer/', 'packs/buyer/dist/built.json']);
    // A broken pack there is found, not passed over for the clean folder.
    writeFileSync(join(dir, 'packs/buyer/dist/built.json'), '{"format": "service.setup-pack"}');
    expect(report(dir, ['packs/buyer/dist/built.json']).code).toBe(1);
    expect(report(dir, ['packs/buyer']).code).toBe(1);
    const inside = run(['validate', '-f', 'json', '.'], { cwd: join(dir, 'packs/buyer') });
    expect(inside.code).toBe(1);
    expect(JSON.parse(inside.stdout).files.map((f: any) => `${f.path} ${f.diagnostics.length}`)).toEqual([
      `${join(dir, 'packs/buyer')}/ 0`,
      'dist/built.json 4',
    ]);
    expect(run(['fmt', '--check', 'packs/buyer'], { cwd: dir }).stdout).toMatch(
      /^packs\/buyer\/dist\/built\.json: not formatted\n1 of \d+ files not formatted/,
    );
    const fmt = run(['fmt', '--check', 'packs/buyer/dist/built.json'], { cwd: dir });
    expect(fmt.stdout).toBe("packs/buyer/dist/built.json: not formatted\n1 of 1 file not formatted; run 'setup-pack fmt' on it.\n");
    expect(fmt.code).toBe(1);
    // fmt on the directory above: the folder's files in their roles, and the pack as a pack.
    const all = run(['fmt', '--check', 'packs'], { cwd: dir });
    expect(all.stdout).toMatch(/^packs\/buyer\/dist\/built\.json: not formatted\n1 of \d+ files not formatted/);
    const fix = run(['fix', '--dry-run', 'packs/buyer/dist/built.json'], { cwd: dir });
    expect(fix.stdout).toBe('nothing to fix in 1 file\n');
  });

  it('reports a manifest.json that does not parse yet once, in manifest.json, rather than each file as a pack', () => {
    const dir = tree();
    const manifest = join(dir, 'packs/buyer/manifest.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"format":', '"format" '));
    for (const args of [['packs/**/*.json'], ['packs'], ['packs/buyer/automations/new-lead-welcome.json', 'packs/plain.json']]) {
      const { code, doc } = report(dir, args);
      expect(code).toBe(1);
      expect(
        doc.files.map((f: any) => `${f.path} ${f.diagnostics.map((d: any) => d.code).join(',')}`),
        args.join(' '),
      ).toEqual(['packs/buyer/manifest.json json/syntax', 'packs/plain.json ']);
    }
  });
});

describe('validate: many files', () => {
  it('checks a directory and globs concurrently, in a stable order', () => {
    const r = run(['validate', '-f', 'json', 'fixtures/valid', 'fixtures/releases/*.json']);
    const doc = JSON.parse(r.stdout);
    expect(doc.files.map((f: any) => f.path)).toEqual([
      'fixtures/valid/buyer-lead-starter.json',
      'fixtures/valid/listing-marketing.json',
      'fixtures/releases/buyer-lead-1.0.0.json',
      'fixtures/releases/buyer-lead-1.1.0.json',
    ]);
    expect(FIXTURES).toContain('fixtures');
  });

  it('reads a file once however many linked paths lead to it, under the name that goes through no link', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'packs', 'a'), { recursive: true });
    mkdirSync(join(dir, 'packs', 'shared'));
    for (const f of valid) writeFileSync(join(dir, 'packs', 'a', f.split('/').pop()!), readFileSync(join(ROOT, f)));
    symlinkSync('..', join(dir, 'packs', 'a', 'up')); // a loop the walk follows one level
    symlinkSync('../a', join(dir, 'packs', 'shared', 'alias')); // a folder linked in
    symlinkSync('buyer-lead-starter.json', join(dir, 'packs', 'a', 'latest.json')); // a file linked
    const expected = ['packs/a/buyer-lead-starter.json', 'packs/a/listing-marketing.json'];
    for (const args of [['packs'], ['packs/**/*.json'], ['packs/shared', 'packs/a']]) {
      const doc = JSON.parse(run(['validate', '-f', 'json', ...args], { cwd: dir }).stdout);
      const paths = doc.files.map((f: any) => f.path);
      expect(paths, args.join(' ')).toHaveLength(2);
      expect(doc.summary.files).toBe(2);
      if (args[0] !== 'packs/shared') expect(paths).toEqual(expected);
    }
    // A file given twice by name is still read once, links or not.
    expect(
      JSON.parse(run(['validate', '-f', 'json', 'packs/a/latest.json', 'packs/a/latest.json'], { cwd: dir }).stdout).summary.files,
    ).toBe(1);
  });
});

// A pack's keys, ids and names may hold any character (JSON escapes them). Printed raw, an escape
// sequence would drive the reader's terminal and a line break in a CI log could start a GitHub
// workflow command (`::error::`, `::add-mask::`); a bidirectional override would reorder the line.
describe('text from a pack never drives the terminal or the CI log', () => {
  const hostile = () => {
    const pack = readJson(join(FIXTURES, 'valid/buyer-lead-starter.json'));
    const graph = pack.automations[0].document.graph;
    const node = graph.nodes[1];
    const old = node.id;
    node.id = 'n\n::error::injected';
    for (const e of graph.edges) {
      if (e.source === old) e.source = node.id;
      if (e.target === old) e.target = node.id;
    }
    graph.nodes[2].config['zz\u202e'] = 'x';
    pack.resources[0].name = '\u001b[2Jboom';
    pack['\u001b]0;title\u0007'] = 1;
    const dir = tempDir();
    writeFileSync(join(dir, 'hostile.json'), JSON.stringify(pack, null, 2));
    // A file that is not JSON holds raw control characters, which its code frame shows.
    writeFileSync(join(dir, 'raw.json'), '{"format":"setup-pack","x":"\u001b[31mred\u0007\u202e", "y": 1}');
    writeFileSync(join(dir, 'bidi.json'), '{"name":"\u202eevil","bogus":1}');
    return dir;
  };
  // Every character a terminal acts on, but the line breaks between lines and our own colours (off here).
  const acting = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

  it('pretty output escapes it as JSON does, and code frames keep their columns', () => {
    const dir = hostile();
    const r = run(['validate', 'hostile.json', 'raw.json', 'bidi.json'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).not.toMatch(acting);
    expect(r.stdout).toContain('The pack has an unknown field "\\u001b]0;title\\u0007".');
    expect(r.stdout).toContain('config.zz\\u202e of action.send_sms node');
    // The raw file's frame: one visible character for each control character.
    expect(r.stdout).toContain('> 1 | {"format":"setup-pack","x":"␛[31mred␇\ufffd", "y": 1}');
    // A right-to-left override is valid JSON in a string: the caret of a finding after it on the
    // same line still lands under its spot.
    const lines = r.stdout.split('\n');
    const frame = lines.find((l) => l.startsWith('> 1 | {"name":"'))!;
    expect(frame).toBe('> 1 | {"name":"\ufffdevil","bogus":1}');
    const caret =
      lines[
        lines.indexOf(
          frame,
          lines.findIndex((l) => l.includes('unknown field "bogus"')),
        ) + 1
      ]!;
    expect(caret.indexOf('^') - '    | '.length).toBe(frame.indexOf('"bogus"') - '> 1 | '.length);
  });

  it('GitHub annotations and log lines cannot start a workflow command', () => {
    const dir = hostile();
    const r = run(['validate', '-f', 'github', 'hostile.json'], { cwd: dir });
    expect(r.stdout).not.toMatch(acting);
    const lines = r.stdout.trim().split('\n');
    // Only our annotations start a line with "::"; the node id's line break is written as \n.
    expect(lines.filter((l) => l.startsWith('::')).every((l) => /^::(error|warning|notice) file=hostile\.json,/.test(l))).toBe(true);
    expect(lines.some((l) => l.startsWith('::error::injected'))).toBe(false);
    expect(r.stdout).toContain('\\u001b]0;title\\u0007');
  });

  it('unpack names a repeated key escaped', () => {
    const dir = tempDir();
    const pack = readJson(join(FIXTURES, 'valid/listing-marketing.json'));
    pack.messageTemplates[0].key = pack.messageTemplates[1].key = 'a\u001b[2J';
    writeFileSync(join(dir, 'dup.json'), JSON.stringify(pack));
    const r = run(['unpack', 'dup.json', 'out'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(acting);
    expect(r.stderr).toContain('repeats the key "a\\u001b[2J"');
  });

  it('diff prints keys, ids and names escaped', () => {
    const dir = hostile();
    const r = run(['diff', join(FIXTURES, 'valid/buyer-lead-starter.json'), 'hostile.json'], { cwd: dir });
    expect(r.stdout).not.toMatch(acting);
    expect(r.stdout).toContain('+ node n\\n::error::injected');
    expect(r.stdout).toContain('"\\u001b[2Jboom"');
    expect(r.stdout).toContain('config.zz\\u202e');
  });
});
