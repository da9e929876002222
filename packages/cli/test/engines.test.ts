// The README promises Node 20.19+: every package the lockfile installs must run there, so a fresh
// `npm install` prints no engine warning (npm warns EBADENGINE for each one that does not).
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url);
const promised = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } }).engines.node;
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[]; optional?: boolean; dev?: boolean }>;
};

describe('engines', () => {
  it(`every installed package accepts the Node versions the project promises (${promised})`, () => {
    const lowest = semver.minVersion(promised)!.version;
    expect(lowest).toBe('20.19.0');
    const refused = Object.entries(lock.packages)
      .filter(
        ([path, p]) => path !== '' && p.engines && !Array.isArray(p.engines) && p.engines.node && !semver.satisfies(lowest, p.engines.node),
      )
      .map(([path, p]) => `${path.replace(/^.*node_modules\//, '')}@${p.version} wants node ${(p.engines as { node: string }).node}`);
    expect(refused).toEqual([]);
  });
});
