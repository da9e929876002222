// The docs as a newcomer reads them: markdownlint passes over README, CHANGELOG and docs/ (the
// rules and why some are off: .markdownlint-cli2.jsonc); no doc or source comment names a numbered
// round of work ("session 12", "issue 16"), which means nothing outside the project's history;
// and no prose line is longer than a reader can take in at once.
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main as markdownlint } from 'markdownlint-cli2';
import { longLines, roundsOfWork, sectionReferences } from './docs-style.js';
import { BENCHMARKS_FILE, readFigures, render } from '../../../scripts/bench-report.mjs';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Files under `dir` (relative to the root) whose names match, skipping installs and builds. */
function walk(dir: string, match: RegExp): string[] {
  const abs = join(root, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs).flatMap((name) => {
    if (['node_modules', 'dist', 'generated', '.data'].includes(name)) return [];
    const path = join(abs, name);
    if (statSync(path).isDirectory()) return walk(relative(root, path), match);
    return match.test(name) ? [relative(root, path)] : [];
  });
}

const workspaces = ['packages', 'apps'].flatMap((dir) => readdirSync(join(root, dir)).map((p) => `${dir}/${p}`));
const docs = [
  'README.md',
  'CHANGELOG.md',
  ...walk('docs', /\.md$/),
  ...workspaces.map((w) => `${w}/README.md`).filter((f) => existsSync(join(root, f))),
];
// Sources, tests and benches: their comments are read as much as the docs.
// The checks' own files hold examples of what they refuse, so they are left out of the scan.
const sources = [
  ...workspaces.flatMap((w) => walk(w, /\.(ts|tsx|mjs|js|cjs)$/)),
  ...walk('scripts', /\.(ts|mjs|js|sh)$/),
  'vitest.workspace.ts',
].filter((f) => !f.includes('test/docs-style'));

describe('docs style', () => {
  it('finds the docs and the sources', () => {
    expect(docs).toContain('docs/store.md');
    expect(docs).toContain('CHANGELOG.md');
    expect(sources).toContain('apps/workspace-server/src/db/lock.ts');
    expect(sources).toContain('packages/core/test/links.test.ts');
    expect(sources.some((f) => f.includes('/bench/'))).toBe(true);
  });

  it('passes markdownlint over README, CHANGELOG and docs/', async () => {
    const out: string[] = [];
    const code = await markdownlint({ directory: root, argv: [], logMessage: () => {}, logError: (m: string) => out.push(m) });
    expect(out.join('\n')).toBe('');
    expect(code).toBe(0);
  }, 60_000);

  it.each(docs)('%s names no numbered round of work', (file) => {
    expect(roundsOfWork(readFileSync(join(root, file), 'utf8'))).toEqual([]);
  });

  it('no source, test or bench names a numbered round of work', () => {
    const found = sources.flatMap((f) => roundsOfWork(readFileSync(join(root, f), 'utf8')).map((l) => `${f}:${l}`));
    expect(found).toEqual([]);
  });

  it.each(docs)('%s has no prose line or table cell over 400 characters', (file) => {
    expect(longLines(readFileSync(join(root, file), 'utf8'), 'markdown')).toEqual([]);
  });

  it('docs/benchmarks.md is what scripts/bench-report.mjs renders from its figures (no hand edits)', () => {
    const page = readFileSync(BENCHMARKS_FILE, 'utf8');
    expect(readFigures(page).size).toBeGreaterThan(5);
    expect(page).toBe(render(readFigures(page)));
  });

  it('every docs/<page>.md, "<section>" a doc or a comment names is a heading or a bold lead of that page', () => {
    const texts = [...docs, ...sources].map((f) => [f, readFileSync(join(root, f), 'utf8')] as const);
    const missing = texts.flatMap(([f, text]) =>
      sectionReferences(text)
        .filter(({ page }) => existsSync(join(root, 'docs', page)))
        .filter(({ page, section }) => {
          const target = readFileSync(join(root, 'docs', page), 'utf8');
          return (
            !target.split('\n').some((l) => l.replace(/^#{1,6}\s+/, '').startsWith(section) && /^#{1,6}\s/.test(l)) &&
            !target.includes(`**${section}`)
          );
        })
        .map(({ page, section }) => `${f}: ${page}, "${section}"`),
    );
    expect(missing).toEqual([]);
  });

  it('no source comment line is over 400 characters', () => {
    const kind = (f: string) => (f.endsWith('.sh') ? 'shell' : 'source');
    const found = sources.flatMap((f) => longLines(readFileSync(join(root, f), 'utf8'), kind(f)).map((l) => `${f}:${l}`));
    expect(found).toEqual([]);
  });
});

describe('the docs-style checks', () => {
  const long = 'word '.repeat(81).trim(); // 404 characters

  it('finds numbered rounds of work in their usual spellings, and nothing else', () => {
    const text = [
      'as measured in session 12',
      'Issue #16 targets',
      'issues 5 and 6',
      'round 3 of tuning',
      'a round trip',
      'the session store',
      '2 sessions',
    ].join('\n');
    expect(roundsOfWork(text).map((l) => l.split(':')[0])).toEqual(['1', '2', '3', '4']);
  });

  it('measures prose and table cells, not fenced code', () => {
    const md = [
      long,
      '```',
      long,
      '```',
      `| ${long} | b |`,
      `| ${'x'.repeat(300)} | ${'y'.repeat(300)} |`,
      '~~~',
      long,
      '~~~',
      'short',
    ].join('\n');
    expect(longLines(md, 'markdown')).toEqual(['1: 404 characters', '5: 404 characters']);
  });

  it('reads section references in their usual spellings', () => {
    expect(sectionReferences('see docs/store.md, "The pool", and (store.md, "A search\'s plan")')).toEqual([
      { page: 'store.md', section: 'The pool' },
      { page: 'store.md', section: "A search's plan" },
    ]);
  });

  it('measures comments, not code, in sources', () => {
    const ts = [
      `// ${long}`,
      `const url = 'https://${'a'.repeat(450)}';`,
      `f(); // ${long}`,
      '/**',
      ` * ${long}`,
      ' */',
      `const s = "${long}";`,
    ].join('\n');
    expect(longLines(ts, 'source').map((l) => l.split(':')[0])).toEqual(['1', '3', '5']);
    expect(longLines([`# ${long}`, `echo ${long}`].join('\n'), 'shell').map((l) => l.split(':')[0])).toEqual(['1']);
  });
});
