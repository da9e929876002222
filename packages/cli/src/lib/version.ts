import { readFileSync } from 'node:fs';

let cached: string | undefined;

/**
 * The CLI's version, from its package.json (read once, only when asked). The path is relative to
 * this module, which is one folder below the package root both as dist/lib/version.js and inside
 * the bundle (dist/bundle/*.js, scripts/bundle-cli.mjs); the packaging test checks `--version`.
 */
export function cliVersion(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cached;
}
