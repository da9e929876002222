// The docs stand alone: every relative link in README.md, docs/ and the packages' READMEs points
// at a file of this repository (a clone has nothing beside it).
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
  ...['packages', 'apps'].flatMap((dir) => readdirSync(join(root, dir)).map((p) => `${dir}/${p}/README.md`)).filter((f) => existsSync(join(root, f))),
];

/** Markdown links and images: [text](target) — code spans and fenced blocks are left out. */
function links(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]);
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
});
