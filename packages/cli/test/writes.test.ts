// What a command does when it cannot write its output: the file it would replace is kept byte for
// byte, nothing is left behind (no half-written file or folder, no temporary file), and it says so
// in one line with exit code 2. A write that fails part-way, as on a full disk, is made without
// privilege by a file size limit (helpers' fileSizeLimit, EFBIG).
import { beforeAll, describe, expect, it } from 'vitest';
import {
  chmodSync,
  closeSync,
  constants,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { open } from 'node:fs/promises';
import { formatPack } from '@setup-pack/core';
import { ensureBuilt, readJson, ROOT, run, runAsync, tempDir } from './helpers.js';

beforeAll(() => ensureBuilt());

/** 4 blocks: 2 KiB (4 KiB in a shell counting 1 KiB blocks). The fixture packs written out are 18 KiB. */
const LIMIT = 4;
const fixture = (f: string) => join(ROOT, 'fixtures', f);
const minified = (path: string) => JSON.stringify(readJson(path));
/** Every file and folder below `dir`, dot files included, with its bytes: what a failed command must not change. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[]) {
    const rel = join(e.parentPath ?? e.path, e.name).slice(dir.length + 1);
    out[rel] = e.isDirectory() ? '<dir>' : readFileSync(join(dir, rel), 'latin1');
  }
  return out;
}
/** A small pack fix changes (a won stage's probability) and fmt reorders: well under the limit, written again. */
const SMALL =
  '{"name":"Small","format":"service.setup-pack","pipelines":[{"key":"p","name":"P","stages":[{"key":"won","name":"Won","probability":80,"stageType":"CLOSED_WON"}]}]}';

describe('fmt and fix never write over a file changed since they read it', () => {
  it('fmt leaves a source file edited between its read and its write as edited, says so, and leaves nothing behind (exit 2)', async () => {
    const dir = tempDir();
    const src = join(dir, 'src');
    run(['unpack', fixture('valid/buyer-lead-starter.json'), src]);
    const name = readdirSync(join(src, 'automations'))[0];
    const file = join(src, 'automations', name);
    writeFileSync(file, JSON.stringify(readJson(file))); // one line: fmt would write it again
    // fmt reads the folder's files first, then each pack file in turn, and writes each file once it
    // is read: here the first pack file is a pipe, so fmt waits on it with the folder read and
    // not yet written, while this process (a second program) edits the file.
    const pipe = join(dir, 'pack.json');
    expect(spawnSync('mkfifo', [pipe]).status).toBe(0);
    const fmt = runAsync(['fmt', 'pack.json', 'src'], { cwd: dir });
    // Returns once fmt opens the pipe to read it; should fmt end first, its output says why.
    let opened = false;
    const ended = fmt.then((r) => {
      if (!opened) closeSync(openSync(pipe, constants.O_RDONLY | constants.O_NONBLOCK)); // frees the open below
      throw new Error(`fmt ended before it read the pipe: ${r.code} ${r.stderr}`);
    });
    ended.catch(() => {});
    const writer = await Promise.race([open(pipe, 'w'), ended]);
    opened = true;
    const edited = JSON.stringify({ ...readJson(file), name: 'Edited meanwhile' });
    writeFileSync(file, edited);
    await writer.writeFile(formatPack(readJson(fixture('valid/buyer-lead-starter.json')))); // formatted: nothing to write back
    await writer.close();
    const r = await fmt;
    expect(r.stderr).toContain(
      `src/automations/${name}: error cannot write the file: it changed since setup-pack read it, and was left as it is now: run the command again`,
    );
    expect(r.code).toBe(2);
    expect(r.stdout).not.toContain(`automations/${name}: formatted`);
    expect(readFileSync(file, 'utf8')).toBe(edited);
    expect(readdirSync(join(src, 'automations')).filter((f) => f.startsWith('.'))).toEqual([]); // no temporary file left
    // Run again, it formats what the file says now.
    expect(run(['fmt', 'src'], { cwd: dir }).code).toBe(0);
    expect(readJson(file).name).toBe('Edited meanwhile');
  });
});

describe('fmt and fix rewrite a file whole or not at all', () => {
  it('fmt keeps a file it cannot write byte for byte, says why, and formats the next one (exit 2)', () => {
    const dir = tempDir();
    const big = minified(fixture('valid/listing-marketing.json'));
    writeFileSync(join(dir, 'a.json'), big);
    writeFileSync(join(dir, 'b.json'), SMALL);
    chmodSync(join(dir, 'b.json'), 0o640);
    const r = run(['fmt', 'a.json', 'b.json'], { cwd: dir, fileSizeLimit: LIMIT });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/a\.json.*cannot write the file: file too large/);
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe(big);
    expect(r.stdout).toContain('b.json: formatted');
    expect(run(['fmt', '--check', 'b.json'], { cwd: dir }).code).toBe(0);
    expect(statSync(join(dir, 'b.json')).mode & 0o777).toBe(0o640); // the file replaced keeps its mode
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'b.json']); // no temporary file left
  });

  it('fix keeps a file it cannot write byte for byte, says why, and fixes the next one (exit 2)', () => {
    const dir = tempDir();
    const big = minified(join(ROOT, 'packages/cli/test/fixtures/needs-fix.json'));
    writeFileSync(join(dir, 'a.json'), big);
    writeFileSync(join(dir, 'b.json'), SMALL);
    const r = run(['fix', 'a.json', 'b.json'], { cwd: dir, fileSizeLimit: LIMIT });
    expect(r.stderr).not.toContain('internal error');
    expect(r.stderr).toMatch(/a\.json.*cannot write the file: file too large/);
    expect(r.code).toBe(2);
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe(big);
    expect(readJson(join(dir, 'b.json')).pipelines[0].stages[0].probability).toBe(100);
    expect(r.stdout).not.toMatch(/^a\.json:/m); // the changes of a file not written are not listed as made
    expect(r.stdout).toMatch(/^b\.json: .*probability 80 → 100/m);
    expect(r.stdout).toContain('fixed 1 of 2 files');
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'b.json']);
  });

  it('fmt writes a linked file where the link leads and keeps the link', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'shared'));
    writeFileSync(join(dir, 'shared/p.json'), SMALL);
    symlinkSync('shared/p.json', join(dir, 'p.json'));
    expect(run(['fmt', 'p.json'], { cwd: dir }).code).toBe(0);
    expect(run(['fmt', '--check', 'shared/p.json'], { cwd: dir }).code).toBe(0);
    expect(readFileSync(join(dir, 'p.json'), 'utf8')).toBe(readFileSync(join(dir, 'shared/p.json'), 'utf8'));
    expect(readdirSync(join(dir, 'shared'))).toEqual(['p.json']);
  });
});

describe('the closing summary of fmt and fix counts a file it could not write as not written, not as unreadable', () => {
  const bigPack = () => minified(fixture('valid/listing-marketing.json'));
  const bigFix = () => minified(join(ROOT, 'packages/cli/test/fixtures/needs-fix.json'));

  it('fmt, one file and several', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.json'), bigPack());
    writeFileSync(join(dir, 'b.json'), bigPack());
    const one = run(['fmt', 'a.json'], { cwd: dir, fileSizeLimit: LIMIT });
    expect(one.code).toBe(2);
    expect(one.stderr).toContain('a.json: error cannot write the file: file too large');
    expect(one.stderr).toMatch(/✖ 0 errors, 0 warnings in 1 file; 1 file could not be written\n$/);
    expect(one.stderr).not.toContain('could not be read');
    const two = run(['fmt', 'a.json', 'b.json'], { cwd: dir, fileSizeLimit: LIMIT });
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/in 2 files; 2 files could not be written\n$/);
    expect(two.stderr).not.toContain('could not be read');
  });

  it('fmt keeps "could not be read" for a file it could not read, beside one it could not write', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.json'), bigPack());
    writeFileSync(join(dir, 'utf16.json'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{}', 'utf16le')]));
    const r = run(['fmt', 'a.json', 'utf16.json'], { cwd: dir, fileSizeLimit: LIMIT });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/in 2 files; 1 file could not be read; 1 file could not be written\n$/);
  });

  it('fix, one file and several: the files not written are neither unreadable nor "nothing to fix"', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.json'), bigFix());
    writeFileSync(join(dir, 'b.json'), bigFix());
    writeFileSync(join(dir, 'small.json'), SMALL);
    const one = run(['fix', 'a.json'], { cwd: dir, fileSizeLimit: LIMIT });
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/✖ 0 errors, 0 warnings in 1 file; 1 file could not be written\n$/);
    expect(one.stderr).not.toContain('could not be read');
    expect(one.stdout).toBe('nothing fixed in 1 file; 1 could not be written\n');
    const three = run(['fix', 'a.json', 'b.json', 'small.json'], { cwd: dir, fileSizeLimit: LIMIT });
    expect(three.code).toBe(2);
    expect(three.stderr).toMatch(/in 2 files; 2 files could not be written\n$/);
    expect(three.stderr).not.toContain('could not be read');
    expect(three.stdout).toMatch(/^fixed 1 of 3 files; 2 could not be written\n$/m);
  });

  it('fix, a source folder whose files it could not write', () => {
    const dir = tempDir();
    expect(run(['unpack', join(ROOT, 'packages/cli/test/fixtures/needs-fix.json'), 'src'], { cwd: dir }).code).toBe(0);
    const before = snapshot(dir);
    const r = run(['fix', 'src'], { cwd: dir, fileSizeLimit: 1 });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/src\/\S+\.json: error cannot write the file: file too large \(the folder src\/ is left as it is\)/);
    expect(r.stderr).toMatch(/in 1 file; 1 file could not be written\n$/);
    expect(r.stderr).not.toContain('could not be read');
    expect(r.stdout).toBe('nothing fixed in 1 source folder; 1 could not be written\n');
    expect(snapshot(dir)).toEqual(before);
  });
});

describe('a command that cannot write its output says so in one line, exit 2, and leaves nothing behind', () => {
  const source = () => {
    const dir = tempDir();
    expect(run(['unpack', fixture('valid/listing-marketing.json'), 'src'], { cwd: dir }).code).toBe(0);
    return dir;
  };

  it('build -o: an existing pack is kept, a new one is not left half-written, folders it made are removed', () => {
    const dir = source();
    writeFileSync(join(dir, 'out.json'), 'the last build\n');
    const before = snapshot(dir);
    const r = run(['build', 'src', '-o', 'out.json', '--exported-at', '2026-01-01T00:00:00Z'], { cwd: dir, fileSizeLimit: LIMIT });
    expect(r.stderr).toBe("setup-pack build: cannot write 'out.json': file too large\n");
    expect(r.code).toBe(2);
    const deep = run(['build', 'src', '-o', 'dist/new/out.json'], { cwd: dir, fileSizeLimit: LIMIT });
    expect(deep.stderr).toBe("setup-pack build: cannot write 'dist/new/out.json': file too large\n");
    expect(deep.code).toBe(2);
    expect(snapshot(dir)).toEqual(before);
  });

  it('build -o a folder, or a path through a file', () => {
    const dir = source();
    mkdirSync(join(dir, 'out'));
    writeFileSync(join(dir, 'afile'), '');
    const before = snapshot(dir);
    const folder = run(['build', 'src', '-o', 'out'], { cwd: dir });
    expect(folder.stderr).toBe("setup-pack build: cannot write 'out': is a directory\n");
    expect(folder.code).toBe(2);
    const through = run(['build', 'src', '-o', 'afile/out.json'], { cwd: dir });
    expect(through.stderr).toBe("setup-pack build: cannot write 'afile/out.json': a part of the path is not a directory\n");
    expect(through.code).toBe(2);
    expect(snapshot(dir)).toEqual(before);
  });

  it('build -o and validate -o a path ending with a slash: a folder, never a file of that name', () => {
    // Before: `build src -o dist/` wrote the pack to a file named dist (the slash dropped by resolve).
    const dir = source();
    const before = snapshot(dir);
    for (const [command, out] of [
      ['build', 'dist/'],
      ['build', 'dist/new/'],
      ['validate', 'report/'],
    ]) {
      const r = run([command, 'src', '-o', out], { cwd: dir });
      expect(r.stderr, `${command} -o ${out}`).toBe(
        `setup-pack ${command}: cannot write '${out}': it names a folder (it ends with /); give a file\n`,
      );
      expect(r.code, `${command} -o ${out}`).toBe(2);
    }
    expect(snapshot(dir)).toEqual(before);
  });

  it('validate -o keeps the last report when the new one cannot be written', () => {
    const dir = tempDir();
    cpSync(join(ROOT, 'packages/cli/test/fixtures/many-errors.json'), join(dir, 'p.json'));
    writeFileSync(join(dir, 'report.json'), 'the last report\n');
    const before = snapshot(dir);
    const r = run(['validate', 'p.json', '-f', 'json', '-o', 'report.json'], { cwd: dir, fileSizeLimit: LIMIT });
    expect(r.stderr).toBe("setup-pack validate: cannot write 'report.json': file too large\n");
    expect(r.code).toBe(2);
    expect(snapshot(dir)).toEqual(before);
    expect(run(['validate', 'p.json', '-f', 'json', '-o', 'report.json'], { cwd: dir }).code).toBe(1);
    expect(readJson(join(dir, 'report.json')).summary.errors).toBeGreaterThan(0);
  });

  it('validate -o into a folder that does not exist, as before: said, and not created', () => {
    const dir = tempDir();
    cpSync(fixture('valid/listing-marketing.json'), join(dir, 'p.json'));
    const r = run(['validate', 'p.json', '-o', 'reports/r.txt'], { cwd: dir });
    expect(r.stderr).toBe("setup-pack validate: cannot write 'reports/r.txt': no such directory\n");
    expect(r.code).toBe(2);
    expect(readdirSync(dir)).toEqual(['p.json']);
  });

  it('unpack leaves no folder when it fails part-way, and the same command then succeeds', () => {
    const dir = tempDir();
    const r = run(['unpack', fixture('valid/listing-marketing.json'), 'lm/'], { cwd: dir, fileSizeLimit: LIMIT });
    expect(r.stderr).toBe("setup-pack unpack: cannot write 'lm/': file too large\n");
    expect(r.code).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
    // An empty folder that was there stays, empty.
    mkdirSync(join(dir, 'empty'));
    expect(run(['unpack', fixture('valid/listing-marketing.json'), 'empty'], { cwd: dir, fileSizeLimit: LIMIT }).code).toBe(2);
    expect(snapshot(dir)).toEqual({ empty: '<dir>' });
    const again = run(['unpack', fixture('valid/listing-marketing.json'), 'lm/'], { cwd: dir });
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(run(['unpack', fixture('valid/listing-marketing.json'), 'empty'], { cwd: dir }).code).toBe(0);
    expect(snapshot(join(dir, 'empty'))).toEqual(snapshot(join(dir, 'lm')));
  });

  it('unpack --force changes nothing in the folder when it fails part-way, and replaces only the layout when it succeeds', () => {
    const dir = tempDir();
    expect(run(['unpack', fixture('valid/buyer-lead-starter.json'), 'src'], { cwd: dir }).code).toBe(0);
    writeFileSync(join(dir, 'src/README.md'), 'notes\n');
    const before = snapshot(dir);
    const r = run(['unpack', '--force', fixture('valid/listing-marketing.json'), 'src'], { cwd: dir, fileSizeLimit: LIMIT });
    expect(r.stderr).toBe("setup-pack unpack: cannot write 'src': file too large\n");
    expect(r.code).toBe(2);
    expect(snapshot(dir)).toEqual(before);
    expect(run(['unpack', '--force', fixture('valid/listing-marketing.json'), 'src'], { cwd: dir }).code).toBe(0);
    expect(run(['unpack', fixture('valid/listing-marketing.json'), 'fresh'], { cwd: dir }).code).toBe(0);
    expect(snapshot(join(dir, 'src'))).toEqual({ ...snapshot(join(dir, 'fresh')), 'README.md': 'notes\n' });
  });

  // Node 20's recursive mkdir loops for ever on a folder the file system refuses with ENOENT
  // though its parent exists (/proc/nope/x: mkdir /proc/nope fails ENOENT, so it makes /proc,
  // which exists, and tries again). The folders above an output are made one at a time instead.
  it.skipIf(!existsSync('/proc/self'))(
    'a folder that cannot be made in /proc ends the command at once, for every command that makes folders',
    () => {
      const dir = source();
      const before = snapshot(dir);
      const pack = fixture('valid/buyer-lead-starter.json');
      const cases: [string[], string][] = [
        [['unpack', pack, '/proc/nope/'], "setup-pack unpack: cannot write '/proc/nope/': no such file or directory\n"],
        [['unpack', pack, '/proc/nope/deeper/'], "setup-pack unpack: cannot write '/proc/nope/deeper/': no such file or directory\n"],
        [['new', '/proc/nope/pack'], "setup-pack new: cannot write '/proc/nope/pack': no such file or directory\n"],
        [['build', 'src', '-o', '/proc/nope/pack.json'], "setup-pack build: cannot write '/proc/nope/pack.json': no such directory\n"],
        [
          ['build', 'src', '-o', '/proc/nope/dist/pack.json'],
          "setup-pack build: cannot write '/proc/nope/dist/pack.json': no such directory\n",
        ],
      ];
      for (const [args, stderr] of cases) {
        const r = run(args, { cwd: dir, timeout: 15_000 });
        expect(r.stderr, args.join(' ')).toBe(stderr);
        expect(r.code, args.join(' ')).toBe(2);
      }
      expect(snapshot(dir)).toEqual(before);
    },
  );

  it('folders made above an output are removed again when a deeper one cannot be made', () => {
    const dir = source();
    const before = snapshot(dir);
    // A name too long for the file system two levels down: 'made' is created, then removed.
    const long = 'x'.repeat(300);
    const r = run(['build', 'src', '-o', `made/${long}/pack.json`], { cwd: dir, timeout: 15_000 });
    expect(r.stderr).toBe(`setup-pack build: cannot write 'made/${long}/pack.json': file name too long\n`);
    expect(r.code).toBe(2);
    expect(snapshot(dir)).toEqual(before);
  });

  it('a folder path that cannot be reached is not a folder "that exists and is not empty": writing it says why', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'made'));
    const long = 'x'.repeat(300);
    const u = run(['unpack', fixture('valid/buyer-lead-starter.json'), `made/${long}/src/`], { cwd: dir, timeout: 15_000 });
    expect(u.stderr).toBe(`setup-pack unpack: cannot write 'made/${long}/src/': file name too long\n`);
    expect(u.code).toBe(2);
    const n = run(['new', long], { cwd: dir, timeout: 15_000 });
    expect(n.stderr).toBe(`setup-pack new: cannot write '${long}': file name too long\n`);
    expect(n.code).toBe(2);
    expect(snapshot(dir)).toEqual({ made: '<dir>' });
  });

  it('new into a path below a file', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'afile'), '');
    const r = run(['new', 'afile/pack'], { cwd: dir });
    expect(r.stderr).toBe("setup-pack new: 'afile/pack' is below 'afile', which is a file, not a folder\n");
    expect(r.code).toBe(2);
    expect(snapshot(dir)).toEqual({ afile: '' });
  });
});

describe('an output that is one of the inputs is refused', () => {
  it('validate -o naming a file it checks, directly or through a link', () => {
    const dir = tempDir();
    cpSync(fixture('valid/listing-marketing.json'), join(dir, 'p.json'));
    symlinkSync('p.json', join(dir, 'link.json'));
    const before = snapshot(dir);
    for (const out of ['p.json', './p.json', 'link.json']) {
      const r = run(['validate', 'p.json', '-o', out], { cwd: dir });
      expect(r.stderr).toBe(`setup-pack validate: the report file '${out}' is the input 'p.json': write the report elsewhere\n`);
      expect(r.code).toBe(2);
    }
    expect(snapshot(dir)).toEqual(before);
    expect(run(['validate', 'p.json', '-o', 'report.txt'], { cwd: dir }).code).toBe(0);
  });

  it('validate -o naming a file of a source folder it checks', () => {
    const dir = tempDir();
    expect(run(['new', 'src'], { cwd: dir }).code).toBe(0);
    const before = snapshot(dir);
    const r = run(['validate', 'src', '-o', 'src/manifest.json'], { cwd: dir });
    expect(r.stderr).toBe(
      "setup-pack validate: the report file 'src/manifest.json' is a file of the source folder 'src/' it checks: write the report elsewhere\n",
    );
    expect(r.code).toBe(2);
    expect(snapshot(dir)).toEqual(before);
  });

  it('build -o naming a file the source folder is built from; a pack beside them is fine', () => {
    const dir = tempDir();
    expect(run(['new', 'src'], { cwd: dir }).code).toBe(0);
    symlinkSync('src/manifest.json', join(dir, 'link.json'));
    const before = snapshot(dir);
    for (const out of ['src/manifest.json', 'src/automations/new.json', 'link.json']) {
      const r = run(['build', 'src', '-o', out], { cwd: dir });
      expect(r.stderr).toBe(
        `setup-pack build: the output '${out}' is a file of the source folder 'src' it builds: write the pack elsewhere\n`,
      );
      expect(r.code).toBe(2);
    }
    expect(snapshot(dir)).toEqual(before);
    for (const out of ['src/dist/pack.json', 'src/out.json']) {
      expect(run(['build', 'src', '-o', out], { cwd: dir }).code).toBe(0);
      expect(run(['build', 'src', '-o', out], { cwd: dir }).code).toBe(0);
    }
  });
});

describe('an output that is a pipe or a device is written into, not replaced', () => {
  // `-o /dev/stdout` is a CI idiom; a file renamed over it would replace the device node itself
  // (as root: /dev/null made a regular file for every program on the machine) and write nothing
  // where it leads. A FIFO stands in for a device here: the same kind of file that is not a file.
  const fifo = (dir: string, name: string) => {
    const path = join(dir, name);
    expect(spawnSync('mkfifo', [path]).status).toBe(0);
    return path;
  };
  const reader = (path: string) => {
    const cat = spawn('cat', [path], { stdio: ['ignore', 'pipe', 'ignore'] });
    let text = '';
    cat.stdout.setEncoding('utf8').on('data', (t: string) => (text += t));
    return new Promise<string>((done) => cat.on('close', () => done(text)));
  };

  it.runIf(process.platform !== 'win32')(
    'validate -o and build -o write through a FIFO, which stays one, and leave no temporary file',
    async () => {
      const dir = tempDir();
      const report = fifo(dir, 'report.fifo');
      const reading = reader(report);
      const r = await runAsync(['validate', fixture('valid/buyer-lead-starter.json'), '--format', 'json', '-o', report], { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(await reading).summary.errors).toBe(0);
      expect(statSync(report).isFIFO()).toBe(true);

      expect(run(['unpack', fixture('valid/listing-marketing.json'), 'src'], { cwd: dir }).code).toBe(0);
      const packOut = fifo(dir, 'pack.fifo');
      const readingPack = reader(packOut);
      const b = await runAsync(['build', 'src', '-o', packOut], { cwd: dir });
      expect(b.code, b.stderr).toBe(0);
      expect(JSON.parse(await readingPack).name).toBe(readJson(fixture('valid/listing-marketing.json')).name);
      expect(statSync(packOut).isFIFO()).toBe(true);
      expect(readdirSync(dir).sort()).toEqual(['pack.fifo', 'report.fifo', 'src']);
    },
  );

  it("validate -o /dev/stdout writes the report to the command's standard output", () => {
    const r = run(['validate', fixture('valid/buyer-lead-starter.json'), '--format', 'json', '-o', '/dev/stdout']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.slice(0, r.stdout.lastIndexOf('}') + 1)).summary.errors).toBe(0);
  });
});
