// The docs stand alone: every relative link in README.md, docs/ and the packages' READMEs points
// at a file of this repository (a clone has nothing beside it).
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...['packages', 'apps']
    .flatMap((dir) => readdirSync(join(root, dir)).map((p) => `${dir}/${p}/README.md`))
    .filter((f) => existsSync(join(root, f))),
];

/** Markdown links and images: [text](target) — code spans and fenced blocks are left out. */
function links(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]);
}

/** GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of text.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

describe('documentation links', () => {
  it('finds the pages', () => {
    expect(pages).toContain('docs/format.md');
    expect(pages).toContain('docs/architecture.md');
  });

  it.each(pages)('%s links only to files inside the repository that exist', (page) => {
    const broken: string[] = [];
    for (const target of links(readFileSync(join(root, page), 'utf8'))) {
      if (/^(https?:|mailto:|#)/.test(target)) continue;
      const path = decodeURIComponent(target.split('#')[0].split('?')[0]);
      const abs = join(dirname(join(root, page)), path);
      if (relative(root, abs).startsWith('..') || !existsSync(abs)) broken.push(target);
    }
    expect(broken).toEqual([]);
  });

  it.each(pages)('%s links to headings that exist in markdown pages', (page) => {
    const broken: string[] = [];
    for (const target of links(readFileSync(join(root, page), 'utf8'))) {
      if (/^(https?:|mailto:)/.test(target) || !target.includes('#')) continue;
      const [path, anchor] = target.split('#');
      const file = path ? join(dirname(join(root, page)), decodeURIComponent(path.split('?')[0])) : join(root, page);
      if (!file.endsWith('.md') || !existsSync(file)) continue;
      if (!anchors(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor))) broken.push(target);
    }
    expect(broken).toEqual([]);
  });

  it('reads anchors as GitHub makes them', () => {
    expect([...anchors("# PGlite's autovacuum\n## `--workers` and the pool\n## Same\n## Same\n")]).toEqual([
      'pglites-autovacuum',
      '--workers-and-the-pool',
      'same',
      'same-1',
    ]);
  });
});
