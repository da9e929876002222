// build = read the folder, compile, validate the pack, and place every diagnostic in the source
// file it came from (the pack pointer is mapped to a file and a pointer inside it).
import { join } from 'node:path';
import type { Diagnostic, SourceText } from '@setup-pack/core';
import { buildFromFiles } from './layout.js';
import type { SourceTree } from './tree.js';
import type { FileReport } from '../report/model.js';

export interface CompileResult {
  pack?: Record<string, unknown>;
  reports: FileReport[];
  ok: boolean;
}

export async function compileFolder(tree: SourceTree, options: { exportedAt: string; dir: string; display: (abs: string) => string; disableRules?: readonly string[] }): Promise<CompileResult> {
  const [{ validatePack, createSourceText }, { nodeHasher }] = await Promise.all([import('@setup-pack/core'), import('../lib/hasher.js')]);
  const files = tree.files;
  const utf8 = new TextDecoder();
  const sources = new Map<string, SourceText>();
  const sourceOf = (file: string): SourceText | undefined => {
    if (!sources.has(file)) {
      const bytes = files.get(file);
      if (!bytes) return undefined;
      const text = utf8.decode(bytes);
      sources.set(file, createSourceText(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text));
    }
    return sources.get(file);
  };
  const where = tree.repository ? `the repository (${tree.boundary})` : `the source folder (no repository holds it)`;
  const refusedLinks = new Map([...tree.outside].map(([file, to]) => [file, `${file} is a link to ${to}, outside ${where}; build reads no file from outside it.`]));
  const result = buildFromFiles(files, { exportedAt: options.exportedAt, refusedLinks });
  const byFile = new Map<string, Diagnostic[]>();
  const add = (file: string, d: Diagnostic) => {
    if (!byFile.has(file)) byFile.set(file, []);
    byFile.get(file)!.push(d);
  };
  for (const d of result.diagnostics) {
    const { file, ...rest } = d;
    add(file, rest);
  }
  let pack = result.pack;
  // Stray files do not change the pack, so it is still worth validating; a missing or broken
  // source file would only add noise downstream.
  const harmless = new Set(['build/unlisted-file', 'build/unused-asset-file']);
  const blocked = result.diagnostics.some((d) => d.severity === 'error' && !harmless.has(d.code));
  if (pack && !blocked) {
    const validation = validatePack(pack, { hashBase64: nodeHasher, disableRules: options.disableRules ?? [] });
    for (const d of validation.diagnostics) {
      const key = d.code === 'schema/unknown-field' || d.code === 'json/duplicate-key';
      const place = (pointer: string, asKey: boolean) => {
        const loc = result.locate(pointer);
        const src = sourceOf(loc.file);
        const pos = loc.pointer !== undefined && src ? src.locate(loc.pointer, { key: asKey }) : { line: 1, column: 1 };
        return { file: loc.file, pointer: loc.pointer ?? '', pos };
      };
      const at = place(d.pointer, key);
      const related = d.related?.map((r) => {
        const rp = place(r.pointer, false);
        return rp.file === at.file
          ? { pointer: rp.pointer, message: r.message, line: rp.pos?.line, column: rp.pos?.column }
          : { pointer: rp.pointer, message: `${r.message} (${join(options.dir, rp.file).split('\\').join('/')}${rp.pos ? `:${rp.pos.line}:${rp.pos.column}` : ''})` };
      });
      add(at.file, {
        ...d,
        pointer: at.pointer,
        line: at.pos?.line,
        column: at.pos?.column,
        endLine: at.pos && 'endLine' in at.pos ? at.pos.endLine : undefined,
        endColumn: at.pos && 'endColumn' in at.pos ? at.pos.endColumn : undefined,
        ...(related ? { related } : {}),
      });
    }
    if (validation.diagnostics.some((d) => d.severity === 'error') || result.diagnostics.some((d) => d.severity === 'error')) pack = undefined;
  } else pack = undefined;
  const reports: FileReport[] = [...byFile].map(([file, diagnostics]) => {
    const src = sourceOf(file);
    const isText = /\.(json|html|txt)$/.test(file);
    return { path: options.display(join(options.dir, ...file.split('/'))), ...(src && isText ? { text: src.text } : {}), diagnostics: diagnostics.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0)) };
  });
  return { pack, reports, ok: pack !== undefined };
}
