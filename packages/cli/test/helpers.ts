// Runs the real binary as a subprocess (after building it once per test file).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const BIN = join(ROOT, 'packages/cli/bin/setup-pack.js');
export const FIXTURES = join(ROOT, 'fixtures');
export const CLI_FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

let built = false;
/** Compiles packages/cli (and core) and bundles the command, so the binary runs the current source. */
export function ensureBuilt(): void {
  if (built) return;
  buildCli(['packages/cli']);
  built = true;
}

/**
 * tsc -b of the projects, then the CLI's bundle; flock serialises the test files' builds, which run
 * in parallel workers. The lock is this checkout's (in its node_modules): checkouts side by side
 * on one machine build their own files and need not wait for each other.
 */
export function buildCli(projects: string[]): void {
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const lock = join(ROOT, 'node_modules/.setup-pack-cli-test-build.lock');
  execFileSync('flock', [lock, process.execPath, tsc, '-b', ...projects], { cwd: ROOT, stdio: 'pipe' });
  execFileSync('flock', [lock, process.execPath, join(ROOT, 'scripts/bundle-cli.mjs')], { cwd: ROOT, stdio: 'pipe' });
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** What run and runAsync start: node with the binary (under sh for a file size limit), and its environment. */
function command(
  args: string[],
  options: { env?: Record<string, string | undefined>; bin?: string; nodeArgs?: string[]; fileSizeLimit?: number },
) {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && k !== 'GITHUB_ACTIONS' && k !== 'FORCE_COLOR' && k !== 'NO_COLOR' && k !== 'SOURCE_DATE_EPOCH') env[k] = v;
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const argv = [...(options.nodeArgs ?? []), options.bin ?? BIN, ...args];
  if (options.fileSizeLimit === undefined) return { file: process.execPath, argv, env };
  return { file: '/bin/sh', argv: ['-c', `ulimit -f ${options.fileSizeLimit} && exec "$0" "$@"`, process.execPath, ...argv], env };
}

/**
 * Runs the binary (BIN, or options.bin: a copy of it) with args; options.nodeArgs go to node before
 * it. options.fileSizeLimit: the largest file the process may write, in `ulimit -f` blocks (512
 * bytes in POSIX sh): a write past it fails with EFBIG part-way, as on a full disk, with no
 * privilege needed (node ignores SIGXFSZ). options.timeout: milliseconds after which the process is
 * killed (its code is then -1), for a command that must not hang.
 */
export function run(
  args: string[],
  options: {
    cwd?: string;
    env?: Record<string, string | undefined>;
    input?: string | Buffer;
    bin?: string;
    nodeArgs?: string[];
    fileSizeLimit?: number;
    timeout?: number;
  } = {},
): RunResult {
  const { file, argv, env } = command(args, options);
  const r = spawnSync(file, argv, {
    cwd: options.cwd ?? ROOT,
    env,
    encoding: 'utf8',
    input: options.input,
    maxBuffer: 64 * 1024 * 1024,
    timeout: options.timeout,
    killSignal: 'SIGKILL',
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * run, without blocking this process: for a command that talks to a server the test runs in
 * this process (spawnSync would stop the server from answering).
 */
export function runAsync(
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; fileSizeLimit?: number } = {},
): Promise<RunResult> {
  const { file, argv, env } = command(args, options);
  const child = spawn(file, argv, { cwd: options.cwd ?? ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
  });
}

export function tempDir(prefix = 'setup-pack-cli-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function readJson(path: string): any {
  return JSON.parse(readFileSync(path, 'utf8'));
}
