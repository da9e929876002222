// The server's layout, held: imports run one way (shared ← db ← http ← modules ← app ← the
// composition at the top), and the modules depend on each other without a circle
// (docs/server-layout.md).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Graph, alg } from '@dagrejs/graphlib';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../src/', import.meta.url));

/** Each folder's rank: a file may import files of its own rank or lower, never higher. */
const RANK: Record<string, number> = { shared: 0, db: 1, http: 2, modules: 3, app: 4 };
const TOP = 5; // server.ts, bin.ts and the other files at src/'s root compose the rest

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every relative import of the file (type-only ones included: they couple the code as much), as src-relative paths. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, false);
  return importedFiles
    .filter((i) => i.fileName.startsWith('.'))
    .map((i) => relative(src, resolve(dirname(file), i.fileName.replace(/\.js$/, '.ts'))));
}

const rankOf = (path: string) => (path.includes('/') ? RANK[path.split('/')[0]] : TOP);
const moduleOf = (path: string) => (path.startsWith('modules/') ? path.split('/')[1] : undefined);
const edges = sources(src).flatMap((file) => importsOf(file).map((to) => ({ from: relative(src, file), to })));

describe('the server layout', () => {
  it('has every folder of src/ ranked', () => {
    const folders = new Set(
      edges
        .map((e) => e.from)
        .filter((p) => p.includes('/'))
        .map((p) => p.split('/')[0]),
    );
    expect([...folders].filter((f) => RANK[f] === undefined)).toEqual([]);
  });

  it('imports run one way: no file imports a folder above its own', () => {
    const upward = edges.filter((e) => rankOf(e.to) > rankOf(e.from)).map((e) => `${e.from} → ${e.to}`);
    expect(upward).toEqual([]);
    expect(edges.length).toBeGreaterThan(100);
  });

  it('the modules depend on each other without a circle', () => {
    const g = new Graph();
    for (const { from, to } of edges) {
      const [a, b] = [moduleOf(from), moduleOf(to)];
      if (a && b && a !== b) g.setEdge(a, b);
    }
    expect(g.edgeCount()).toBeGreaterThan(5);
    expect(alg.findCycles(g)).toEqual([]);
  });
});
