// Option values and usage errors: what a command makes of the values it is given, and the exit
// code it ends with when it refuses them.
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, ensureBuilt, readJson, ROOT, run, tempDir } from './helpers.js';

beforeAll(() => ensureBuilt());

const fixturePath = (f: string) => join(ROOT, 'fixtures', f);
const VALID = fixturePath('valid/buyer-lead-starter.json');
/** No workspace from the environment the tests run in. */
const NO_WORKSPACE = { WORKSPACE_URL: undefined, WORKSPACE_API_KEY: undefined };
const WORKSPACE = { WORKSPACE_URL: 'http://127.0.0.1:1', WORKSPACE_API_KEY: 'sk_test' };

describe('plan --detailed-exitcode', () => {
  it('exits 1 on every error, usage errors and unreadable files included (2 means changes)', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'brace.json'), '{');
    const cases: [string, string[], Record<string, string | undefined>][] = [
      ['an invalid pack', [fixturePath('invalid/graph-cycle.json')], WORKSPACE],
      ['a missing file', [join(dir, 'missing.json')], WORKSPACE],
      ['a file that is not JSON', [join(dir, 'brace.json')], WORKSPACE],
      ['an unknown option', [VALID, '--bogus'], WORKSPACE],
      ['no workspace address', [VALID], NO_WORKSPACE],
      ['a malformed --bind', [VALID, '--bind', 'garbage'], WORKSPACE],
      ['a missing argument', [], WORKSPACE],
      ['a workspace that cannot be reached', [VALID], WORKSPACE],
    ];
    for (const [what, args, env] of cases) {
      const r = run(['plan', ...args, '--detailed-exitcode'], { env });
      expect(r.code, what).toBe(1);
      expect(r.stderr, what).toMatch(/^setup-pack/);
    }
    // Before the option too, and without it a usage error is still 2.
    expect(run(['plan', '--detailed-exitcode', '--bogus', VALID], { env: WORKSPACE }).code).toBe(1);
    expect(run(['plan', VALID, '--bogus'], { env: WORKSPACE }).code).toBe(2);
    expect(run(['plan', VALID], { env: NO_WORKSPACE }).code).toBe(2);
    expect(run(['plan', '--help']).code).toBe(0);
    // The help takes no other option (as --version takes none): under this one that usage error is 1 too.
    expect(run(['plan', '--help', '--detailed-exitcode']).code).toBe(1);
  });
});

describe('--ignore', () => {
  /** g/a.json is valid, g/b/bad.json is not JSON. */
  function layout(): string {
    const dir = tempDir();
    mkdirSync(join(dir, 'g/b'), { recursive: true });
    cpSync(VALID, join(dir, 'g/a.json'));
    writeFileSync(join(dir, 'g/b/bad.json'), '{');
    return dir;
  }
  const checked = (stdout: string) => JSON.parse(stdout).files.map((f: { path: string }) => f.path);

  it('patterns are relative to the working directory, for a directory, a glob and a file named alike', () => {
    const dir = layout();
    for (const inputs of [['g'], ['g/**/*.json'], ['g/a.json', 'g/b/bad.json'], ['./g/']]) {
      const r = run(['validate', '-f', 'json', ...inputs, '--ignore', 'g/b/**'], { cwd: dir });
      expect(r.code, inputs.join(' ')).toBe(0);
      expect(checked(r.stdout), inputs.join(' ')).toEqual(['g/a.json']);
    }
    // Relative to the working directory only: not to the directory argument.
    expect(run(['validate', 'g', '--ignore', 'b/**'], { cwd: dir }).code).toBe(1);
    expect(run(['validate', 'g', '--ignore', '**/b/**'], { cwd: dir }).code).toBe(0);
    // From a folder beside the inputs: the pattern walks up as the argument does.
    mkdirSync(join(dir, 'here'));
    const up = run(['validate', '-f', 'json', '../g', '../g/b/bad.json', '--ignore', '../g/b/**'], { cwd: join(dir, 'here') });
    expect(up.code).toBe(0);
    expect(checked(up.stdout)).toEqual(['../g/a.json'.replace('..', dir).replace(/\\/g, '/')]);
    // A file named and ignored is skipped (a pre-commit hook passes every changed file) ...
    const none = run(['validate', '-f', 'json', 'g/b/bad.json', '--ignore', 'g/b/*.json'], { cwd: dir });
    expect(none.code).toBe(0);
    expect(checked(none.stdout)).toEqual([]);
    // ... while a glob or a directory left with no file is a usage error that says why.
    const glob = run(['validate', 'g/b/*.json', '--ignore', 'g/b/**'], { cwd: dir });
    expect(glob.code).toBe(2);
    expect(glob.stderr).toMatch(/--ignore/);
  });

  it('still walks a directory given inside node_modules, and skips node_modules below it', () => {
    const dir = layout();
    mkdirSync(join(dir, 'node_modules/pkg/packs/node_modules'), { recursive: true });
    cpSync(VALID, join(dir, 'node_modules/pkg/packs/a.json'));
    writeFileSync(join(dir, 'node_modules/pkg/packs/node_modules/bad.json'), '{');
    for (const ignore of [[], ['--ignore', 'g/**']]) {
      const r = run(['validate', '-f', 'json', 'node_modules/pkg/packs', ...ignore], { cwd: dir });
      expect(r.code).toBe(0);
      expect(checked(r.stdout)).toEqual(['node_modules/pkg/packs/a.json']);
    }
  });
});

describe('build --exported-at and SOURCE_DATE_EPOCH', () => {
  it("refuse a date that does not exist as a usage error on the option, by the pack schema's rule", () => {
    const dir = tempDir();
    expect(run(['new', 'p'], { cwd: dir }).code).toBe(0);
    for (const stamp of ['2026-02-30T00:00:00Z', '2026-01-31T24:00:00Z', '2026-13-45T99:00:00Z', 'yesterday']) {
      const r = run(['build', 'p', '--exported-at', stamp], { cwd: dir });
      expect(r.code, stamp).toBe(2);
      expect(r.stderr, stamp).toContain(`--exported-at needs an RFC 3339 timestamp`);
      expect(r.stderr, stamp).toContain(`'${stamp}'`);
      expect(r.stderr, stamp).not.toContain('manifest.json');
    }
    for (const epoch of ['253402300800', '99999999999999']) {
      const r = run(['build', 'p'], { cwd: dir, env: { SOURCE_DATE_EPOCH: epoch } });
      expect(r.code, epoch).toBe(2);
      expect(r.stderr, epoch).toMatch(/^setup-pack build: SOURCE_DATE_EPOCH=\d+ is after 9999/);
      expect(r.stderr, epoch).not.toMatch(/manifest\.json|internal error/);
    }
    const ok = run(['build', 'p', '--exported-at', '2028-02-29T23:59:59.5+02:00'], { cwd: dir });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).exportedAt).toBe('2028-02-29T23:59:59.5+02:00');
    const last = run(['build', 'p'], { cwd: dir, env: { SOURCE_DATE_EPOCH: '253402300799' } });
    expect(JSON.parse(last.stdout).exportedAt).toBe('9999-12-31T23:59:59Z');
  });
});

describe('a value starting with a dash', () => {
  it('is the value of the string option before it', () => {
    const dir = tempDir();
    cpSync(VALID, join(dir, 'f.json'));
    const named = run(['new', 'np', '--name', '-Dash name'], { cwd: dir });
    expect(named.code).toBe(0);
    expect(readJson(join(dir, 'np/manifest.json')).name).toBe('-Dash name');
    expect(run(['validate', '--ignore', '-x', 'f.json'], { cwd: dir }).code).toBe(0);
    const report = run(['validate', '-o', '-report.json', '-f', 'json', 'f.json'], { cwd: dir });
    expect(report.code).toBe(0);
    expect(readJson(join(dir, '-report.json')).summary.files).toBe(1);
    const count = run(['validate', '--max-warnings', '-1', 'f.json'], { cwd: dir });
    expect(count.code).toBe(2);
    expect(count.stderr).toBe("setup-pack validate: --max-warnings needs a whole number, not '-1'\n");
    const ttl = run(['install', 'f.json', '--lock-ttl', '-1'], { cwd: dir, env: WORKSPACE });
    expect(ttl.code).toBe(2);
    expect(ttl.stderr).toBe("setup-pack install: --lock-ttl needs a whole number, not '-1'\n");
    // An option at the end still has no value, and a boolean option still takes none.
    expect(run(['new', 'np2', '--name'], { cwd: dir }).stderr).toBe("setup-pack new: option '--name' needs a value\n");
    expect(run(['validate', '--quiet=yes', 'f.json'], { cwd: dir }).stderr).toBe("setup-pack validate: option '--quiet' takes no value\n");
    // After `--`, a dash starts no option.
    expect(run(['validate', '-f', 'json', '--', '-x.json'], { cwd: dir }).stderr).toMatch(/cannot read '-x\.json'/);
  });
});

describe('new --name and --author', () => {
  it('refuse a value longer than the pack schema allows, naming the option and the limit', () => {
    const dir = tempDir();
    const schema = JSON.parse(readFileSync(join(ROOT, 'schemas/pack.schema.json'), 'utf8'));
    for (const option of ['name', 'author']) {
      const max: number = schema.properties[option].maxLength;
      const r = run(['new', `too-long-${option}`, `--${option}`, 'x'.repeat(max + 1)], { cwd: dir });
      expect(r.code, option).toBe(2);
      expect(r.stderr, option).toBe(`setup-pack new: --${option} must be at most ${max} characters (it has ${max + 1})\n`);
      expect(existsSync(join(dir, `too-long-${option}`)), option).toBe(false);
      // The schema counts characters (code points), not UTF-16 units: 160 emoji are 160.
      const fits = run(['new', `fits-${option}`, `--${option}`, '😀'.repeat(max)], { cwd: dir });
      expect(fits.code, option).toBe(0);
      const built = run(['build', `fits-${option}`], { cwd: dir });
      expect(built.code, option).toBe(0);
      expect(JSON.parse(built.stdout)[option], option).toBe('😀'.repeat(max));
    }
    expect(run(['new', 'empty', '--name', ''], { cwd: dir }).code).toBe(2);
  });
});

describe('reading stdin', () => {
  it('a directory as stdin cannot be read (exit 2), rather than being an empty pack', () => {
    const dir = tempDir();
    const fd = openSync(dir, 'r');
    try {
      const r = spawnSync(process.execPath, [BIN, 'validate', '--stdin', '-f', 'json'], {
        cwd: dir,
        stdio: [fd, 'pipe', 'pipe'],
        encoding: 'utf8',
      });
      expect(r.status).toBe(2);
      const report = JSON.parse(r.stdout);
      expect(report.files[0].readError).toBe('cannot read stdin: is a directory');
      expect(report.files[0].diagnostics).toEqual([]);
    } finally {
      closeSync(fd);
    }
  });
});

describe('a target folder that is a file, or below one', () => {
  it('is named as such by unpack, new and export', () => {
    const dir = tempDir();
    cpSync(VALID, join(dir, 'file.json'));
    const below = run(['unpack', 'file.json', 'file.json/sub/'], { cwd: dir });
    expect(below.code).toBe(2);
    expect(below.stderr).toBe("setup-pack unpack: 'file.json/sub/' is below 'file.json', which is a file, not a folder\n");
    const file = run(['new', 'file.json'], { cwd: dir });
    expect(file.code).toBe(2);
    expect(file.stderr).toBe("setup-pack new: 'file.json' is a file, not a folder\n");
    expect(run(['new', '--force', 'file.json'], { cwd: dir }).stderr).toBe("setup-pack new: 'file.json' is a file, not a folder\n");
    const out = run(['export', '--all', '-o', 'file.json/snapshot/'], { cwd: dir, env: WORKSPACE });
    expect(out.code).toBe(2);
    expect(out.stderr).toBe("setup-pack export: 'file.json/snapshot/' is below 'file.json', which is a file, not a folder\n");
    expect(readFileSync(join(dir, 'file.json'), 'utf8')).toBe(readFileSync(VALID, 'utf8'));
  });
});

describe('a pack file that cannot be read', () => {
  it('is said once, as diff and unpack say it, by plan and install', () => {
    // Before: "setup-pack plan: cannot read 'missing.json': cannot read the file: no such file".
    const dir = tempDir();
    mkdirSync(join(dir, 'src'));
    for (const command of ['plan', 'install', 'diff', 'unpack']) {
      for (const [file, why] of [
        ['missing.json', 'no such file'],
        ['src', 'is a directory'],
      ]) {
        const args = command === 'diff' ? [file, VALID] : command === 'unpack' ? [file, 'out'] : [file];
        const r = run([command, ...args], { cwd: dir, env: WORKSPACE });
        expect(r.code, `${command} ${file}`).toBe(2);
        // plan, install and diff read a folder as a source folder: this one has no manifest.json.
        if (file === 'src' && command !== 'unpack') {
          if (command === 'diff') expect(r.stderr).toMatch(/src\/manifest\.json[^\n]* error The folder has no manifest\.json/);
          else
            expect(r.stderr, command).toBe(
              `setup-pack ${command}: 'src' does not build (1 error, first: The folder has no manifest.json; it is not a pack source folder (create one with setup-pack new) at src/manifest.json); run 'setup-pack validate src'\n`,
            );
          continue;
        }
        expect(r.stderr, `${command} ${file}`).toBe(`setup-pack ${command}: cannot read '${file}': ${why}\n`);
      }
    }
  });
});

describe('export --name, --version and --pack-id', () => {
  it('a value the pack schema refuses is a usage error naming the option, said before the workspace is read', () => {
    // Before: --name was not checked, so the whole workspace was read and then the export refused
    // with "schema/too-short /name" (exit 1); --version counted UTF-16 units against a limit of its own.
    const long = 'n'.repeat(161);
    for (const [args, message] of [
      [['--all', '--name', ''], '--name must not be empty'],
      [['--all', '--name', long], '--name must be at most 160 characters (it has 161)'],
      [['--all', '--version', ''], '--version must not be empty'],
      [['--all', '--version', `1.0.0-${'x'.repeat(35)}`], '--version must be at most 40 characters (it has 41)'],
      [['--pack-id', 'buyer-lead'], "--pack-id must be a packId (a UUID), not 'buyer-lead'"],
    ] as [string[], string][]) {
      const r = run(['export', ...args], { env: WORKSPACE });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(`setup-pack export: ${message}\n`);
    }
  });

  it('takes a value the pack schema takes: its limits count characters, not UTF-16 units', () => {
    // 40 characters, 80 UTF-16 units: past the option checks, the export goes on to the workspace.
    for (const args of [
      ['--all', '--version', '🏠'.repeat(40)],
      ['--all', '--name', '🏠'.repeat(160)],
    ]) {
      const r = run(['export', ...args], { env: NO_WORKSPACE });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe('setup-pack export: no workspace address: pass --url or set WORKSPACE_URL\n');
    }
  });
});

describe('an empty argument', () => {
  it('names no file: a usage error (exit 2), never the working directory (\'fmt "$FILE"\' with FILE unset rewrote every pack below it)', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'p.json'), '{"format":"service.setup-pack",  "name":"x"}');
    const before = readFileSync(join(dir, 'p.json'), 'utf8');
    for (const args of [
      ['fmt', ''],
      ['fix', ''],
      ['validate', ''],
      ['build', ''],
      ['diff', '', 'p.json'],
      ['unpack', 'p.json', ''],
      ['new', ''],
      ['plan', ''],
    ]) {
      const r = run(args, { cwd: dir, env: WORKSPACE });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr, args.join(' ')).toMatch(
        new RegExp(`^setup-pack ${args[0]}: unexpected empty argument ''; usage: setup-pack ${args[0]} .*\n$`),
      );
    }
    expect(readFileSync(join(dir, 'p.json'), 'utf8')).toBe(before);
    // An option's value too: an empty -o is no file to write (the report went to stdout).
    for (const [option, args] of [
      ['--output-file', ['validate', 'p.json', '-o', '']],
      ['--output-file', ['validate', 'p.json', '--output-file=']],
      ['--output', ['build', dir, '-o', '']],
    ] as const) {
      const r = run([...args], { cwd: dir });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr, args.join(' ')).toBe(`setup-pack ${args[0]}: option '${option}' needs a value, not an empty one\n`);
    }
    expect(readdirSync(dir)).toEqual(['p.json']);
  });
});

describe('workspace address', () => {
  it('an address that does not parse, or carries a password, is a usage error said at once (without the password)', () => {
    // Before: two retries, then "network_error: cannot reach http://127.0.0.1:8787  (Invalid URL)", or
    // fetch's refusal quoting the whole address, password included, exit 1.
    for (const [url, message] of [
      ['http://127.0.0.1:8787 ', '--url is not a valid address: "http://127.0.0.1:8787 "'],
      [
        'http://admin:hunter2@127.0.0.1:8787',
        '--url must not carry a user name or password: the API key goes in --key or WORKSPACE_API_KEY',
      ],
    ]) {
      for (const command of [['plan', VALID], ['export', '--all'], ['status']]) {
        const r = run([...command, '--url', url, '--key', 'sk_test'], { env: NO_WORKSPACE });
        expect(r.code, url).toBe(2);
        expect(r.stderr, url).toBe(`setup-pack ${command[0]}: ${message}\n`);
      }
    }
  });
});

describe('bindings', () => {
  it('a reference type the format does not have, or a key that is not type:id, is a usage error naming it', () => {
    const dir = tempDir();
    const file = (name: string, bindings: unknown) => {
      writeFileSync(join(dir, name), JSON.stringify(bindings));
      return name;
    };
    const cases: [string[], RegExp][] = [
      [['--bindings', file('nonsense.json', { nonsense: 'x' })], /bindings file 'nonsense\.json': 'nonsense' is not type:id/],
      [
        ['--bindings', file('bogus.json', { 'user:usr_1': 'mem_1', 'bogus:x': 'y' })],
        /bindings file 'bogus\.json': 'bogus' in 'bogus:x' is not a reference type \(.*user.*\)/,
      ],
      [['--bindings', file('empty-id.json', { 'user:': 'mem_1' })], /'user:' is not type:id/],
      [['--bindings', file('empty-value.json', { 'user:usr_1': '' })], /'user:usr_1' needs a workspace id/],
      [['--bind', 'bogus:x=y'], /--bind: 'bogus' in 'bogus:x=y' is not a reference type \(.*user.*\)/],
      [['--bind', 'garbage'], /--bind expects type:id=workspaceId/],
    ];
    for (const [args, message] of cases) {
      const r = run(['plan', VALID, ...args], { cwd: dir, env: NO_WORKSPACE });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });

  it('a bindings file that is not UTF-8 JSON, says a key twice, or binds to something not an id is a usage error naming where and what', () => {
    const dir = tempDir();
    const raw = (name: string, text: string | Buffer) => {
      writeFileSync(join(dir, name), text);
      return name;
    };
    // Before: "Unexpected token '�', \"��{ } \" is not valid JSON", "must be a JSON object" without the
    // key, the raw "ENOENT: no such file or directory, open '/tmp/...'", and a key said twice taking the last.
    const cases: [string[], string][] = [
      [
        ['--bindings', raw('syntax.json', '{\n  "user:usr_1": "mem_1",\n  oops\n}\n')],
        'bindings file syntax.json:3:3: The file is not valid JSON: unexpected character.',
      ],
      [
        ['--bindings', raw('utf16.json', Buffer.from('\ufeff{"user:usr_1": "mem_1"}', 'utf16le'))],
        "cannot read bindings file 'utf16.json': it is UTF-16LE text (it starts with the byte order mark FF FE), and a bindings file is JSON in UTF-8: save it as UTF-8",
      ],
      [['--bindings', 'missing.json'], "cannot read bindings file 'missing.json': no such file"],
      [
        ['--bindings', raw('twice.json', '{"user:usr_1": "mem_1", "user:usr_1": "mem_2"}')],
        'bindings file twice.json:1:25: The property "user:usr_1" appears more than once in this object; only the last one counts.',
      ],
      [
        ['--bindings', raw('number.json', '{"user:usr_1": 5}')],
        "bindings file 'number.json': 'user:usr_1' must be bound to a workspace id (a string), not 5",
      ],
    ];
    for (const [args, message] of cases) {
      const r = run(['plan', VALID, ...args], { cwd: dir, env: NO_WORKSPACE });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(`setup-pack plan: ${message}\n`);
    }
  });

  it("a --bind that binds nothing in the pack is a usage error saying what the pack binds; a bindings file's such key is a warning", () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'shared.json'),
      JSON.stringify({ 'user:usr_8841': 'mem_1', 'user:usr_9': 'mem_9', 'tag:tag-buyer-lead': 'tg_1' }),
    );
    const cases: [string[], string][] = [
      [
        ['--bind', 'user:usr_8842=mem_1'],
        '--bind user:usr_8842=mem_1 binds nothing: no automation of the pack uses user usr_8842 (the user references it binds: usr_8841)',
      ],
      [
        ['--bind', 'lead_source:src-zilow=ls_1'],
        '--bind lead_source:src-zilow=ls_1 binds nothing: no automation of the pack uses lead_source src-zilow (it binds no lead_source reference)',
      ],
      [
        ['--bind', 'tag:tag-buyer-lead=tg_1'],
        '--bind tag:tag-buyer-lead=tg_1 binds nothing: the pack carries tag tag-buyer-lead itself, and its automations are bound to that',
      ],
    ];
    for (const [args, message] of cases) {
      const r = run(['plan', VALID, ...args], { cwd: dir, env: NO_WORKSPACE });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(`setup-pack plan: ${message}\n`);
    }
    // A bindings file may be shared by several packs: what this one does not bind is said, and left.
    const r = run(['plan', VALID, '--bindings', 'shared.json'], { cwd: dir, env: NO_WORKSPACE });
    expect(r.stderr).toContain(
      "setup-pack plan: warning: bindings file 'shared.json': user:usr_9 binds nothing here: no automation of the pack uses user usr_9 (the user references it binds: usr_8841)\n",
    );
    expect(r.stderr).toContain(
      "setup-pack plan: warning: bindings file 'shared.json': tag:tag-buyer-lead binds nothing here: the pack carries tag tag-buyer-lead itself, and its automations are bound to that\n",
    );
    expect(r.stderr).not.toContain('usr_8841 binds nothing');
    expect(r.stderr).toMatch(/no workspace address/);
  });

  it('well-formed bindings get as far as the connection', () => {
    const dir = tempDir();
    const file = (name: string, bindings: unknown) => {
      writeFileSync(join(dir, name), JSON.stringify(bindings));
      return name;
    };
    for (const args of [
      ['--bind', 'user:usr_8841=mem_1'],
      ['--bindings', file('good.json', { 'user:usr_8841': 'mem_1' })],
    ]) {
      expect(run(['plan', VALID, ...args], { cwd: dir, env: NO_WORKSPACE }).stderr, args.join(' ')).toMatch(/no workspace address/);
    }
  });
});

describe('an empty --url or --key', () => {
  it('is a usage error that says the option is empty, not "no workspace address", and does not fall back to the environment', () => {
    const commands = [
      ['status'],
      ['plan', VALID],
      ['install', VALID],
      ['uninstall', '6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12'],
      ['unlock', '6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12', 'setup-pack-abc'],
      ['export', '--all'],
    ];
    for (const command of commands) {
      for (const env of [WORKSPACE, NO_WORKSPACE]) {
        for (const [option, message] of [
          [['--url', ''], "option '--url' is empty: give the workspace API's base address, or leave --url out to use WORKSPACE_URL"],
          [['--url='], "option '--url' is empty: give the workspace API's base address, or leave --url out to use WORKSPACE_URL"],
          [['--key', ''], "option '--key' is empty: give a workspace API key, or leave --key out to use WORKSPACE_API_KEY"],
        ] as [string[], string][]) {
          const what = [...command, ...option].join(' ');
          const r = run([...command, ...option], { env });
          expect(r.code, what).toBe(2);
          expect(r.stdout, what).toBe('');
          expect(r.stderr, what).toBe(`setup-pack ${command[0]}: ${message}\n`);
        }
      }
    }
  });

  it('is said before the pack is read', () => {
    const r = run(['plan', join(tempDir(), 'missing.json'), '--url', ''], { env: WORKSPACE });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^setup-pack plan: option '--url' is empty/);
  });

  it("help names the variable each stands in for, from the option's own declaration", () => {
    for (const command of ['status', 'plan', 'install', 'uninstall', 'unlock', 'export']) {
      const r = run([command, '--help'], { env: NO_WORKSPACE });
      expect(r.code, command).toBe(0);
      expect(r.stdout, command).toMatch(/--url <base>\s+Workspace API base address\. Default: \$WORKSPACE_URL\.\n/);
      expect(r.stdout, command).toMatch(/--key <key>\s+Workspace API key\. Default: \$WORKSPACE_API_KEY\.\n/);
    }
  });

  it('an empty variable counts as unset', () => {
    const r = run(['status'], { env: { WORKSPACE_URL: '', WORKSPACE_API_KEY: 'sk_test' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('setup-pack status: no workspace address: pass --url or set WORKSPACE_URL\n');
  });
});

describe('unlock', () => {
  it('needs a packId and a holder, and a workspace: each missing one a usage error (exit 2) said at once', () => {
    const usage = 'usage: setup-pack unlock [options] <packId> <holder>';
    for (const [args, message] of [
      [[], `missing arguments; ${usage}`],
      [['6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12'], `missing argument; ${usage}`],
      [['6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12', 'setup-pack-abc', 'extra'], `unexpected argument 'extra'; ${usage}`],
    ] as [string[], string][]) {
      const r = run(['unlock', ...args], { env: WORKSPACE });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(`setup-pack unlock: ${message}\n`);
    }
    const empty = run(['unlock', '6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12', ''], { env: WORKSPACE });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe(
      'setup-pack unlock: the holder must not be empty: name the one the lock shows (setup-pack status, or the install that was refused)\n',
    );
    const none = run(['unlock', '6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12', 'setup-pack-abc'], { env: NO_WORKSPACE });
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('setup-pack unlock: no workspace address: pass --url or set WORKSPACE_URL\n');
    const help = run(['unlock', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('setup-pack unlock');
    expect(help.stdout).toContain('Exit codes: 0 released, 1 not released');
  });
});
