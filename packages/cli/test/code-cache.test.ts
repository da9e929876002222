// The binary's V8 code cache (scripts/bundle-cli.mjs makes it, bin/setup-pack.js loads it): the
// build writes one that a fresh process accepts, and a missing, corrupt or rejected cache changes
// nothing a user sees but the time. The cases that break the cache run a copy of the binary in a
// folder of its own, laid out as the package is, so the tests running the real one are untouched.
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, run, tempDir, type RunResult } from './helpers.js';

const bundle = join(ROOT, 'packages/cli/dist/bundle');
// No V8 flags from the environment: they change the flag hash V8 checks, and the cache is rejected.
const env = { NODE_OPTIONS: undefined, NODE_DEBUG: undefined };
const debug = { ...env, NODE_DEBUG: 'setup-pack' };
const cacheState = (r: RunResult) => /^SETUP-PACK \d+: code cache (\w+)$/m.exec(r.stderr)?.[1];
// A pretty report with code frames, and the JSON one: what the warm-up compiled, and exit 1.
const commands: [string[], number][] = [
  [['validate', 'fixtures/invalid/graph-cycle.json', 'fixtures/valid/buyer-lead-starter.json'], 1],
  [['validate', '--format', 'json', 'fixtures/invalid/catalog-unknown-config-field.json'], 0],
  [['--version'], 0],
];

let copy: string;
let bin: string;
let cacheName: string;
beforeAll(() => {
  ensureBuilt();
  cacheName = /\/\/# setup-pack-code-cache=(\S+)\n$/.exec(readFileSync(join(bundle, 'main.cjs'), 'utf8'))![1];
  copy = tempDir('setup-pack-code-cache-');
  mkdirSync(join(copy, 'dist/bundle'), { recursive: true });
  copyFileSync(join(ROOT, 'packages/cli/package.json'), join(copy, 'package.json'));
  cpSync(join(ROOT, 'packages/cli/bin'), join(copy, 'bin'), { recursive: true });
  copyFileSync(join(bundle, 'main.cjs'), join(copy, 'dist/bundle/main.cjs'));
  bin = join(copy, 'bin/setup-pack.js');
  return () => rmSync(copy, { recursive: true, force: true });
});

/** Every command through the copy's binary prints and exits exactly as through the real, cached one. */
function expectCopyAnswersAsCached(): void {
  for (const [args, code] of commands) {
    const cached = run(args, { env });
    expect(cached.code, args.join(' ')).toBe(code);
    expect(run(args, { env, bin }), args.join(' ')).toEqual(cached);
  }
}

describe('the V8 code cache', () => {
  it('the build writes the cache the bundle names, and a fresh process accepts it', () => {
    expect(readdirSync(bundle).filter((f) => f.endsWith('.cache'))).toEqual([cacheName]);
    const r = run(['validate', 'fixtures/valid/buyer-lead-starter.json'], { env: debug });
    expect(cacheState(r)).toBe('accepted');
    expect(r.code).toBe(0);
  });

  it('without the cache the command prints the same and exits the same', () => {
    expectCopyAnswersAsCached();
    expect(cacheState(run(['--version'], { env: debug, bin }))).toBe('absent');
  });

  it('a corrupt cache file is rejected and changes nothing else', () => {
    writeFileSync(join(copy, 'dist/bundle', cacheName), randomBytes(4096));
    expectCopyAnswersAsCached();
    expect(cacheState(run(['--version'], { env: debug, bin }))).toBe('rejected');
  });

  it('other V8 flags reject the shipped cache, and the command still runs', () => {
    const r = run(['validate', 'fixtures/invalid/graph-cycle.json'], { env: debug, nodeArgs: ['--max-old-space-size=512'] });
    expect(cacheState(r)).toBe('rejected');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('graph/cycle');
  });

  it('a validation that hashes no asset and writes no file loads neither crypto nor fs/promises; one that hashes loads crypto and answers the same', () => {
    // Node's own list of the built-in modules a process loaded, written at exit by a preload
    // (--require is not a V8 flag: the cache is still accepted).
    const dir = tempDir('setup-pack-builtins-');
    try {
      const preload = join(dir, 'loaded.cjs');
      writeFileSync(preload, "process.on('exit', () => process.stderr.write('\\nLOADED ' + JSON.stringify(process.moduleLoadList)));");
      const loaded = (r: RunResult) => JSON.parse(/\nLOADED (.*)$/.exec(r.stderr)![1]) as string[];
      const plain = run(['validate', 'fixtures/valid/buyer-lead-starter.json'], { env: debug, nodeArgs: ['--require', preload] });
      expect(plain.code).toBe(0);
      expect(cacheState(plain)).toBe('accepted');
      expect(loaded(plain)).not.toContain('NativeModule crypto');
      expect(loaded(plain)).not.toContain('NativeModule fs/promises');
      // listing-marketing embeds assets: their hashes are checked with node:crypto, loaded then.
      const hashing = run(['validate', '--format', 'json', 'fixtures/valid/listing-marketing.json'], {
        env,
        nodeArgs: ['--require', preload],
      });
      expect(loaded(hashing)).toContain('NativeModule crypto');
      expect(hashing.stdout).toBe(run(['validate', '--format', 'json', 'fixtures/valid/listing-marketing.json'], { env }).stdout);
      expect(hashing.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a binary whose bundle was never built says what to do and exits 2, without a stack trace', () => {
    const bare = tempDir('setup-pack-unbuilt-');
    try {
      copyFileSync(join(ROOT, 'packages/cli/package.json'), join(bare, 'package.json'));
      cpSync(join(ROOT, 'packages/cli/bin'), join(bare, 'bin'), { recursive: true });
      const r = run(['validate', 'fixtures/valid/buyer-lead-starter.json'], { env, bin: join(bare, 'bin/setup-pack.js') });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^setup-pack: cannot load .*main\.cjs: the command is not built; run `npm run build`/);
      expect(r.stderr).not.toMatch(/\bat .*:\d+:\d+/);
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
