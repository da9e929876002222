import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The CLI's version, from its package.json (read once, only when asked). */
export function cliVersion(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cached;
}
