// build = read the folder, compile, validate the pack, and place every diagnostic in the source
// file it came from (the pack pointer is mapped to a file and a pointer inside it).
import { join } from 'node:path';
import type { Diagnostic, LocateRequest, Position, SourceText } from '@setup-pack/core';
import { buildFromFiles, type BuildResult, type SourceLocation } from './layout.js';
import type { SourceTree } from './tree.js';
import type { FileReport } from '../report/model.js';

export interface CompileResult {
  pack?: Record<string, unknown>;
  reports: FileReport[];
  ok: boolean;
  /** The build itself: the pack it made (with errors or without), and where each of its values was read. */
  built: BuildResult;
  /** The text of a file of the folder as read (a parsed JSON file, or any other file decoded), by its path in the folder. */
  source(file: string): SourceText | undefined;
  /** Whether a finding of the built pack is about a place core's fixes write (mayBeFixed, asked of its pack pointer). */
  fixable: boolean;
}

/** The folder's files built into a pack (buildFromFiles), its links that lead out refused. */
export function buildTree(tree: SourceTree, exportedAt: string): BuildResult {
  const where = tree.repository ? `the repository (${tree.boundary})` : `the source folder (no repository holds it)`;
  const refusedLinks = new Map(
    [...tree.outside].map(([file, to]) => [file, `${file} is a link to ${to}, outside ${where}; build reads no file from outside it.`]),
  );
  const brokenLinks = new Map([...tree.broken].map(([file, why]) => [file, `${file} cannot be read: ${why}.`]));
  const notFiles = new Map([...tree.special].map(([file, why]) => [file, `${file} cannot be read: ${why}.`]));
  return buildFromFiles(tree.files, { exportedAt, refusedLinks, brokenLinks, notFiles });
}

export async function compileFolder(
  tree: SourceTree,
  options: { exportedAt: string; dir: string; display: (abs: string) => string; disableRules?: readonly string[] },
): Promise<CompileResult> {
  const [{ validatePack, createSourceText, placesKey, blocksUse, mayBeFixed }, { nodeHasher }] = await Promise.all([
    import('@setup-pack/core'),
    import('../lib/hasher.js'),
  ]);
  const files = tree.files;
  const utf8 = new TextDecoder();
  const sources = new Map<string, SourceText>();
  // A JSON file the build read is the build's parsed text (one scan places all its findings);
  // any other file (a template's HTML body) is read here when a finding or a report needs it.
  const sourceOf = (file: string): SourceText | undefined => {
    const built = result.sources.get(file);
    if (built) return built;
    if (!sources.has(file)) {
      const bytes = files.get(file);
      if (!bytes) return undefined;
      const text = utf8.decode(bytes);
      sources.set(file, createSourceText(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text));
    }
    return sources.get(file);
  };
  const result = buildTree(tree, options.exportedAt);
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
  let fixable = false;
  // Stray files do not change the pack, and a number JSON cannot hold is a finding about one value
  // of it, so it is still worth validating; a missing or broken source file would only add noise
  // downstream.
  const harmless = new Set(['build/unlisted-file', 'build/unused-asset-file', 'json/number-range']);
  const blocked = result.diagnostics.some((d) => d.severity === 'error' && !harmless.has(d.code));
  if (pack && !blocked) {
    // The assets read from files were hashed from their bytes as they were read (assetHashes).
    const known = result.assetHashes;
    const hashBase64 = (data: string) => known.get(data) ?? nodeHasher(data);
    const validation = validatePack(pack, { hashBase64, disableRules: options.disableRules ?? [] });
    // Every number of the built pack was read from a source file, whose own findings (above) name
    // a number JSON cannot hold as written; the built pack's, naming only Infinity, would repeat them.
    if (reportsNumberRange(result.diagnostics))
      validation.diagnostics = validation.diagnostics.filter((d) => d.code !== 'json/number-range');
    // Each finding and each of its notes goes to a source file and a pointer in it; then every
    // file's findings are placed together, one scan of its text (core's locateAll), rather than
    // a walk of a parsed tree per finding.
    const spotOf = (pointer: string, key: boolean, missing?: string): Spot => {
      const loc = result.locate(pointer, missing);
      return { file: loc.file, pointer: loc.pointer, key, pos: undefined, said: loc.said };
    };
    // The findings are this validation's own, so each is moved to its file where it stands (its
    // pointer and position rewritten) rather than copied: with tens of thousands of findings the
    // copies, and the arrays that carried them to placement, were garbage the collector copied.
    const ds = validation.diagnostics;
    fixable = ds.some(mayBeFixed);
    const at = new Array<Spot>(ds.length);
    const notes = new Map<number, Spot[]>();
    const all: Spot[] = [];
    for (let i = 0; i < ds.length; i++) {
      const d = ds[i];
      all.push((at[i] = spotOf(d.pointer, placesKey(d), d.missing)));
      if (d.related) {
        const related = d.related.map((r) => spotOf(r.pointer, false));
        notes.set(i, related);
        for (const r of related) all.push(r);
      }
    }
    placeSpots(all, sourceOf);
    for (let i = 0; i < ds.length; i++) {
      const d = ds[i];
      const s = at[i];
      d.pointer = s.pointer ?? '';
      if (s.said) {
        // A value the layout keeps out of the file's JSON (a missing body's file to create, a
        // resource kind taken from its file's name): the message says where.
        d.message = `${d.message} ${s.said.note}`;
        d.hint = s.said.hint;
      }
      d.line = s.pos?.line;
      d.column = s.pos?.column;
      d.endLine = s.pos?.endLine;
      d.endColumn = s.pos?.endColumn;
      const related = notes.get(i);
      if (related) {
        d.related = related.map((rp, k) =>
          rp.file === s.file
            ? { pointer: rp.pointer ?? '', message: d.related![k].message, line: rp.pos?.line, column: rp.pos?.column }
            : {
                pointer: rp.pointer ?? '',
                message: `${d.related![k].message} (${join(options.dir, rp.file).split('\\').join('/')}${rp.pos ? `:${rp.pos.line}:${rp.pos.column}` : ''})`,
              },
        );
      }
      add(s.file, d);
    }
    if (validation.diagnostics.some(blocksUse) || result.diagnostics.some((d) => d.severity === 'error')) pack = undefined;
  } else pack = undefined;
  const reports: FileReport[] = [...byFile].map(([file, diagnostics]) => {
    const src = sourceOf(file);
    const isText = /\.(json|html|txt)$/.test(file);
    return {
      path: options.display(join(options.dir, ...file.split('/'))),
      ...(src && isText ? { text: src.text } : {}),
      diagnostics: diagnostics.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0)),
    };
  });
  return { pack, reports, ok: pack !== undefined, built: result, source: sourceOf, fixable };
}

const reportsNumberRange = (ds: readonly Diagnostic[]) => ds.some((d) => d.code === 'json/number-range');

/** Where a finding of the built pack goes: a source file, a pointer in it (none: the whole file), its position once placed. */
interface Spot {
  file: string;
  pointer: string | undefined;
  key: boolean;
  pos: Partial<Position> | undefined;
  /** What the layout makes of the place, for the message (SourceLocation's said). */
  said?: SourceLocation['said'];
}

/**
 * Positions of every spot, file by file: all of a file's pointers in one locateAll. A spot with no
 * pointer, or in a file there is no text of, is placed at the file's first line.
 */
function placeSpots(spots: readonly Spot[], sourceOf: (file: string) => SourceText | undefined): void {
  const byFile = new Map<string, Spot[]>();
  for (const s of spots) {
    const src = s.pointer === undefined ? undefined : sourceOf(s.file);
    if (!src) {
      s.pos = { line: 1, column: 1 };
      continue;
    }
    let list = byFile.get(s.file);
    if (!list) byFile.set(s.file, (list = []));
    list.push(s);
  }
  for (const [file, list] of byFile) {
    const found = sourceOf(file)!.locateAll(list as readonly LocateRequest[]); // each has its pointer (above)
    for (let i = 0; i < list.length; i++) list[i].pos = found[i];
  }
}
