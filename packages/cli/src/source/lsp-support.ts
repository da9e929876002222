// The source folder as the language server reads it (setup-pack lsp): the files of a folder, read as
// `validate <folder>` reads them but with the editor's unsaved texts in place of the files they
// stand for. The server imports this module by its path (in its worker thread too): see
// SourceFolderSupport in @setup-pack/language-server.
import { join, relative, sep } from 'node:path';
import type { FolderAnalysis, FolderBuild, SourceFolderSupport } from '@setup-pack/language-server';
import type { SourceText } from '@setup-pack/core';
import { sourceFolderOf } from '../lib/files.js';
import { compileFolder } from './compile.js';
import { inLayout, itemFileBase, MANIFEST } from './layout.js';
import { isSourceFile, readTree } from './tree.js';
import { exportedAt } from '../lib/pack-input.js';
import { UsageError } from '../lib/errors.js';
import { writeFileSafely } from '../lib/write.js';

const encoder = new TextEncoder();
const toRel = (root: string, abs: string) => relative(root, abs).split(sep).join('/');

/**
 * The folder holding a file of its layout (not an asset's bytes), searched as `validate` searches
 * from the server's working directory (the editor's project): up to the repository holding the file.
 */
async function folderOf(file: string): Promise<string | undefined> {
  const root = await sourceFolderOf(process.cwd())(file);
  if (root === undefined) return undefined;
  const rel = toRel(root, file);
  return inLayout(rel) && !rel.startsWith('assets/') ? root : undefined;
}

async function analyse(root: string, overlay: ReadonlyMap<string, string>): Promise<FolderAnalysis> {
  const tree = await readTree(root);
  for (const [abs, text] of overlay) {
    const rel = toRel(root, abs);
    if (!rel.startsWith('..') && inLayout(rel)) tree.files.set(rel, encoder.encode(text));
  }
  // exportedAt is build's, as `validate <folder>` sets it; no finding depends on its value.
  const compiled = await compileFolder(tree, {
    exportedAt: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    dir: root,
    display: (abs) => abs,
  });
  const sources = new Map<string, SourceText>();
  for (const [rel, source] of compiled.built.sources) sources.set(join(root, rel), source);
  return {
    files: compiled.reports.map((r) => ({ file: r.path, diagnostics: r.diagnostics })),
    ...(compiled.built.pack ? { pack: compiled.built.pack } : {}),
    fixable: compiled.fixable,
    valid: compiled.ok,
    locate: (pointer) => {
      const at = compiled.built.locate(pointer);
      return at.pointer === undefined ? { file: join(root, at.file) } : { file: join(root, at.file), pointer: at.pointer };
    },
    copies: (pointer) => {
      // A resource's key is written in its kind's file and in the manifest's list of resources.
      const m = /^\/resources\/(\d+)\/key$/.exec(pointer);
      return m && compiled.built.sources.has(MANIFEST) ? [{ file: join(root, MANIFEST), pointer: `/resources/${m[1]}` }] : [];
    },
    sources,
    text: (file) => compiled.source(toRel(root, file))?.text,
  };
}

/**
 * `setup-pack build <root> [-o output]`: the pack's text when the folder builds, and the findings
 * by file; with `output`, written as build writes it (writeFileSafely), never over a file of the folder.
 */
async function build(root: string, options: { exportedAt?: string; output?: string } = {}): Promise<FolderBuild> {
  const { output } = options;
  if (output && isSourceFile(root, output))
    throw new UsageError(`the output '${output}' is a file of the source folder '${root}' it builds: write the pack elsewhere`);
  const { acceptsProperty, formatPack } = await import('@setup-pack/core');
  const at = options.exportedAt ?? exportedAt(undefined, process.env, (s) => acceptsProperty('pack', 'exportedAt', s));
  const compiled = await compileFolder(await readTree(root), { exportedAt: at, dir: root, display: (abs) => abs });
  const files = compiled.reports.map((r) => ({ file: r.path, diagnostics: r.diagnostics }));
  if (!compiled.ok || !compiled.pack) return { files };
  const text = formatPack(compiled.pack);
  if (output) await writeFileSafely(output, output, text);
  return { text, files };
}

export const sourceFolderSupport: SourceFolderSupport = {
  folderOf,
  analyse,
  build,
  itemFileBase: (root, collection, keys, index) => {
    const base = itemFileBase(collection, keys, index);
    return base === undefined ? undefined : join(root, ...base.split('/'));
  },
};
