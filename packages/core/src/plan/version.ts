// Release order: pack versions that are semantic versions compare by SemVer 2.0.0 precedence
// (build metadata ignored), through the semver library — the one reading of a version string for
// the planner (upgrade or downgrade) and for diffs (which release is newer). Other version strings
// (the format allows any 1 to 40 characters) have no order: null.
import parse from 'semver/functions/parse.js';
import compare from 'semver/functions/compare.js';

export interface ParsedSemver {
  core: [number, number, number];
  /** Pre-release identifiers, as written (numeric ones compare as numbers). */
  pre: string[];
}

export function parseSemver(v: string): ParsedSemver | null {
  const s = parse(v.trim());
  return s ? { core: [s.major, s.minor, s.patch], pre: s.prerelease.map(String) } : null;
}

/** -1, 0 or 1 when both parse as semantic versions (a leading v allowed); null otherwise. */
export function compareSemver(a: string, b: string): -1 | 0 | 1 | null {
  const x = parse(a.trim());
  const y = parse(b.trim());
  return x && y ? compare(x, y) : null;
}
