// Turning command-line paths and globs into files, and reading them.
import { stat, readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { UsageError } from './errors.js';

const GLOB_CHARS = /[*?[\]{}!]/;

/** Path as shown: relative to cwd when inside it, with / separators. */
export function displayPath(abs: string, cwd: string): string {
  const rel = relative(cwd, abs);
  return (rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs).split(sep).join('/');
}

/**
 * Expands files, directories (every *.json below, node_modules skipped) and globs, in argument
 * order without duplicates. A path that does not exist or a glob that matches nothing is a
 * usage error, so a typo in CI never passes as "0 files, no errors".
 */
export async function expandInputs(inputs: readonly string[], cwd: string, ignore: readonly string[] = []): Promise<string[]> {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (abs: string) => {
    if (!seen.has(abs)) {
      seen.add(abs);
      out.push(abs);
    }
  };
  const ignorePatterns = ['**/node_modules/**', ...ignore];
  for (const input of inputs) {
    const abs = resolve(cwd, input);
    const st = await stat(abs).catch(() => undefined);
    if (st?.isFile()) {
      add(abs);
      continue;
    }
    const isDir = st?.isDirectory();
    if (!isDir && !GLOB_CHARS.test(input)) throw new UsageError(`cannot read '${input}': no such file or directory`);
    const { glob } = await import('tinyglobby');
    const matches = await glob(isDir ? ['**/*.json'] : [input.split(sep).join('/')], { cwd: isDir ? abs : cwd, absolute: true, onlyFiles: true, ignore: ignorePatterns, expandDirectories: false });
    if (!matches.length) throw new UsageError(isDir ? `no .json files in '${input}'` : `no files match '${input}'`);
    for (const m of matches.sort()) add(resolve(m));
  }
  return out;
}

/** Reads a text file; the error is a one-line reason (no such file, permission denied, ...). */
export async function readText(abs: string): Promise<{ text: string } | { error: string }> {
  try {
    return { text: await readFile(abs, 'utf8') };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const reasons: Record<string, string> = { ENOENT: 'no such file', EACCES: 'permission denied', EISDIR: 'is a directory', EPERM: 'permission denied' };
    return { error: `cannot read the file: ${reasons[err.code ?? ''] ?? err.message}` };
  }
}

/** Node's native base64 + SHA-256 for asset checks (core validates the base64 first). */
export function nodeHasher(data: string): { byteSize: number; sha256: string } {
  const bytes = Buffer.from(data, 'base64');
  return { byteSize: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** Runs `fn` over `items` with at most `limit` in flight, keeping the result order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
