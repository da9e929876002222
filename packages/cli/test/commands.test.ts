import { beforeAll, describe, expect, it } from 'vitest';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { BIN, ensureBuilt, readJson, ROOT, run, tempDir } from './helpers.js';

beforeAll(() => ensureBuilt());

const COMMANDS = ['validate', 'build', 'unpack', 'new', 'fmt', 'fix', 'diff', 'schema', 'lsp'];
const fixturePath = (f: string) => join(ROOT, 'fixtures', f);

describe('help and version', () => {
  it('--version prints the package version', () => {
    const r = run(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(readJson(join(ROOT, 'packages/cli/package.json')).version);
  });

  it('--version takes no argument: an extra one is a usage error (exit 2), as for every command, not ignored', () => {
    for (const flag of ['--version', '-v']) {
      const r = run([flag, 'extra']);
      expect(r.code, flag).toBe(2);
      expect(r.stdout, flag).toBe('');
      expect(r.stderr, flag).toBe(`setup-pack: unexpected argument 'extra'; usage: setup-pack --version\n`);
    }
    const option = run(['--version', '--fromat']);
    expect(option.code).toBe(2);
    expect(option.stderr).toBe("setup-pack: unknown option '--fromat'\n");
    // The colour flags are every command's, and so --version's too.
    expect(run(['--version', '--no-color'])).toMatchObject({
      code: 0,
      stdout: `${readJson(join(ROOT, 'packages/cli/package.json')).version}\n`,
    });
  });

  it('--help takes no argument but the command it is about, as --version takes none: an extra one is a usage error (exit 2), not ignored', () => {
    for (const args of [
      ['--help', 'validate', 'extra'],
      ['-h', 'validate', 'extra'],
      ['help', 'validate', 'extra'],
      ['validate', '--help', 'extra'],
      ['validate', 'extra', '-h'],
    ]) {
      const r = run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr, args.join(' ')).toBe(`setup-pack validate: unexpected argument 'extra'; usage: setup-pack validate --help\n`);
    }
    // An option of the command is no more taken with --help than an argument is.
    const option = run(['validate', '--help', '--format', 'json']);
    expect(option.code).toBe(2);
    expect(option.stderr).toBe(`setup-pack validate: option '--format' is not taken with --help; usage: setup-pack validate --help\n`);
    // The global help: an argument after it names the command it is about, as after `help`.
    const extra = run(['--help', 'extra']);
    expect(extra.code).toBe(2);
    expect(extra.stdout).toBe('');
    expect(extra.stderr).toBe("setup-pack: unknown command 'extra'; run 'setup-pack --help' for the list\n");
    for (const flag of ['--help', '-h']) expect(run([flag, 'schema'])).toMatchObject({ code: 0, stdout: run(['schema', '--help']).stdout });
    // The colour flags are every command's, and so the help's too.
    expect(run(['--help', '--no-color'])).toMatchObject({ code: 0, stdout: run(['--help']).stdout });
    expect(run(['schema', '--help', '--color'])).toMatchObject({ code: 0, stdout: run(['schema', '--help']).stdout });
  });

  it('--help lists every command', () => {
    const r = run(['--help']);
    expect(r.code).toBe(0);
    for (const c of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
  });

  it.each(COMMANDS)('%s --help shows usage, options and examples', (c) => {
    const r = run([c, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: setup-pack ${c}`));
    expect(r.stdout).toContain('Examples:');
    expect(r.stdout).toMatch(new RegExp(`^  setup-pack ${c} `, 'm'));
    expect(run(['help', c]).stdout).toBe(r.stdout);
  });

  it('lsp without --stdio is a usage error: the server speaks only over stdio', () => {
    const r = run(['lsp']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('setup-pack lsp: the server speaks LSP over stdin and stdout: run `setup-pack lsp --stdio` (from an editor)\n');
  });

  it('an unknown command is a one-line error with a suggestion', () => {
    const r = run(['buidl']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("setup-pack: unknown command 'buidl'; did you mean 'build'?\n");
  });
});

describe('schema', () => {
  it('lists the published schemas and prints one', () => {
    const list = run(['schema']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^pack\s+Setup Pack$/m);
    const pack = run(['schema', 'pack']);
    expect(JSON.parse(pack.stdout)).toEqual(readJson(join(ROOT, 'schemas/pack.schema.json')));
    expect(JSON.parse(run(['schema', 'stage.schema.json']).stdout).$id).toMatch(/stage\.schema\.json$/);
  });

  it('an unknown name exits 2 with a suggestion', () => {
    const r = run(['schema', 'pak']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no schema named 'pak'; did you mean 'pack'\?/);
  });
});

describe('fmt', () => {
  it('--check exits 1 for an unformatted file; fmt fixes it; --check then passes', () => {
    const dir = tempDir();
    cpSync(join(ROOT, 'packages/cli/test/fixtures/unformatted.json'), join(dir, 'p.json'));
    const before = readFileSync(join(dir, 'p.json'), 'utf8');
    const check = run(['fmt', '--check', 'p.json'], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('p.json: not formatted');
    expect(check.stdout).toContain("1 of 1 file not formatted; run 'setup-pack fmt' on it.");
    expect(readFileSync(join(dir, 'p.json'), 'utf8')).toBe(before);
    expect(run(['fmt', 'p.json'], { cwd: dir }).code).toBe(0);
    const after = readFileSync(join(dir, 'p.json'), 'utf8');
    expect(JSON.parse(after)).toEqual(JSON.parse(before));
    expect(after.startsWith('{\n  "$schema"')).toBe(true);
    const clean = run(['fmt', '--check', 'p.json'], { cwd: dir });
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain('✔ 1 file already formatted');
  });

  it('refuses invalid JSON with a positioned error and exit 1', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.json'), '{"a": }');
    const r = run(['fmt', 'bad.json'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/bad\.json:1:7 error/);
  });

  it('fmt, fmt --check, fix and fix --dry-run refuse a file that is not a pack (exit 1) as validate reports it, and leave it as it is', () => {
    // Before: `[]` was "already formatted" and had "nothing to fix", exit 0, while validate failed it.
    const dir = tempDir();
    const cases: [string, string, string][] = [
      ['list.json', '[]', 'an array'],
      ['nothing.json', 'null\n', 'null'],
      ['count.json', '  42', 'a number'],
    ];
    for (const [file, text] of cases) writeFileSync(join(dir, file), text);
    cpSync(fixturePath('valid/buyer-lead-starter.json'), join(dir, 'ok.json'));
    const files = cases.map(([f]) => f);
    const v = run(['validate', ...files], { cwd: dir });
    expect(v.code).toBe(1);
    for (const args of [['fmt'], ['fmt', '--check'], ['fix'], ['fix', '--dry-run']]) {
      const r = run([...args, ...files, 'ok.json'], { cwd: dir });
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(1);
      for (const [file, text, what] of cases) {
        const line = `${file}:1:${text.length - text.trimStart().length + 1} error A pack is a JSON object, not ${what}. schema/type`;
        expect(r.stderr, args.join(' ')).toContain(line);
        expect(v.stdout).toContain(line);
        expect(readFileSync(join(dir, file), 'utf8')).toBe(text);
      }
      expect(r.stdout, args.join(' ')).not.toMatch(/already formatted|nothing to fix/);
      if (args[0] === 'fix') expect(r.stdout).toBe('nothing fixed in 4 files; 3 could not be read as packs\n');
    }
    // unpack (exit 1, as for invalid JSON) and diff (exit 2, as for invalid JSON) say it in the same words.
    const u = run(['unpack', 'list.json', 'out'], { cwd: dir });
    expect(u.code).toBe(1);
    expect(u.stderr).toContain('list.json:1:1 error A pack is a JSON object, not an array. schema/type');
    expect(existsSync(join(dir, 'out'))).toBe(false);
    const d = run(['diff', 'ok.json', 'list.json'], { cwd: dir });
    expect(d).toMatchObject({
      code: 2,
      stdout: '',
      stderr: "setup-pack diff: 'list.json' is not a pack: a pack is a JSON object, not an array\n",
    });
  });
});

describe('fmt and fix never change what a pack file says', () => {
  /** A pack file that says "name" twice (the second at line 7) and one with a number JSON.parse reads as Infinity; where each is. */
  function lossy(dir: string, base = 'valid/buyer-lead-starter.json') {
    const text = readFileSync(base.startsWith('/') ? base : fixturePath(base), 'utf8');
    const twice = text.replace(/\n {2}"description"/, '\n  "name": "First name",\n  "description"');
    const m = /"probability": (\d+)/.exec(text)!;
    const at = m.index + '"probability": '.length;
    const big = `${text.slice(0, at)}-1e400${text.slice(at + m[1].length)}`;
    const lines = text.slice(0, at).split('\n');
    writeFileSync(join(dir, 'twice.json'), twice);
    writeFileSync(join(dir, 'big.json'), big);
    return { twice, big, bigAt: `${lines.length}:${lines.at(-1)!.length + 1}` };
  }

  it('fmt and fmt --check leave a pack file with a property written twice, or a number out of range, as it is, and say where and what (exit 1)', () => {
    const dir = tempDir();
    const { twice, big, bigAt } = lossy(dir);
    cpSync(join(ROOT, 'packages/cli/test/fixtures/unformatted.json'), join(dir, 'other.json'));
    for (const check of [['--check'], []]) {
      const r = run(['fmt', ...check, 'twice.json', 'big.json', 'other.json'], { cwd: dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        'twice.json:7:3 error The property "name" appears more than once in this object; only the last one counts. fmt leaves the file as it is: written again, it would lose the first. json/duplicate-key',
      );
      expect(r.stderr).toContain(
        `big.json:${bigAt} error pipelines[0].stages[0].probability is the number -1e400, beyond what a JSON number can hold here (a 64-bit float); it would be read as -Infinity and installed as null. fmt leaves the file as it is: written again, it would be null. json/number-range`,
      );
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(r.stdout).toContain(check.length ? 'other.json: not formatted' : 'other.json: formatted');
      expect(r.stdout).not.toMatch(/twice|big/);
      expect(readFileSync(join(dir, 'twice.json'), 'utf8')).toBe(twice);
      expect(readFileSync(join(dir, 'big.json'), 'utf8')).toBe(big);
    }
  });

  it("fmt leaves a source folder's file with a number out of range as it is too", () => {
    const dir = tempDir();
    expect(run(['unpack', fixturePath('valid/buyer-lead-starter.json'), join(dir, 'src')]).code).toBe(0);
    const file = join(dir, 'src', 'pipelines', 'buyer-pipeline.json');
    const text = readFileSync(file, 'utf8').replace('"probability": 10', '"probability": 1e999');
    writeFileSync(file, text);
    const r = run(['fmt', 'src'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^src\/pipelines\/buyer-pipeline\.json:\d+:\d+ error stages\[0\]\.probability is the number 1e999, beyond what a JSON number can hold here \(a 64-bit float\); it would be read as Infinity and installed as null\. fmt leaves the file as it is: written again, it would be null\. json\/number-range$/m,
    );
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('fix leaves such a pack file as it is when it would write it, and says why (exit 1, --dry-run too)', () => {
    const dir = tempDir();
    const { twice, big, bigAt } = lossy(dir, join(ROOT, 'packages/cli/test/fixtures/needs-fix.json'));
    for (const dry of [['--dry-run'], []]) {
      const r = run(['fix', ...dry, 'twice.json', 'big.json'], { cwd: dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        'twice.json:7:3 error The property "name" appears more than once in this object; only the last one counts. fix leaves the file as it is: written again, it would lose the first. json/duplicate-key',
      );
      expect(r.stderr).toContain(
        `big.json:${bigAt} error pipelines[0].stages[0].probability is the number -1e400, beyond what a JSON number can hold here (a 64-bit float); it would be read as -Infinity and installed as null. fix leaves the file as it is: written again, it would be null. json/number-range`,
      );
      expect(r.stdout).toBe('nothing fixed in 2 files; 2 left as they are, since written again they would lose what they say\n');
      expect(readFileSync(join(dir, 'twice.json'), 'utf8')).toBe(twice);
      expect(readFileSync(join(dir, 'big.json'), 'utf8')).toBe(big);
    }
    // Nothing to write, nothing to lose: a file fix has nothing to change in is no failure.
    const clean = readFileSync(fixturePath('valid/buyer-lead-starter.json'), 'utf8').replace(
      /\n {2}"description"/,
      '\n  "name": "First name",\n  "description"',
    );
    writeFileSync(join(dir, 'clean.json'), clean);
    expect(run(['fix', 'clean.json'], { cwd: dir })).toMatchObject({ code: 0, stdout: 'nothing to fix in 1 file\n', stderr: '' });
  });

  it('fmt leaves a pack file with an integer JSON.parse does not keep as it is, and formats one whose numbers come back the same', () => {
    const dir = tempDir();
    const text = readFileSync(fixturePath('valid/listing-marketing.json'), 'utf8');
    const at = text.indexOf('"tagline"');
    const lines = text.slice(0, at).split('\n');
    const precise = `${text.slice(0, at)}"feedId": 12345678901234567890, ${text.slice(at)}`;
    writeFileSync(join(dir, 'precise.json'), precise);
    // 1e23 is no float either, but reads as the one JSON.stringify writes as 1e+23: the same number.
    writeFileSync(join(dir, 'same.json'), `${text.slice(0, at)}"big": 1e23, ${text.slice(at)}`);
    const r = run(['fmt', 'precise.json', 'same.json'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `precise.json:${lines.length}:${lines.at(-1)!.length + 11} error brand.feedId is the number 12345678901234567890, with more digits than a JSON number keeps here (a 64-bit float holds every integer only up to 2^53, 9007199254740992); it reads as 12345678901234567000, and would be installed and exported so. fmt leaves the file as it is: written again, it would be the number it reads as. json/number-precision`,
    );
    expect(readFileSync(join(dir, 'precise.json'), 'utf8')).toBe(precise);
    expect(r.stdout).toBe('same.json: formatted\n');
    expect(readFileSync(join(dir, 'same.json'), 'utf8')).toContain('"big": 1e+23');
    // validate says the same as a warning: the pack validates.
    const v = run(['validate', 'precise.json'], { cwd: dir });
    expect(v.code).toBe(0);
    expect(v.stdout).toContain('warning brand.feedId is the number 12345678901234567890, with more digits than a JSON number keeps here');
  });

  /**
   * A pack whose brand holds numbers a 64-bit float does not keep as written, though none is an
   * integer beyond 2^53 (core's json/number-precision) or out of range: each one's name, text,
   * what it reads as, and line:column.
   */
  function notKept(dir: string, base: string) {
    const text = readFileSync(base, 'utf8');
    const at = text.indexOf('"tagline"');
    const numbers = [
      ['tiny', '1e-400', '0'],
      ['precise', '0.1000000000000000055511151231257827', '0.1'],
      ['sub', '-1.23456789e-320', '-1.2347e-320'],
    ] as const;
    let inserted = '';
    const places: string[] = [];
    const lines = text.slice(0, at).split('\n');
    for (const [name, literal] of numbers) {
      const col = lines.at(-1)!.length + inserted.length + `"${name}": `.length + 1;
      places.push(`${lines.length}:${col}`);
      inserted += `"${name}": ${literal}, `;
    }
    const written = `${text.slice(0, at)}${inserted}${text.slice(at)}`;
    writeFileSync(join(dir, 'digits.json'), written);
    return { written, found: numbers.map(([name, literal, reads], i) => ({ name, literal, reads, at: places[i] })) };
  }

  it('fmt and fmt --check leave a pack file with a fraction or a tiny number a float does not keep as it is, and say where (exit 1)', () => {
    const dir = tempDir();
    const { written, found } = notKept(dir, fixturePath('valid/listing-marketing.json'));
    for (const check of [['--check'], []]) {
      const r = run(['fmt', ...check, 'digits.json'], { cwd: dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `digits.json:${found[0].at} error brand.tiny is the number 1e-400, closer to 0 than a JSON number can hold here (a 64-bit float); it reads as 0, and would be installed and exported so. fmt leaves the file as it is: written again, it would be the number it reads as. json/number-precision`,
      );
      expect(r.stderr).toContain(
        `digits.json:${found[1].at} error brand.precise is the number 0.1000000000000000055511151231257827, with more digits than a JSON number keeps here (a 64-bit float keeps 15 to 17 significant digits); it reads as 0.1, and would be installed and exported so. fmt leaves the file as it is: written again, it would be the number it reads as. json/number-precision`,
      );
      expect(r.stderr).toContain(
        `digits.json:${found[2].at} error brand.sub is the number -1.23456789e-320, so close to 0 that a JSON number keeps only some of its digits here (a 64-bit float); it reads as -1.2347e-320, and would be installed and exported so. fmt leaves the file as it is: written again, it would be the number it reads as. json/number-precision`,
      );
      expect(r.stderr).toMatch(/✖ 3 errors, 0 warnings in 1 file\n$/);
      expect(r.stdout).toBe('');
      expect(readFileSync(join(dir, 'digits.json'), 'utf8')).toBe(written);
    }
  });

  it('fmt formats numbers written otherwise than JSON writes them but meaning the same, without a word', () => {
    const dir = tempDir();
    // 1e-320 and 5e-324 are kept in part only, but JSON.stringify writes them back as they are written.
    const same = [
      '1.0',
      '1e2',
      '1E+2',
      '0.50',
      '-0.0',
      '5e-324',
      '1e-320',
      '0.1',
      '1.7976931348623157e308',
      '123456789012345.6',
      '9007199254740991',
      '2.5e-10',
      '0.000001',
    ];
    writeFileSync(join(dir, 'same.json'), `{"name":"Same","format":"service.setup-pack","brand":{"n":[${same.join(',')}]}}`);
    const r = run(['fmt', 'same.json'], { cwd: dir });
    expect(r).toMatchObject({ code: 0, stdout: 'same.json: formatted\n', stderr: '' });
    expect(JSON.stringify(readJson(join(dir, 'same.json')).brand.n)).toBe(JSON.stringify(same.map(Number)));
    expect(readFileSync(join(dir, 'same.json'), 'utf8')).toContain(
      '1,\n      100,\n      100,\n      0.5,\n      0,\n      5e-324,\n      1e-320,',
    );
  });

  it("fmt leaves a source folder's file with a fraction a float does not keep as it is too", () => {
    const dir = tempDir();
    expect(run(['unpack', fixturePath('valid/buyer-lead-starter.json'), join(dir, 'src')]).code).toBe(0);
    const file = join(dir, 'src', 'pipelines', 'buyer-pipeline.json');
    const text = readFileSync(file, 'utf8').replace('"probability": 10', '"probability": 10.0000000000000000001');
    writeFileSync(file, text);
    const r = run(['fmt', 'src'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^src\/pipelines\/buyer-pipeline\.json:\d+:\d+ error stages\[0\]\.probability is the number 10\.0000000000000000001, with more digits than a JSON number keeps here \(a 64-bit float keeps 15 to 17 significant digits\); it reads as 10, and would be installed and exported so\. fmt leaves the file as it is: written again, it would be the number it reads as\. json\/number-precision$/m,
    );
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('fix leaves a pack file, or a source folder, it would write with such a number as it is (exit 1, --dry-run too)', () => {
    const dir = tempDir();
    const { written, found } = notKept(dir, join(ROOT, 'packages/cli/test/fixtures/needs-fix.json'));
    for (const dry of [['--dry-run'], []]) {
      const r = run(['fix', ...dry, 'digits.json'], { cwd: dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `digits.json:${found[1].at} error brand.precise is the number 0.1000000000000000055511151231257827, with more digits than a JSON number keeps here (a 64-bit float keeps 15 to 17 significant digits); it reads as 0.1, and would be installed and exported so. fix leaves the file as it is: written again, it would be the number it reads as. json/number-precision`,
      );
      expect(r.stdout).toBe('nothing fixed in 1 file; 1 left as it is, since written again it would lose what it says\n');
      expect(readFileSync(join(dir, 'digits.json'), 'utf8')).toBe(written);
    }
    expect(run(['unpack', join(ROOT, 'packages/cli/test/fixtures/needs-fix.json'), join(dir, 'src')]).code).toBe(0);
    const pipeline = join(dir, 'src', 'pipelines', 'listings.json');
    const text = readFileSync(pipeline, 'utf8').replace('"probability": 20', '"probability": 1e-400');
    writeFileSync(pipeline, text);
    const r = run(['fix', 'src'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^src\/pipelines\/listings\.json:\d+:\d+ error stages\[0\]\.probability is the number 1e-400, closer to 0 than a JSON number can hold here \(a 64-bit float\); it reads as 0, and would be installed and exported so\. fix leaves the file as it is: written again, it would be the number it reads as\. json\/number-precision$/m,
    );
    expect(r.stdout).toBe('nothing fixed in 1 source folder; 1 left as it is, since written again it would lose what it says\n');
    expect(readFileSync(pipeline, 'utf8')).toBe(text);
  });

  it('validate and build name a number out of range in a source file once, as written, and still check the rest of the pack', () => {
    const dir = tempDir();
    expect(run(['unpack', fixturePath('valid/buyer-lead-starter.json'), join(dir, 'src')]).code).toBe(0);
    const file = join(dir, 'src', 'pipelines', 'buyer-pipeline.json');
    const text = readFileSync(file, 'utf8').replace('"probability": 10', '"probability": 1e999');
    writeFileSync(file, text);
    // A rule's finding elsewhere in the pack: the stage names repeat.
    writeFileSync(file, text.replace('"name": "Showing homes"', '"name": "New"'));
    for (const args of [
      ['validate', 'src'],
      ['build', 'src', '-o', 'out.json'],
    ]) {
      const r = run([...args, '--format', 'json'], { cwd: dir });
      expect(r.code, r.stderr).toBe(1);
      // build prints its findings to stderr (the pack goes to stdout without -o).
      const found = (
        JSON.parse(args[0] === 'build' ? r.stderr : r.stdout) as {
          files: { path: string; diagnostics: { code: string; message: string; line: number }[] }[];
        }
      ).files.flatMap((f) => f.diagnostics.map((d) => ({ ...d, path: f.path })));
      const range = found.filter((d) => d.code === 'json/number-range');
      expect(range, args[0]).toHaveLength(1);
      expect(range[0]).toMatchObject({
        path: 'src/pipelines/buyer-pipeline.json',
        message: expect.stringContaining('stages[0].probability is the number 1e999, beyond'),
      });
      expect(found.map((d) => d.code)).toContain('pipeline/duplicate-stage-name');
      expect(found.map((d) => d.code)).not.toContain('schema/type');
    }
    expect(existsSync(join(dir, 'out.json'))).toBe(false);
  });

  it('fix leaves a source folder as it is when a file it would write says a property twice or holds a number out of range', () => {
    const dir = tempDir();
    expect(run(['unpack', join(ROOT, 'packages/cli/test/fixtures/needs-fix.json'), join(dir, 'src')]).code).toBe(0);
    const files = () =>
      new Map(
        readdirSync(join(dir, 'src'), { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => [join(e.parentPath, e.name), readFileSync(join(e.parentPath, e.name), 'utf8')]),
      );
    const pipeline = join(dir, 'src', 'pipelines', 'listings.json');
    const text = readFileSync(pipeline, 'utf8');
    for (const [edit, what] of [
      [
        text.replace('"name": "Listings"', '"name": "First",\n  "name": "Listings"'),
        /src\/pipelines\/listings\.json:3:3 error The property "name" appears more than once in this object; only the last one counts\. fix leaves the file as it is/,
      ],
      [
        text.replace('"probability": 20', '"probability": 2e308'),
        /src\/pipelines\/listings\.json:\d+:\d+ error stages\[0\]\.probability is the number 2e308, beyond what a JSON number can hold here \(a 64-bit float\); it would be read as Infinity and installed as null\. fix leaves the file as it is: written again, it would be null\. json\/number-range$/m,
      ],
    ] as const) {
      writeFileSync(pipeline, edit);
      const before = files();
      const r = run(['fix', 'src'], { cwd: dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(what);
      expect(r.stderr).toContain(
        'src/: not fixed: written again, src/pipelines/listings.json would lose what it says (above); the folder is left as it is\n',
      );
      expect(r.stdout).toBe('nothing fixed in 1 source folder; 1 left as it is, since written again it would lose what it says\n');
      expect(files()).toEqual(before);
    }
  });
});

describe('fix', () => {
  it('recomputes asset hashes and sizes and normalises won/lost probabilities', () => {
    const dir = tempDir();
    cpSync(join(ROOT, 'packages/cli/test/fixtures/needs-fix.json'), join(dir, 'p.json'));
    expect(run(['validate', 'p.json'], { cwd: dir }).code).toBe(1);
    const original = readFileSync(join(dir, 'p.json'), 'utf8');
    const dry = run(['fix', '--dry-run', 'p.json'], { cwd: dir });
    expect(dry.code).toBe(1);
    expect(dry.stdout).toMatch(/sha256 000000000000… → [0-9a-f]{12}…/);
    expect(dry.stdout).toMatch(/probability 80 → 100/);
    expect(readFileSync(join(dir, 'p.json'), 'utf8')).toBe(original); // the dry run wrote nothing
    const r = run(['fix', 'p.json'], { cwd: dir });
    expect(r.code).toBe(0);
    const v = run(['validate', '-f', 'json', 'p.json'], { cwd: dir });
    expect(JSON.parse(v.stdout).summary).toMatchObject({ errors: 0, warnings: 0 });
    expect(readJson(join(dir, 'p.json')).assets[0].sha256).toBe(readJson(fixturePath('valid/listing-marketing.json')).assets[0].sha256);
    expect(run(['fix', 'p.json'], { cwd: dir }).stdout).toContain('nothing to fix');
  });

  it("moves an edge's sourceHandle to handle; validate then checks that handle as any other", () => {
    const dir = tempDir();
    const pack = readJson(fixturePath('valid/buyer-lead-starter.json'));
    const edges = pack.automations[0].document.graph.edges;
    const { handle, ...e5 } = edges[4]; // control.if "replied" → "task" through "true"
    edges[4] = { ...e5, sourceHandle: handle };
    edges[5] = { ...edges[5], sourceHandle: 'yes' }; // "false" is written too: left alone
    writeFileSync(join(dir, 'p.json'), JSON.stringify(pack, null, 2));
    const before = JSON.parse(run(['validate', '-f', 'json', 'p.json'], { cwd: dir }).stdout).files[0].diagnostics.map(
      (d: { code: string }) => d.code,
    );
    expect(before).toEqual(['graph/invalid-handle', 'graph/unknown-field', 'graph/unknown-field']);
    const dry = run(['fix', '--dry-run', 'p.json'], { cwd: dir });
    expect(dry.code).toBe(1);
    expect(dry.stdout).toBe('p.json: automation "new-lead-welcome" edge "e5": sourceHandle "true" → handle\nwould fix 1 of 1 file\n');
    expect(run(['fix', 'p.json'], { cwd: dir }).code).toBe(0);
    const fixed = readJson(join(dir, 'p.json')).automations[0].document.graph.edges;
    expect(fixed[4]).toEqual({ id: 'e5', source: 'replied', target: 'task', handle: 'true' });
    expect(fixed[5]).toEqual({ ...edges[5] });
    const after = JSON.parse(run(['validate', '-f', 'json', 'p.json'], { cwd: dir }).stdout).files[0].diagnostics;
    expect(after.map((d: { code: string; pointer: string }) => `${d.code} ${d.pointer}`)).toEqual([
      'graph/unknown-field /automations/0/document/graph/edges/5/sourceHandle',
    ]);
    // A handle the block does not have is moved too, and validate says so as for any handle.
    const odd = readJson(join(dir, 'p.json'));
    const { handle: _, ...e5again } = odd.automations[0].document.graph.edges[4];
    odd.automations[0].document.graph.edges[4] = { ...e5again, sourceHandle: 'yes' };
    writeFileSync(join(dir, 'p.json'), JSON.stringify(odd));
    expect(run(['fix', 'p.json'], { cwd: dir }).stdout).toContain('edge "e5": sourceHandle "yes" → handle');
    const v = run(['validate', 'p.json'], { cwd: dir });
    expect(v.code).toBe(1);
    expect(v.stdout).toContain(
      'Edge "e5" leaves control.if "replied" through handle "yes", which that node does not have; its outputs are "true", "false". graph/invalid-handle',
    );
  });
});

describe('fix on a source folder', () => {
  it('fixes the built pack and writes back only the source files holding what changed', () => {
    const dir = tempDir();
    expect(run(['unpack', join(ROOT, 'packages/cli/test/fixtures/needs-fix.json'), join(dir, 'src')]).code).toBe(0);
    const src = join(dir, 'src');
    // unpack keeps the logo inline in assets.json, with its wrong hash and size (a file would be
    // hashed by build); an edge gets sourceHandle for handle.
    const index = readJson(join(src, 'assets.json'));
    const logo = index.findIndex((e: { key: string }) => e.key === 'logo');
    expect(index[logo]).toMatchObject({ byteSize: 1, sha256: '0'.repeat(64) });
    const bytes = Buffer.from(index[logo].data, 'base64');
    const automation = join(src, 'automations', 'open-house-invite.json');
    writeFileSync(automation, readFileSync(automation, 'utf8').replace('"handle": "each"', '"sourceHandle": "each"'));
    const files = () =>
      new Map(
        readdirSync(src, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => [join(e.parentPath, e.name), readFileSync(join(e.parentPath, e.name), 'utf8')]),
      );
    const before = files();

    const dry = run(['fix', '--dry-run', 'src'], { cwd: dir });
    expect(dry.code).toBe(1);
    expect(dry.stdout.split('\n')).toEqual([
      expect.stringMatching(/^src\/: asset "logo": sha256 000000000000… → [0-9a-f]{12}…$/),
      `src/: asset "logo": byteSize 1 → ${bytes.length}`,
      'src/: pipeline "listings" stage "sold": probability 80 → 100',
      'src/: automation "open-house-invite" edge "e3": sourceHandle "each" → handle',
      'would fix 1 of 1 source folder',
      '',
    ]);
    expect(files()).toEqual(before); // the dry run wrote nothing

    expect(run(['fix', 'src'], { cwd: dir }).code).toBe(0);
    const after = files();
    const changed = [...after]
      .filter(([f, text]) => before.get(f) !== text)
      .map(([f]) => f.slice(src.length + 1))
      .sort();
    expect(changed).toEqual(['assets.json', 'automations/open-house-invite.json', 'pipelines/listings.json']);
    expect(after.get(automation)).toBe(before.get(automation)!.replace('"sourceHandle": "each"', '"handle": "each"'));
    expect(readJson(join(src, 'assets.json'))[logo]).toMatchObject({ key: 'logo', byteSize: bytes.length, data: bytes.toString('base64') });
    const v = run(['validate', '-f', 'json', 'src'], { cwd: dir });
    expect(JSON.parse(v.stdout).summary).toMatchObject({ errors: 0, warnings: 0 });
    expect(run(['fix', 'src'], { cwd: dir }).stdout).toBe('nothing to fix in 1 source folder\n');
  });

  it('fixes a folder once when a glob matches its files or one of them is named, and none of them as a pack', () => {
    const dir = tempDir();
    expect(run(['unpack', join(ROOT, 'packages/cli/test/fixtures/needs-fix.json'), join(dir, 'packs', 'src')]).code).toBe(0);
    cpSync(fixturePath('valid/buyer-lead-starter.json'), join(dir, 'packs', 'plain.json'));
    for (const args of [['packs/**/*.json'], ['packs/src/pipelines/listings.json', 'packs/plain.json', 'packs/src/manifest.json']]) {
      const dry = run(['fix', '--dry-run', ...args], { cwd: dir });
      expect(dry.code, args.join(' ')).toBe(1);
      expect(dry.stderr).toBe('');
      expect(dry.stdout).toContain('packs/src/: pipeline "listings" stage "sold": probability 80 → 100\n');
      expect(dry.stdout).not.toMatch(/packs\/src\/[^:]+\.json:/);
      expect(dry.stdout.split('\n').at(-2)).toBe('would fix 1 of 1 file and 1 source folder');
    }
    expect(run(['fix', 'packs/**/*.json'], { cwd: dir }).code).toBe(0);
    expect(run(['validate', 'packs/**/*.json'], { cwd: dir }).code).toBe(0);
    expect(run(['fix', 'packs/src/assets.json'], { cwd: dir }).stdout).toBe('nothing to fix in 1 source folder\n');
  });

  it('sets a missing sha256 and byteSize of an asset written inline in assets.json, in their places, so fmt --check still passes', () => {
    const dir = tempDir();
    expect(run(['unpack', join(ROOT, 'packages/cli/test/fixtures/needs-fix.json'), join(dir, 'src')]).code).toBe(0);
    expect(run(['fix', 'src'], { cwd: dir }).code).toBe(0);
    const index = join(dir, 'src', 'assets.json');
    const canonical = readFileSync(index, 'utf8');
    const entries = JSON.parse(canonical);
    const logo = entries.find((e: { key: string }) => e.key === 'logo');
    const { sha256, byteSize } = logo;
    delete logo.sha256;
    delete logo.byteSize;
    writeFileSync(index, JSON.stringify(entries, null, 2) + '\n');
    expect(run(['fmt', '--check', 'src'], { cwd: dir }).code).toBe(0);
    const dry = run(['fix', '--dry-run', 'src'], { cwd: dir });
    expect(dry.code).toBe(1);
    expect(dry.stdout).toBe(
      `src/: asset "logo": sha256 set to ${sha256.slice(0, 12)}…\nsrc/: asset "logo": byteSize set to ${byteSize}\nwould fix 1 of 1 source folder\n`,
    );
    expect(run(['fix', 'src'], { cwd: dir }).code).toBe(0);
    expect(readFileSync(index, 'utf8')).toBe(canonical);
    expect(run(['fmt', '--check', 'src'], { cwd: dir }).code).toBe(0);
  });

  it('sets the hashes of many inline assets writing assets.json once', () => {
    // 1,500 inline assets without their hashes: assets.json was written out again (every asset's
    // data) for each asset fixed, 9 s where validating the folder took 0.6 s. A preload counts the
    // files the command opens for writing or renames into place (--require is not a V8 flag).
    const dir = tempDir();
    const src = join(dir, 'src');
    expect(run(['unpack', fixturePath('valid/buyer-lead-starter.json'), src]).code).toBe(0);
    const data = Buffer.alloc(1500, 7).toString('base64');
    const entries = Array.from({ length: 1500 }, (_, i) => ({
      key: `a${i}`,
      role: 'email_image',
      fileName: `a${i}.png`,
      mimeType: 'image/png',
      sourceUrl: `https://example.com/a${i}.png`,
      data,
    }));
    writeFileSync(join(src, 'assets.json'), JSON.stringify(entries, null, 2) + '\n');
    const preload = join(dir, 'count-writes.cjs');
    writeFileSync(
      preload,
      `const fsp = require('node:fs/promises'); const fs = require('node:fs'); const seen = [];
const note = (p) => { if (typeof p === 'string' && p.endsWith('assets.json')) seen.push(p); };
const rename = fsp.rename; fsp.rename = (from, to) => (note(to), rename(from, to));
const open = fsp.open; fsp.open = (p, flags, ...rest) => (/[wa+]/.test(String(flags ?? 'r')) && note(p), open(p, flags, ...rest));
const writeFile = fsp.writeFile; fsp.writeFile = (p, ...rest) => (note(p), writeFile(p, ...rest));
const writeFileSync = fs.writeFileSync; fs.writeFileSync = (p, ...rest) => (note(p), writeFileSync(p, ...rest));
const renameSync = fs.renameSync; fs.renameSync = (from, to) => (note(to), renameSync(from, to));
process.on('exit', () => process.stderr.write('\\nWRITES ' + seen.length));`,
    );
    const validate = run(['validate', 'src'], { cwd: dir });
    expect(validate.code).toBe(1); // the hashes are missing
    const fix = run(['fix', 'src'], { cwd: dir, nodeArgs: ['--require', preload] });
    expect(fix.code, fix.stderr).toBe(0);
    expect(fix.stdout.split('\n').at(-2)).toBe('fixed 1 of 1 source folder');
    expect(/\nWRITES (\d+)$/.exec(fix.stderr)?.[1]).toBe('1');
    expect(readJson(join(src, 'assets.json'))[1499]).toMatchObject({ key: 'a1499', byteSize: 1500 });
    expect(run(['validate', 'src'], { cwd: dir }).code).toBe(0);
    expect(run(['fmt', '--check', 'src'], { cwd: dir }).code).toBe(0);
  });

  it('leaves a folder that does not build alone, and says why', () => {
    const dir = tempDir();
    expect(run(['unpack', fixturePath('valid/buyer-lead-starter.json'), join(dir, 'src')]).code).toBe(0);
    rmSync(join(dir, 'src', 'automations', 'old-reminder.json'));
    const r = run(['fix', 'src', fixturePath('valid/buyer-lead-starter.json')], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('src/: not fixed: the folder does not build (1 error; setup-pack build src/ lists it)\n');
    // Not "nothing to fix", with exit 1: the folder was not looked at.
    expect(r.stdout).toBe('nothing fixed in 1 file and 1 source folder; 1 does not build\n');
    // Beside a file that was fixed, too.
    const broken = readJson(fixturePath('valid/buyer-lead-starter.json'));
    broken.pipelines[0].stages.find((st: any) => st.stageType === 'CLOSED_WON').probability = 50;
    writeFileSync(join(dir, 'won.json'), JSON.stringify(broken));
    const both = run(['fix', '--dry-run', 'src', 'won.json'], { cwd: dir });
    expect(both.code).toBe(1);
    expect(both.stdout.split('\n').at(-2)).toBe('would fix 1 of 1 file and 1 source folder; 1 does not build');
  });
});

describe('diff', () => {
  const a = 'fixtures/releases/buyer-lead-1.0.0.json';
  const b = 'fixtures/releases/buyer-lead-1.1.0.json';

  it("refuses a source folder's file named as a pack (its manifest.json, an automation's file), naming the folder, as plan does", () => {
    const dir = tempDir();
    run(['new', 'p'], { cwd: dir });
    expect(run(['build', 'p', '-o', 'built.json'], { cwd: dir }).code).toBe(0);
    for (const file of ['p/manifest.json', 'p/automations/welcome-new-contact.json']) {
      const r = run(['diff', file, 'built.json'], { cwd: dir });
      expect(r.code, file).toBe(2);
      expect(r.stdout, file).toBe('');
      expect(r.stderr, file).toBe(
        `setup-pack diff: '${file}' is a file of the pack source folder 'p', not a pack; name the folder to build it ('p')\n`,
      );
      const plan = run(['plan', file, '--url', 'http://127.0.0.1:9', '--key', 'k'], { cwd: dir });
      expect(plan.stderr, file).toBe(
        `setup-pack plan: '${file}' is a file of the pack source folder 'p', not a pack; name the folder to build it ('p')\n`,
      );
    }
    // The folder itself, and a pack built into a folder below it, are read as before.
    expect(run(['diff', 'p', 'built.json', '--exit-code'], { cwd: dir }).code).toBe(0);
    expect(run(['build', 'p', '-o', 'p/dist/p.json'], { cwd: dir }).code).toBe(0);
    expect(run(['diff', 'p/dist/p.json', 'built.json'], { cwd: dir }).code).toBe(0);
    expect(run(['build', 'p', '-o', 'p/p.json'], { cwd: dir }).code).toBe(0);
    expect(run(['diff', 'p/p.json', 'built.json'], { cwd: dir }).code).toBe(0);
  });

  it('reports the release pair: packId, version, item and node changes', () => {
    const r = run(['diff', a, b]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('packId:  matches');
    expect(r.stdout).toContain('version: 1.0.0 → 1.1.0 (up)');
    expect(r.stdout).toMatch(/\d+ added, \d+ removed, \d+ changed/);
    const json = JSON.parse(run(['diff', a, b, '--format', 'json']).stdout);
    expect(json).toMatchObject({ version: 2, packIdMatches: true, versionChange: 'up', oldVersion: '1.0.0', newVersion: '1.1.0' });
    expect(json.items.length).toBeGreaterThan(0);
    for (const item of json.items) expect(['added', 'removed', 'changed']).toContain(item.change);
    expect(run(['diff', a, b, '--exit-code']).code).toBe(1);
    expect(run(['diff', a, a, '--exit-code']).code).toBe(0);
    expect(run(['diff', a, a]).stdout).toContain('No changes.');
  });

  it('refuses a pack with items it cannot pair by key (no string key, a repeated key), naming them, where it said an item removed that was not', () => {
    const dir = tempDir();
    const pack = readJson(fixturePath('valid/buyer-lead-starter.json'));
    writeFileSync(join(dir, 'old.json'), JSON.stringify(pack));
    const key = pack.messageTemplates[1].key;
    delete pack.messageTemplates[0].key;
    pack.messageTemplates.push({ ...pack.messageTemplates[1], subject: 'A copy' });
    writeFileSync(join(dir, 'new.json'), JSON.stringify(pack));
    const last = pack.messageTemplates.length - 1;
    for (const format of ['pretty', 'json']) {
      const r = run(['diff', 'old.json', 'new.json', '-f', format], { cwd: dir });
      expect(r.code, format).toBe(2);
      expect(r.stdout, format).toBe('');
      expect(r.stderr, format).toBe(
        `setup-pack diff: 'new.json' has items diff cannot pair by key, so it cannot say which were added, removed or changed: messageTemplates[0] has no string key; messageTemplates[1], messageTemplates[${last}] share key "${key}"; give each item a key of its own (setup-pack validate says more)\n`,
      );
    }
    // Either side: the old pack named as the old one.
    expect(run(['diff', 'new.json', 'old.json'], { cwd: dir }).stderr).toMatch(/^setup-pack diff: 'new\.json' has items/);
  });

  it('refuses a pack whose changed pipeline repeats a stage key, or whose changed automation repeats a node id, naming them, where it paired the first', () => {
    // Before: the second "tag" node's change, or the second stage's, was never said: diff paired the first and exited 0.
    const dir = tempDir();
    const pack = readJson(fixturePath('valid/buyer-lead-starter.json'));
    writeFileSync(join(dir, 'old.json'), JSON.stringify(pack));
    const nodes = pack.automations[0].document.graph.nodes;
    nodes.push({ ...nodes[1], config: { ...nodes[1].config, tag_id: 'other' } });
    writeFileSync(join(dir, 'nodes.json'), JSON.stringify(pack));
    const r = run(['diff', 'old.json', 'nodes.json'], { cwd: dir });
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toBe(
      `setup-pack diff: 'nodes.json' has automation nodes diff cannot pair by id, so it cannot say which were added, removed or changed: automations[0].document.graph.nodes[1], automations[0].document.graph.nodes[${nodes.length - 1}] share id "${nodes[1].id}"; give each node an id of its own (setup-pack validate says more)\n`,
    );
    const p = pack.pipelines.findIndex((x: { stages: unknown[] }) => x.stages.length >= 2);
    const fresh = readJson(fixturePath('valid/buyer-lead-starter.json'));
    const stages = fresh.pipelines[p].stages;
    stages[1] = { ...stages[1], key: stages[0].key };
    writeFileSync(join(dir, 'stages.json'), JSON.stringify(fresh));
    const s = run(['diff', '-f', 'json', 'stages.json', 'old.json'], { cwd: dir });
    expect(s).toMatchObject({ code: 2, stdout: '' });
    expect(s.stderr).toBe(
      `setup-pack diff: 'stages.json' has pipeline stages diff cannot pair by key, so it cannot say which were added, removed or changed: pipelines[${p}].stages[0], pipelines[${p}].stages[1] share key "${stages[0].key}"; give each stage a key of its own (setup-pack validate says more)\n`,
    );
  });

  it('does not count a moved node as a change, and flags a different packId', () => {
    const dir = tempDir();
    const pack = readJson(fixturePath('valid/buyer-lead-starter.json'));
    writeFileSync(join(dir, 'old.json'), JSON.stringify(pack));
    for (const n of pack.automations[0].document.graph.nodes) n.position = { x: 999, y: 999 };
    pack.automations[0].document.graph.nodes[1].config.tag_id = 'other';
    pack.packId = '11111111-1111-4111-8111-111111111111';
    writeFileSync(join(dir, 'new.json'), JSON.stringify(pack));
    const r = run(['diff', 'old.json', 'new.json', '-f', 'json'], { cwd: dir });
    const d = JSON.parse(r.stdout);
    expect(d.packIdMatches).toBe(false);
    expect(d.versionChange).toBe('same');
    expect(d.items).toHaveLength(1);
    expect(d.items[0].automation.nodes).toEqual([
      {
        id: pack.automations[0].document.graph.nodes[1].id,
        change: 'changed',
        kind: 'action.add_tag',
        fields: ['config.tag_id'],
        values: [{ field: 'config.tag_id', before: 'tag-buyer-lead', after: pack.automations[0].document.graph.nodes[1].config.tag_id }],
      },
    ]);
    expect(run(['diff', 'old.json', 'new.json'], { cwd: dir }).stdout).toMatch(/packId:\s+differs/);
  });

  it('says which stages of a pipeline changed, by key, and a new order, not only that its stages did', () => {
    const dir = tempDir();
    const pack = readJson(fixturePath('valid/buyer-lead-starter.json'));
    writeFileSync(join(dir, 'old.json'), JSON.stringify(pack));
    const stages = pack.pipelines[0].stages;
    stages[1].name = 'Touring homes';
    stages.splice(2, 0, { ...stages[2], key: 'pre-offer', name: 'Pre-offer' });
    pack.pipelines[0].name = 'Buyers 2';
    writeFileSync(join(dir, 'new.json'), JSON.stringify(pack));
    const out = run(['diff', 'old.json', 'new.json'], { cwd: dir }).stdout;
    expect(out).toContain(
      `  ~ ${pack.pipelines[0].key} "Buyers 2"\n      ~ name: "Buyers" → "Buyers 2"\n      ~ stage ${stages[1].key} "Touring homes"\n          ~ name: "Showing homes" → "Touring homes"\n      + stage pre-offer "Pre-offer"\n`,
    );
    expect(out).not.toContain('(name, stages)');
    const json = JSON.parse(run(['diff', 'old.json', 'new.json', '-f', 'json'], { cwd: dir }).stdout);
    expect(json.items[0].stages).toEqual([
      {
        key: stages[1].key,
        change: 'changed',
        name: 'Touring homes',
        fields: ['name'],
        values: [{ field: 'name', before: 'Showing homes', after: 'Touring homes' }],
      },
      { key: 'pre-offer', change: 'added', name: 'Pre-offer' },
    ]);
    [stages[0], stages[1]] = [stages[1], stages[0]];
    writeFileSync(join(dir, 'new.json'), JSON.stringify(pack));
    expect(run(['diff', 'old.json', 'new.json'], { cwd: dir }).stdout).toContain(
      `      ~ stage order: ${stages.map((st: { key: string }) => st.key).join(', ')}\n`,
    );
  });

  it("says what a template's subject, body and richTextDoc, an automation's references, a block's config value, a stage's field and the pack's name, description and author were and are (text and json)", () => {
    const dir = tempDir();
    const pack = readJson(fixturePath('valid/buyer-lead-starter.json'));
    const template = pack.messageTemplates.find((t: any) => t.key === 'tpl-follow-up');
    template.body = '<p>Hi</p>\n<p>Homes</p>\n<p>Bye</p>';
    writeFileSync(join(dir, 'old.json'), JSON.stringify(pack));
    template.subject = 'New homes for you';
    template.body = '<p>Hi</p>\n<p>Homes near you</p>\n<p>Bye</p>';
    template.richTextDoc = { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Hi' }] }] };
    const doc = pack.automations[0].document;
    doc.references = doc.references.filter((r: any) => r.type !== 'lead_source');
    doc.graph.nodes.find((n: any) => n.id === 'wait').config.unit = 'hours';
    pack.pipelines[0].stages[0].probability = 12;
    pack.name = 'Buyer Lead Starter 2';
    pack.description = 'Welcome new buyer leads.';
    pack.author = 'Ann';
    writeFileSync(join(dir, 'new.json'), JSON.stringify(pack));
    const out = run(['diff', 'old.json', 'new.json'], { cwd: dir }).stdout;
    for (const line of [
      'fields:  name, description, author',
      '  ~ name: "Buyer Lead Starter" → "Buyer Lead Starter 2"',
      '  ~ description: "Welcome new buyer leads, nurture them, and track them through a buyer pipeline." → "Welcome new buyer leads."',
      '  ~ author: "Setup Pack Samples" → "Ann"',
      '      ~ document.references: removed lead_source "src-zillow"',
      '      ~ node wait control.wait',
      '          ~ config.unit: "days" → "hours"',
      '      ~ stage new "New"',
      '          ~ probability: 10 → 12',
      '  ~ tpl-follow-up "Follow-up email"',
      '      ~ subject: "Homes you might like, {{contact.first_name}}" → "New homes for you"',
      '      ~ body: 1 line changed of 3 lines (line 2: "<p>Homes</p>" → "<p>Homes near you</p>")',
    ])
      expect(out.split('\n'), out).toContain(line);
    expect(out).toContain('      ~ richTextDoc: set to {"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"…\n');
    expect(out).not.toMatch(/\((subject|body|name)/);
    const json = JSON.parse(run(['diff', 'old.json', 'new.json', '-f', 'json'], { cwd: dir }).stdout);
    // The values themselves, not their words: "Ann", not "\"Ann\"".
    expect(json.values).toContainEqual({ field: 'author', before: 'Setup Pack Samples', after: 'Ann' });
    expect(json.items.find((i: any) => i.key === 'tpl-follow-up').values).toContainEqual({
      field: 'body',
      summary: '1 line changed of 3 lines (line 2: "<p>Homes</p>" → "<p>Homes near you</p>")',
    });
  });

  it("counts a body's lines as validation does: LF, CR and CR LF each end one line (a body saved with lone CRs)", () => {
    const dir = tempDir();
    const pack = readJson(fixturePath('valid/buyer-lead-starter.json'));
    const tpl = pack.messageTemplates.find((t: any) => t.key === 'tpl-follow-up');
    tpl.body = '<p>Hi</p>\r<p>Homes</p>\r<p>Bye</p>';
    writeFileSync(join(dir, 'old.json'), JSON.stringify(pack));
    tpl.body = '<p>Hi</p>\r<p>Homes near you</p>\r<p>Bye</p>';
    writeFileSync(join(dir, 'new.json'), JSON.stringify(pack));
    const said = '1 line changed of 3 lines (line 2: "<p>Homes</p>" → "<p>Homes near you</p>")';
    const out = run(['diff', 'old.json', 'new.json'], { cwd: dir });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout.split('\n'), out.stdout).toContain(`      ~ body: ${said}`);
    const json = JSON.parse(run(['diff', 'old.json', 'new.json', '-f', 'json'], { cwd: dir }).stdout);
    expect(json.items.find((i: any) => i.key === 'tpl-follow-up').values).toContainEqual({ field: 'body', summary: said });
    // The same lines with other line ends: said so, naming each side's.
    tpl.body = '<p>Hi</p>\n<p>Homes near you</p>\n<p>Bye</p>';
    writeFileSync(join(dir, 'lf.json'), JSON.stringify(pack));
    expect(run(['diff', 'new.json', 'lf.json'], { cwd: dir }).stdout.split('\n')).toContain(
      '      ~ body: the same lines, with LF line endings',
    );
  });

  it("says what changed in a smart list's filters: conditions and groups by place, in words before and after, and a reorder as one", () => {
    const dir = tempDir();
    const pack = readJson(fixturePath('valid/buyer-lead-starter.json'));
    const list = pack.smartLists[0];
    const [tag, created] = list.filters.root.children;
    list.filters.root.children.push({
      type: 'or',
      children: [
        { type: 'condition', field: 'stage', operator: 'equals', value: 'stage-new' },
        { type: 'condition', field: 'city', operator: 'equals', value: 'Paris' },
      ],
    });
    writeFileSync(join(dir, 'old.json'), JSON.stringify(pack));
    list.name = 'Fresh buyer leads';
    // The nested or: its second condition's value (with a line break a terminal must not act on) and a new condition.
    const or = list.filters.root.children[2];
    or.children[1].value = 'Lyon\nParis';
    or.children.push({ type: 'condition', field: 'lead_source', operator: 'equals', value: 'zillow' });
    // The root: created_at goes, the tag condition moves after the or group.
    list.filters.root.children = [or, tag];
    writeFileSync(join(dir, 'new.json'), JSON.stringify(pack));
    const out = run(['diff', 'old.json', 'new.json'], { cwd: dir }).stdout;
    expect(out).toContain(
      [
        `  ~ ${list.key} "Fresh buyer leads"`,
        '      ~ name: "New buyer leads" → "Fresh buyer leads"',
        '      ~ group root: reordered, the same filter',
        '      ~ condition root › 1 › 2 (value): city is Paris → city is Lyon\\nParis',
        '      + condition root › 1 › 3: lead source is zillow',
        '      - condition root › 2: created at is within the last 7 days',
        '',
      ].join('\n'),
    );
    expect(out).not.toContain('(filters)');
    expect(out).not.toContain('(name, filters)');
    const json = JSON.parse(run(['diff', 'old.json', 'new.json', '-f', 'json'], { cwd: dir }).stdout);
    expect(json.items).toHaveLength(1);
    expect(json.items[0]).toMatchObject({ kind: 'smartLists', key: list.key, change: 'changed', fields: ['name', 'filters'] });
    expect(json.items[0].filters).toEqual({
      fields: [],
      changes: [
        { path: [], change: 'reordered', node: 'group' },
        { path: [0, 1], change: 'changed', node: 'condition', fields: ['value'], before: 'city is Paris', after: 'city is Lyon\nParis' },
        { path: [0, 2], change: 'added', node: 'condition', after: 'lead source is zillow' },
        { path: [1], change: 'removed', node: 'condition', before: `created at is within the last ${created.value} days` },
      ],
    });
    // Only a reorder: said as such, the one line.
    const old = readJson(join(dir, 'old.json'));
    old.smartLists[0].filters.root.children.reverse();
    writeFileSync(join(dir, 'new.json'), JSON.stringify(old));
    const reordered = run(['diff', 'old.json', 'new.json'], { cwd: dir }).stdout;
    expect(reordered).toContain(`  ~ ${list.key} "${old.smartLists[0].name}"\n      ~ group root: reordered, the same filter\n\n`);
  });

  it("names the keys that changed in a resource's data and an automation's settings, and a control.if block's conditions by place", () => {
    const dir = tempDir();
    const pack = readJson(fixturePath('valid/buyer-lead-starter.json'));
    writeFileSync(join(dir, 'old.json'), JSON.stringify(pack));
    const tag = pack.resources.find((r: { key: string }) => r.key === 'tag-buyer-lead');
    tag.data.color = '#ef4444';
    const doc = pack.automations[0].document;
    doc.settings.daily_send_limit = 250;
    const node = doc.graph.nodes.find((n: { kind: string }) => n.kind === 'control.if');
    node.config.conditions = {
      type: 'and',
      children: [node.config.conditions, { type: 'condition', field: 'tags', operator: 'excludes', value: 'tag-hot' }],
    };
    writeFileSync(join(dir, 'new.json'), JSON.stringify(pack));
    const out = run(['diff', 'old.json', 'new.json'], { cwd: dir }).stdout;
    expect(out).toContain(
      [
        `  ~ ${pack.automations[0].key} "${doc.name}"`,
        '      ~ document.settings.daily_send_limit: 500 → 250',
        `      ~ node ${node.id} control.if: config.conditions`,
        '          ~ group root: last reply at is set → last reply at is set and contact does not have tag tag-hot',
        '',
      ].join('\n'),
    );
    expect(out).toContain('  ~ tag-buyer-lead "Buyer lead"\n      ~ data.color: "#3b82f6" → "#ef4444"\n');
    const json = JSON.parse(run(['diff', 'old.json', 'new.json', '-f', 'json'], { cwd: dir }).stdout);
    expect(json.items.find((i: { kind: string }) => i.kind === 'automations').automation.nodes[0].conditions).toEqual([
      {
        path: [],
        change: 'changed',
        node: 'group',
        before: 'last reply at is set',
        after: 'last reply at is set and contact does not have tag tag-hot',
      },
    ]);
  });

  it('says "(none)" for a pack without a version, not an empty place', () => {
    const dir = tempDir();
    const pack = readJson(fixturePath('valid/buyer-lead-starter.json'));
    writeFileSync(join(dir, 'new.json'), JSON.stringify(pack));
    delete pack.version;
    writeFileSync(join(dir, 'old.json'), JSON.stringify(pack));
    expect(run(['diff', 'old.json', 'new.json'], { cwd: dir }).stdout).toContain(
      `version: (none) → ${readJson(fixturePath('valid/buyer-lead-starter.json')).version} (`,
    );
  });

  it('diffs a source folder against a pack file or another folder, as the pack it builds, and says why a folder does not build', () => {
    const dir = tempDir();
    expect(run(['unpack', a, join(dir, 'old')]).code).toBe(0);
    expect(run(['unpack', b, join(dir, 'new')]).code).toBe(0);
    // The same release as a folder and as its file: no change, exportedAt included.
    const same = run(['diff', join(dir, 'old'), a, '--exit-code']);
    expect(same.stdout).toContain('No changes.');
    expect(same.code).toBe(0);
    // Two folders: what the two files differ in, but exportedAt, which neither folder holds.
    const files = JSON.parse(run(['diff', a, b, '--format', 'json']).stdout);
    const folders = JSON.parse(run(['diff', join(dir, 'old'), join(dir, 'new'), '--format', 'json']).stdout);
    expect(files.fields).toContain('exportedAt');
    expect(folders.fields).toEqual(files.fields.filter((f: string) => f !== 'exportedAt'));
    expect(folders.items).toEqual(files.items);
    // A folder that does not build: its findings as build prints them, exit 2.
    const manifest = join(dir, 'new', 'manifest.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace(/"packId": "[^"]*"/, '"packId": "not-a-uuid"'));
    const bad = run(['diff', join(dir, 'old'), join(dir, 'new')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/manifest\.json:5:\d+[\s\S]*not-a-uuid/);
    expect(bad.stdout).toBe('');
  });

  it('a missing file exits 2 with one line', () => {
    const r = run(['diff', a, 'missing.json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("setup-pack diff: cannot read 'missing.json': no such file\n");
  });
});

describe('unpack and build', () => {
  it.each(['valid/buyer-lead-starter.json', 'valid/listing-marketing.json', 'releases/buyer-lead-1.1.0.json'])(
    'round-trips %s through a folder',
    (f) => {
      const dir = tempDir();
      const u = run(['unpack', fixturePath(f), join(dir, 'src')]);
      expect(u.code, u.stderr).toBe(0);
      expect(u.stderr).toBe('');
      const b = run(['build', join(dir, 'src'), '-o', join(dir, 'out.json'), '--exported-at', '2031-05-06T07:08:09Z']);
      expect(b.code, b.stderr).toBe(0);
      const original = readJson(fixturePath(f));
      expect(readJson(join(dir, 'out.json'))).toEqual({ ...original, exportedAt: '2031-05-06T07:08:09Z' });
      expect(run(['fmt', '--check', join(dir, 'out.json')]).code).toBe(0);
    },
  );

  it('ignores files and folders starting with a dot, as documented: build, validate, fix and fmt read none of them', () => {
    const dir = tempDir();
    const src = join(dir, 'src');
    expect(run(['unpack', fixturePath('valid/listing-marketing.json'), src]).code).toBe(0);
    const entry = readJson(join(src, 'assets.json'))[0];
    const odd: Record<string, string> = {
      'resources/.x.json': '[{"key": "stray", "name": "Stray"}]',
      'resources/.broken.json': 'not json',
      'automations/.draft.json': '{',
      'templates/.notes.html': '<p>draft</p>',
      'assets/.DS_Store': 'junk',
      'assets/.cache/thumb.png': 'junk',
      '.vscode/settings.json': '{"a": 1}',
      '.hidden/manifest.json': '{',
    };
    for (const [f, text] of Object.entries(odd)) {
      mkdirSync(join(src, f, '..'), { recursive: true });
      writeFileSync(join(src, f), text);
    }
    const b = run(['build', src, '--exported-at', '2031-05-06T07:08:09Z']);
    expect(b.stderr).toBe('');
    expect(b.code).toBe(0);
    expect(JSON.parse(b.stdout)).toEqual({ ...readJson(fixturePath('valid/listing-marketing.json')), exportedAt: '2031-05-06T07:08:09Z' });
    const v = run(['validate', '-f', 'json', src]);
    expect(JSON.parse(v.stdout).files).toEqual([{ path: `${src}/`, valid: true, errorCount: 0, warningCount: 0, diagnostics: [] }]);
    expect(run(['fix', src]).stdout).toBe('nothing to fix in 1 source folder\n');
    expect(run(['fmt', '--check', src]).code).toBe(0);
    for (const [f, text] of Object.entries(odd)) expect(readFileSync(join(src, f), 'utf8'), f).toBe(text);
    // An asset entry naming a file that starts with a dot names a file build does not read: said as such.
    writeFileSync(join(src, 'assets.json'), JSON.stringify([{ ...entry, file: '.DS_Store' }], null, 2));
    const hidden = run(['build', src]);
    expect(hidden.code).toBe(1);
    expect(hidden.stderr).toMatch(
      /assets\.json:\d+:\d+ error "file" names "\.DS_Store", but build ignores files and folders whose name starts with a dot, .* build\/asset-path/,
    );
  });

  it('refuses an asset entry that gives its bytes twice, as a file and as "data", as a template body given twice is', () => {
    // Before: the entry's "data" was dropped without a word, the file's bytes built in its place.
    const dir = tempDir();
    run(['unpack', fixturePath('valid/listing-marketing.json'), dir]);
    const entries = readJson(join(dir, 'assets.json'));
    entries[0].data = Buffer.from('the bytes the author meant').toString('base64');
    writeFileSync(join(dir, 'assets.json'), JSON.stringify(entries, null, 2));
    for (const command of ['build', 'validate']) {
      const r = run([command, dir, '--exported-at', '2031-05-06T07:08:09Z'].slice(0, command === 'build' ? 4 : 2));
      expect(r.code, command).toBe(1);
      expect(r.stdout + r.stderr, command).toMatch(
        new RegExp(
          `assets\\.json:\\d+:\\d+ error The asset "logo" has its bytes in assets/${entries[0].file} \\("file"\\) and in "data"; keep one\\. build/duplicate-data`,
        ),
      );
    }
  });

  it('writes template bodies and assets as real files', () => {
    const dir = tempDir();
    run(['unpack', fixturePath('valid/listing-marketing.json'), dir]);
    const pack = readJson(fixturePath('valid/listing-marketing.json'));
    const tpl = pack.messageTemplates.find((t: any) => t.channel !== 'sms');
    expect(readFileSync(join(dir, 'templates', `${tpl.key}.html`), 'utf8')).toBe(tpl.body);
    const asset = pack.assets[0];
    const entry = readJson(join(dir, 'assets.json'))[0];
    expect(readFileSync(join(dir, 'assets', entry.file))).toEqual(Buffer.from(asset.data, 'base64'));
  });

  it('follows a symlinked asset file inside the repository holding the folder', () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.git')); // the repository's root
    run(['unpack', fixturePath('valid/listing-marketing.json'), join(dir, 'packs', 'src')]);
    const entry = readJson(join(dir, 'packs', 'src', 'assets.json'))[0];
    renameSync(join(dir, 'packs', 'src', 'assets', entry.file), join(dir, 'shared.bin'));
    symlinkSync(join(dir, 'shared.bin'), join(dir, 'packs', 'src', 'assets', entry.file));
    const r = run(['build', join(dir, 'packs', 'src'), '--exported-at', '2026-01-01T00:00:00Z']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).assets[0]).toEqual(readJson(fixturePath('valid/listing-marketing.json')).assets[0]);
  });

  it('refuses a linked file that leads out of the repository, names where it leads, and writes nothing', () => {
    const outside = tempDir();
    writeFileSync(join(outside, 'id_rsa'), 'PRIVATE KEY');
    const dir = tempDir();
    mkdirSync(join(dir, 'repo', '.git'), { recursive: true });
    const src = join(dir, 'repo', 'src');
    run(['unpack', fixturePath('valid/listing-marketing.json'), src]);
    const entry = readJson(join(src, 'assets.json'))[0];
    rmSync(join(src, 'assets', entry.file));
    symlinkSync(join(outside, 'id_rsa'), join(src, 'assets', entry.file));
    const out = join(dir, 'pack.json');
    const r = run(['build', src, '-o', out, '--exported-at', '2026-01-01T00:00:00Z']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`assets/${entry.file.replace('.', '\\.')}:1:1 error .* build/link-outside`));
    expect(r.stderr).toContain(
      `is a link to ${realpathSync(join(outside, 'id_rsa'))}, outside the repository (${realpathSync(join(dir, 'repo'))})`,
    );
    expect(r.stderr).not.toContain('does not exist'); // one finding, not also a missing file
    expect(existsSync(out)).toBe(false);
    // validate compiles the folder the same way, and the secret is not in any output.
    const v = run(['validate', '-f', 'json', src]);
    expect(v.code).toBe(1);
    expect(JSON.parse(v.stdout).files.flatMap((f: any) => f.diagnostics.map((d: any) => d.code))).toContain('build/link-outside');
    expect(v.stdout + r.stderr + r.stdout).not.toContain('PRIVATE KEY');
    expect(v.stdout).not.toContain(Buffer.from('PRIVATE KEY').toString('base64'));
    // Outside any repository the folder itself is the bound.
    const lone = join(tempDir(), 'src');
    run(['unpack', fixturePath('valid/listing-marketing.json'), lone]);
    rmSync(join(lone, 'assets', entry.file));
    symlinkSync(join(outside, 'id_rsa'), join(lone, 'assets', entry.file));
    const l = run(['build', lone]);
    expect(l.code).toBe(1);
    expect(l.stderr).toContain('outside the source folder (no repository holds it)');
  });

  it('reports a broken link or a loop of links in a source folder, by its path, and writes nothing: never a pack built without it', () => {
    const dir = tempDir();
    const src = join(dir, 'src');
    run(['unpack', fixturePath('valid/listing-marketing.json'), src]);
    const entry = readJson(join(src, 'assets.json'))[0];
    rmSync(join(src, 'assets', entry.file));
    symlinkSync('../../gone.png', join(src, 'assets', entry.file));
    // A link nothing lists (a draft kept elsewhere): built as if it were not there, it would pass.
    symlinkSync('../../drafts/draft.json', join(src, 'automations', 'draft.json'));
    symlinkSync('loop-b.json', join(src, 'automations', 'loop-a.json'));
    symlinkSync('loop-a.json', join(src, 'automations', 'loop-b.json'));
    const out = join(dir, 'pack.json');
    const r = run(['build', src, '-o', out, '--exported-at', '2026-01-01T00:00:00Z']);
    expect(r.code, r.stderr).toBe(1);
    expect(existsSync(out)).toBe(false);
    expect(r.stderr).toMatch(
      new RegExp(
        `assets/${entry.file.replace('.', '\\.')}:1:1 error assets/${entry.file.replace('.', '\\.')} cannot be read: it is a symbolic link to '../../gone\\.png', which does not exist\\. build/broken-link`,
      ),
    );
    expect(r.stderr).toMatch(
      /automations\/draft\.json:1:1 error automations\/draft\.json cannot be read: it is a symbolic link to '\.\.\/\.\.\/drafts\/draft\.json', which does not exist\. build\/broken-link/,
    );
    expect(r.stderr).toMatch(
      /automations\/loop-a\.json:1:1 error automations\/loop-a\.json cannot be read: it is a symbolic link that leads round in a loop\. build\/broken-link/,
    );
    expect(r.stderr).not.toContain('build/missing-file'); // one finding for the asset's file, not also a missing one
    // validate compiles the folder the same way.
    const v = run(['validate', '-f', 'json', src]);
    expect(v.code).toBe(1);
    const found = JSON.parse(v.stdout).files.flatMap((f: any) => f.diagnostics.map((d: any) => `${f.path} ${d.code}`));
    for (const file of [`assets/${entry.file}`, 'automations/draft.json', 'automations/loop-a.json', 'automations/loop-b.json'])
      expect(found).toContain(`${join(src, file)} build/broken-link`);
  });

  it('one root cause, one finding: a broken link where build would read a file is build/broken-link alone, not also a file missing for what it would give', () => {
    const dir = tempDir();
    const src = join(dir, 'src');
    run(['unpack', fixturePath('valid/buyer-lead-starter.json'), src]);
    const kinds = readdirSync(join(src, 'resources'));
    expect(kinds.length).toBeGreaterThan(0);
    const resources = join('resources', kinds[0]);
    const body = join(
      'templates',
      readdirSync(join(src, 'templates')).find((f) => f.endsWith('.html'))!,
    );
    for (const file of [resources, body]) {
      rmSync(join(src, file));
      symlinkSync('../../gone', join(src, file));
    }
    const out = join(dir, 'pack.json');
    const r = run(['validate', '-f', 'json', src]);
    expect(r.code, r.stderr).toBe(1);
    const found = JSON.parse(r.stdout).files.flatMap((f: any) =>
      f.diagnostics.map((d: any) => `${f.path.slice(src.length + 1)} ${d.code}`),
    );
    expect(found.sort()).toEqual([`${body} build/broken-link`, `${resources} build/broken-link`].sort());
    expect(run(['build', src, '-o', out]).code).toBe(1);
    expect(existsSync(out)).toBe(false);
    // A manifest or an assets.json that is a broken link: that finding alone, not a lost manifest, nor every asset file unused.
    const assetsSrc = join(dir, 'listing');
    run(['unpack', fixturePath('valid/listing-marketing.json'), assetsSrc]);
    for (const file of ['manifest.json', 'assets.json']) {
      const folder = join(dir, file.replace('.json', '-src'));
      cpSync(assetsSrc, folder, { recursive: true });
      rmSync(join(folder, file));
      symlinkSync('gone.json', join(folder, file));
      const v = run(['validate', '-f', 'json', folder]);
      expect(v.code, file).toBe(1);
      expect(
        JSON.parse(v.stdout).files.flatMap((f: any) => f.diagnostics.map((d: any) => `${f.path.slice(folder.length + 1)} ${d.code}`)),
        file,
      ).toEqual([`${file} build/broken-link`]);
    }
  });

  it('a pipe, a socket or a device in a source folder (or a link to one) is build/not-a-file, by its path: never left out without a word, never read (it could wait forever)', () => {
    const dir = tempDir();
    const src = join(dir, 'src');
    run(['unpack', fixturePath('valid/listing-marketing.json'), src]);
    const manifest = readJson(join(src, 'manifest.json'));
    const automation = `automations/${readdirSync(join(src, 'automations'))[0]}`;
    const entry = readJson(join(src, 'assets.json'))[0];
    const fifo = (path: string) => expect(spawnSync('mkfifo', [path]).status).toBe(0);
    // A listed automation's file that is a pipe: said so, not also a missing file.
    rmSync(join(src, automation));
    fifo(join(src, automation));
    // A draft nobody lists, as a pipe: built as if it were not there, it would pass.
    fifo(join(src, 'automations', 'draft.json'));
    // An asset's file that is a link to a pipe inside the folder.
    fifo(join(src, 'feed'));
    rmSync(join(src, 'assets', entry.file));
    symlinkSync('../feed', join(src, 'assets', entry.file));
    const out = join(dir, 'pack.json');
    const r = run(['build', src, '-o', out], { timeout: 20_000 });
    expect(r.code, r.stderr).toBe(1);
    expect(existsSync(out)).toBe(false);
    expect(r.stderr).toMatch(
      new RegExp(
        `${automation.replace('.', '\\.')}:1:1 error ${automation.replace('.', '\\.')} cannot be read: it is a named pipe \\(FIFO\\), not a file\\. build/not-a-file`,
      ),
    );
    expect(r.stderr).toMatch(
      /automations\/draft\.json:1:1 error automations\/draft\.json cannot be read: it is a named pipe \(FIFO\), not a file\. build\/not-a-file/,
    );
    expect(r.stderr).toContain(
      `assets/${entry.file} cannot be read: it is a symbolic link to '../feed', a named pipe (FIFO), not a file. build/not-a-file`,
    );
    expect(r.stderr).not.toContain('build/missing-file');
    expect(r.stderr).not.toContain('feed:'); // a file at the top that build does not read is no finding
    // validate compiles the folder the same way.
    const v = run(['validate', '-f', 'json', src], { timeout: 20_000 });
    expect(v.code).toBe(1);
    const found = JSON.parse(v.stdout).files.flatMap((f: any) =>
      f.diagnostics.map((d: any) => `${f.path.slice(src.length + 1)} ${d.code}`),
    );
    expect(found.sort()).toEqual(
      [`assets/${entry.file} build/not-a-file`, `${automation} build/not-a-file`, 'automations/draft.json build/not-a-file'].sort(),
    );
    expect(manifest.automations.length).toBeGreaterThan(0);
    // fmt cannot read such a file either (exit 2), and formats the rest.
    const f = run(['fmt', '--check', src], { timeout: 20_000 });
    expect(f.code, f.stdout + f.stderr).toBe(2);
    expect(f.stderr).toContain(`cannot read the file: it is a named pipe (FIFO), not a file`);
  });

  it('refuses a template body that is not UTF-8 (an .html saved as Windows-1252) and writes nothing', () => {
    const dir = tempDir();
    run(['unpack', fixturePath('valid/buyer-lead-starter.json'), join(dir, 'src')]);
    const html = readdirSync(join(dir, 'src', 'templates')).find((f) => f.endsWith('.html'))!;
    writeFileSync(join(dir, 'src', 'templates', html), Buffer.from('<p>Bienvenue \xe0 vous</p>', 'latin1'));
    const out = join(dir, 'pack.json');
    const r = run(['build', join(dir, 'src'), '-o', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `templates/${html.replace('.', '\\.')}:1:1 error The file is not UTF-8 text: line 1 has bytes that are not UTF-8.* build/not-utf8`,
      ),
    );
    expect(existsSync(out)).toBe(false);
  });

  it('build uses SOURCE_DATE_EPOCH for exportedAt and writes to stdout without -o', () => {
    const dir = tempDir();
    run(['unpack', fixturePath('valid/buyer-lead-starter.json'), dir]);
    const r = run(['build', dir], { env: { SOURCE_DATE_EPOCH: '1700000000' } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).exportedAt).toBe('2023-11-14T22:13:20Z');
  });

  it('unpack refuses an automation the layout cannot hold (no document, fields besides key and document), naming it, and writes nothing', () => {
    const dir = tempDir();
    const pack = readJson(fixturePath('valid/buyer-lead-starter.json'));
    const [first, second] = pack.automations;
    delete first.document;
    second.enabled = true;
    writeFileSync(join(dir, 'p.json'), JSON.stringify(pack, null, 2));
    const r = run(['unpack', 'p.json', 'src'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `setup-pack unpack: cannot unpack: automation "${first.key}" has no "document", and its file in automations/ holds the document: give it one, or remove the automation; ` +
        `automation "${second.key}" has "enabled" beside its key and document, which its file in automations/ cannot hold (validate reports it): remove it\n`,
    );
    expect(existsSync(join(dir, 'src'))).toBe(false);
  });

  it('unpack refuses a pack file that says a property twice or holds a number JSON.parse does not read as written, says where, and writes nothing', () => {
    const dir = tempDir();
    const text = readFileSync(fixturePath('valid/buyer-lead-starter.json'), 'utf8');
    const at = (t: string, what: string) => {
      const lines = t.slice(0, t.indexOf(what)).split('\n');
      return `${lines.length}:${lines.at(-1)!.length + 1}`;
    };
    const cases = [
      [
        'twice.json',
        text.replace(/\n {2}"description"/, '\n  "name": "First name",\n  "description"'),
        '"name": "First name"',
        'json/duplicate-key',
        'in the source folder, it would lose the first',
      ],
      [
        'big.json',
        text.replace('"probability": 10', '"probability": 1e400'),
        '1e400',
        'json/number-range',
        'in the source folder, it would be null',
      ],
      [
        'precise.json',
        text.replace('"probability": 10', '"probability": 12345678901234567890'),
        '12345678901234567890',
        'json/number-precision',
        'in the source folder, it would be the number it reads as',
      ],
      [
        'tiny.json',
        text.replace('"probability": 10', '"probability": 1e-400'),
        '1e-400',
        'json/number-precision',
        'in the source folder, it would be the number it reads as',
      ],
      [
        'digits.json',
        text.replace('"probability": 10', '"probability": 10.0000000000000000001'),
        '10.0000000000000000001',
        'json/number-precision',
        'in the source folder, it would be the number it reads as',
      ],
    ] as const;
    for (const [name, body, what, code, loss] of cases) {
      writeFileSync(join(dir, name), body);
      const r = run(['unpack', name, 'src'], { cwd: dir });
      expect(r.code, name).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        new RegExp(`^${name.replace('.', '\\.')}:${at(body, what)} error .*unpack writes nothing: ${loss}\\. ${code}$`, 'm'),
      );
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(existsSync(join(dir, 'src'))).toBe(false);
    }
    // With --force into a folder that holds a source folder: it is left as it was.
    expect(run(['unpack', fixturePath('valid/buyer-lead-starter.json'), join(dir, 'src')]).code).toBe(0);
    const manifest = readFileSync(join(dir, 'src', 'manifest.json'), 'utf8');
    expect(run(['unpack', '--force', 'big.json', 'src'], { cwd: dir }).code).toBe(1);
    expect(readFileSync(join(dir, 'src', 'manifest.json'), 'utf8')).toBe(manifest);
  });

  it('unpack refuses a non-empty folder without --force', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'keep.txt'), 'x');
    const r = run(['unpack', fixturePath('valid/buyer-lead-starter.json'), dir]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(run(['unpack', '--force', fixturePath('valid/buyer-lead-starter.json'), dir]).code).toBe(0);
    expect(existsSync(join(dir, 'keep.txt'))).toBe(true);
    expect(existsSync(join(dir, 'manifest.json'))).toBe(true);
  });

  it('positions validation errors in the source file they come from', () => {
    const dir = tempDir();
    run(['unpack', fixturePath('valid/buyer-lead-starter.json'), dir]);
    const pack = readJson(fixturePath('valid/buyer-lead-starter.json'));
    const key = pack.automations[0].key;
    const file = join(dir, 'automations', `${key}.json`);
    writeFileSync(file, readFileSync(file, 'utf8').replace('"action.add_tag"', '"action.add_tagg"'));
    const tplKey = pack.messageTemplates[0].key;
    const tplFile = join(dir, 'templates', `${tplKey}.json`);
    writeFileSync(tplFile, readFileSync(tplFile, 'utf8').replace('"channel": "sms"', '"channel": "fax"'));
    const out = join(dir, 'out.json');
    const r = run(['build', dir, '-o', out]);
    expect(r.code).toBe(1);
    expect(existsSync(out)).toBe(false);
    const lines = readFileSync(file, 'utf8').split('\n');
    const line = lines.findIndex((l) => l.includes('"action.add_tagg"')) + 1;
    const col = lines[line - 1].indexOf('"action.add_tagg"') + 1;
    expect(r.stderr).toContain(`automations/${key}.json:${line}:${col} error`);
    expect(r.stderr).toMatch(new RegExp(`templates/${tplKey}\\.json:\\d+:\\d+ error .*schema/enum`));
    const json = JSON.parse(run(['build', dir, '-o', out, '-f', 'json']).stderr);
    const entry = json.files.find((f: any) => f.path.endsWith(`automations/${key}.json`));
    expect(entry.diagnostics[0]).toMatchObject({ code: 'schema/enum', pointer: '/graph/nodes/1/kind', line, column: col });
  });

  it('places every finding of a source file, many per file, on its value (an unknown field on its name) and its notes in the same file', () => {
    const dir = tempDir();
    run(['unpack', fixturePath('valid/buyer-lead-starter.json'), dir]);
    const pack = readJson(fixturePath('valid/buyer-lead-starter.json'));
    const key = pack.automations[0].key;
    const file = join(dir, 'automations', `${key}.json`);
    const doc = readJson(file);
    // An unknown config field on every block and a field the format does not define on the first
    // (an info each), a field the schema does not know in the settings: each on its name, which is
    // what is unknown; and the second block with the first one's id.
    doc.graph.nodes.forEach((n: any, i: number) => (n.config = { ...n.config, [`legacy_${i}`]: `old-${i}` }));
    doc.graph.nodes[0].label = 'First';
    doc.settings.colour = 'red';
    doc.graph.nodes[1].id = doc.graph.nodes[0].id;
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const lines = readFileSync(file, 'utf8').split('\n');
    const at = (needle: string) => {
      const line = lines.findIndex((l) => l.includes(needle)) + 1;
      return { line, column: lines[line - 1].indexOf(needle) + 1 };
    };
    const json = JSON.parse(run(['validate', '-f', 'json', dir]).stdout);
    const found = json.files.find((f: any) => f.path.endsWith(`automations/${key}.json`)).diagnostics;
    const infos = found.filter((d: any) => d.code === 'catalog/unknown-config-field');
    expect(infos).toHaveLength(doc.graph.nodes.length);
    for (const d of infos) {
      const i = Number(/legacy_(\d+)/.exec(d.pointer)![1]);
      expect(d).toMatchObject({
        pointer: `/graph/nodes/${i}/config/legacy_${i}`,
        ...at(`"legacy_${i}"`),
        endColumn: at(`"legacy_${i}"`).column + `"legacy_${i}"`.length,
      });
    }
    expect(found.find((d: any) => d.code === 'graph/unknown-field')).toMatchObject({ pointer: '/graph/nodes/0/label', ...at('"label"') });
    expect(found.find((d: any) => d.code === 'schema/unknown-field')).toMatchObject({ pointer: '/settings/colour', ...at('"colour"') });
    const dup = found.find((d: any) => d.code === 'graph/duplicate-node-id');
    expect(dup.related?.[0]).toMatchObject({ pointer: '/graph/nodes/0/id', line: at(`"id": "${doc.graph.nodes[0].id}"`).line });
  });

  it('reports missing and unlisted files against the manifest', () => {
    const dir = tempDir();
    run(['unpack', fixturePath('valid/buyer-lead-starter.json'), dir]);
    const manifest = readJson(join(dir, 'manifest.json'));
    const dropped = manifest.smartLists.shift();
    manifest.automations.push('ghost');
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
    const r = run(['build', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /manifest\.json:\d+:\d+ error manifest\.json lists the automations key "ghost" but automations\/ghost\.json does not exist\. build\/missing-file/,
    );
    expect(r.stderr).toContain(`smart-lists/${dropped}.json:1:1 error`);
    expect(r.stderr).toContain('build/unlisted-file');
  });

  it('still validates when the only build errors are stray files, and writes nothing', () => {
    const dir = tempDir();
    run(['unpack', fixturePath('valid/listing-marketing.json'), dir]);
    writeFileSync(join(dir, 'automations', 'stray.json'), '{}');
    writeFileSync(join(dir, 'assets', 'unused.png'), 'x');
    const tpl = join(dir, 'templates', 'seller-weekly.json');
    writeFileSync(tpl, readFileSync(tpl, 'utf8').replace('"channel": "email"', '"channel": "mail"'));
    const r = run(['build', dir, '-o', join(dir, 'out.json')]);
    expect(r.code).toBe(1);
    expect(existsSync(join(dir, 'out.json'))).toBe(false);
    expect(r.stderr).toMatch(/automations\/stray\.json:1:1 error .*build\/unlisted-file/);
    expect(r.stderr).toMatch(/assets\/unused\.png:1:1 warning .*build\/unused-asset-file/);
    expect(r.stderr).toMatch(/templates\/seller-weekly\.json:3:14 error .*schema\/enum/);
  });

  it('names a source file saved in UTF-16 instead of calling it invalid JSON', () => {
    const dir = tempDir();
    run(['unpack', fixturePath('valid/listing-marketing.json'), dir]);
    const tpl = join(dir, 'templates', 'seller-weekly.json');
    writeFileSync(tpl, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(readFileSync(tpl, 'utf8'), 'utf16le')]));
    const r = run(['build', dir, '-o', join(dir, 'out.json')]);
    expect(r.code).toBe(1);
    expect(existsSync(join(dir, 'out.json'))).toBe(false);
    expect(r.stderr).toMatch(
      /templates\/seller-weekly\.json:1:1 error The file is not UTF-8: it is UTF-16LE text \(it starts with the byte order mark FF FE\), and a pack is JSON in UTF-8: save it as UTF-8\. json\/syntax/,
    );
    expect(r.stderr).not.toContain('not valid JSON');
  });

  it('build of a path that is not a folder exits 2', () => {
    expect(run(['build', 'nope']).code).toBe(2);
    const r = run(['build', fixturePath('valid/buyer-lead-starter.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not a directory/);
  });
});

describe('new', () => {
  it('scaffolds a folder with a fresh packId that builds with no diagnostics at all', () => {
    const dir = tempDir();
    const r = run(['new', 'my-pack', '--name', 'My pack'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(readdirSync(join(dir, 'my-pack')).sort()).toEqual(['automations', 'manifest.json', 'resources', 'templates']);
    const b = run(['build', 'my-pack', '-o', 'my-pack.json'], { cwd: dir });
    expect(b.code).toBe(0);
    expect(b.stderr).not.toMatch(/warning|error/);
    const v = JSON.parse(run(['validate', '-f', 'json', 'my-pack.json'], { cwd: dir }).stdout);
    expect(v.files[0].diagnostics).toEqual([]);
    const pack = readJson(join(dir, 'my-pack.json'));
    expect(pack.name).toBe('My pack');
    expect(pack.packId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    mkdirSync(join(dir, 'second'));
    run(['new', 'second'], { cwd: dir });
    expect(readJson(join(dir, 'second/manifest.json')).packId).not.toBe(pack.packId);
    expect(readJson(join(dir, 'second/manifest.json')).name).toBe('Second');
    expect(run(['new', 'my-pack'], { cwd: dir }).code).toBe(2);
  });

  it('prints a next command that a shell runs as printed, whatever the folder is called', () => {
    // Before: `new "my pack"` printed `setup-pack build my pack -o my pack.json`.
    const dir = tempDir();
    for (const folder of ['my pack', "it's", 'a$b', '-dash']) {
      const r = run(['new', '--', folder], { cwd: dir });
      expect(r.code, folder).toBe(0);
      const next = /^ {2}(setup-pack build .*)$/m.exec(r.stdout)![1];
      const sh = spawnSync('sh', ['-c', next.replace(/^setup-pack /, `'${process.execPath}' '${BIN}' `)], { cwd: dir, encoding: 'utf8' });
      expect(sh.stderr, next).toMatch(/^built /);
      expect(sh.status, next).toBe(0);
      expect(readJson(join(dir, `${folder}.json`)).name, next).toBeTruthy();
    }
  });
});
