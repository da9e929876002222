// setup-pack fmt: rewrite packs, and the JSON files of pack source folders, in the canonical form
// (schema key order, 2 spaces, final newline).
import { join, relative, sep } from 'node:path';
import { count, numbersNotKept, plural, pluralWord, printable } from '@setup-pack/core';
import type { CommandSpec, Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';
import { displayPath, expandEntries, mayBeSourceFolder, sourceFolderOf } from '../lib/files.js';
import { leftAsItIs, lostOnRewrite, notAPackReport, parsePackBytes, readPackFile } from '../lib/packfile.js';
import { reportUnreadable, rewriteExitCode } from '../lib/rewrite.js';
import { ioReason, writeFileSafely } from '../lib/write.js';
import { WriteError } from '../lib/errors.js';
import type { FileReport } from '../report/model.js';
import { JSON_SOURCE_FOLDERS, sourceFileText, sourceRole, type SourceRole } from '../source/layout.js';
import { readTree, type SourceTree } from '../source/tree.js';

export const spec: CommandSpec = {
  name: 'fmt',
  summary:
    'Rewrite pack files and the JSON files of pack source folders in the canonical form; with --check, only report files that are not.',
  usage: 'fmt [--check] <files, directories or globs...>',
  description:
    'Canonical form: keys in the order of the published schemas (unknown keys after known ones, in their order), 2-space indentation, a final newline. In a source folder each JSON file build reads is formatted where it stands, as unpack writes it; template bodies, asset files and files build ignores are not touched. Files that do not validate are formatted too. Refused, and left as they are: invalid JSON, and a file that written again would not say the same (a property written twice, a number JSON cannot hold such as 1e400 or one it does not keep as written such as 12345678901234567890, 0.1000000000000000055511151231257827 or 1e-400).',
  positionals: [1, Infinity],
  options: {
    check: { type: 'boolean', description: 'Change nothing; exit 1 and list the files that are not formatted.' },
  },
  examples: [
    ['setup-pack fmt pack.json', 'Format a pack in place'],
    ['setup-pack fmt my-pack/', 'Format the JSON files of a source folder'],
    ['setup-pack fmt --check "packs/**/*.json"', 'Fail CI when a pack or a source file is not formatted'],
  ],
};

/** A file to format: a pack file, or a JSON file of a source folder (its bytes as readTree read them) in its role. */
interface Target {
  abs: string;
  path: string;
  role: SourceRole | 'pack';
  bytes?: Uint8Array;
  /** A pack file a walk met that is not read, and why (InputEntry's). */
  notAFile?: string;
}

export async function run(ctx: CommandContext, args: Parsed): Promise<number> {
  const { targets, failed } = await filesToFormat(ctx, args.positionals);
  const { formatPack, RULE_METADATA } = await import('@setup-pack/core');
  const check = Boolean(args.values.check);
  const c = ctx.colors('stdout');
  let changed = 0;
  for (const t of targets) {
    const r = t.bytes ? await parsePackBytes(t.bytes, t.path) : await readPackFile(t.abs, t.path, t.notAFile);
    if (!r.ok) {
      failed.push(r.report);
      continue;
    }
    // fmt changes how a file is written, never what it says: a property written twice (JSON.parse,
    // and build, keep the last, so writing the file again would drop the first) or a number
    // JSON.parse does not read as written (1e400 would be written as null; core's findings; and
    // 0.1000000000000000055511151231257827 as 0.1, 1e-400 as 0: numbersNotKept) leaves the file as it is.
    // A pack file that is no pack at all (`[]`) is validate's error: refused, not "already formatted".
    const notPack = t.role === 'pack' ? await notAPackReport(r, t.path) : undefined;
    if (notPack) {
      failed.push(notPack);
      continue;
    }
    const lost = lostOnRewrite([...r.findings, ...numbersNotKept(r.source)], leftAsItIs('fmt'));
    if (lost.length) {
      failed.push({ path: t.path, text: r.source.text, diagnostics: lost });
      continue;
    }
    const formatted = t.role === 'pack' ? formatPack(r.value) : sourceFileText(t.role, r.value);
    if (formatted === r.text) continue;
    changed++;
    if (check) {
      ctx.stdout.write(`${printable(t.path)}: ${c.yellow('not formatted')}\n`);
      continue;
    }
    try {
      // Only over what was read: a file changed since (an editor saved it) is left as it is now.
      await writeFileSafely(t.abs, t.path, formatted, { readAs: t.bytes ?? r.text });
    } catch (e) {
      if (!(e instanceof WriteError)) throw e;
      failed.push({ path: t.path, diagnostics: [], writeError: `cannot write the file: ${e.reason}` });
      continue;
    }
    ctx.stdout.write(`${printable(t.path)}: formatted\n`);
  }
  reportUnreadable(ctx, failed, RULE_METADATA);
  const files = targets.length;
  if (check && changed)
    ctx.stdout.write(
      `${count(changed)} of ${plural(files, 'file')} not formatted; run 'setup-pack fmt' on ${pluralWord(changed, 'it', 'them')}.\n`,
    );
  else if (!changed && !failed.length) ctx.stdout.write(c.green(`✔ ${plural(files, 'file')} already formatted\n`));
  return rewriteExitCode(failed, check && changed > 0);
}

/** The folders of a source folder that hold JSON files build reads. */
const JSON_FOLDERS: ReadonlySet<string> = new Set(JSON_SOURCE_FOLDERS);

/**
 * The files the arguments name, in order, each once: pack files, and the JSON files of pack source
 * folders (a folder named or found in a directory: all of them; a file of one named or matched by
 * a glob, as the pre-commit hook passes them: that file). A file of a source folder (sourceFolderOf:
 * at its top or below a folder of its layout) is never formatted as a pack: one build does not
 * read as JSON (a template body, an asset's bytes, a README) is skipped with a note, and so is a link that leads out of the repository (build
 * refuses it). Folders that cannot be read come back as failures.
 */
async function filesToFormat(ctx: CommandContext, inputs: readonly string[]): Promise<{ targets: Target[]; failed: FileReport[] }> {
  const entries = await expandEntries(inputs, ctx.cwd, [], { sourceFolders: mayBeSourceFolder });
  const folderOf = sourceFolderOf(ctx.cwd, mayBeSourceFolder);
  const show = (abs: string) => printable(displayPath(abs, ctx.cwd));
  type Step = { pack: string; notAFile?: string } | { folder: string; rel?: string };
  const steps: Step[] = [];
  const wanted = new Map<string, { all: boolean; rels: Set<string> }>();
  const want = (root: string) => {
    let w = wanted.get(root);
    if (!w) wanted.set(root, (w = { all: false, rels: new Set() }));
    return w;
  };
  for (const e of entries) {
    if (e.type === 'source-folder') {
      want(e.abs).all = true;
      steps.push({ folder: e.abs });
      continue;
    }
    const root = await folderOf(e.abs);
    if (root === undefined) {
      steps.push({ pack: e.abs, notAFile: e.notAFile });
      continue;
    }
    const rel = relative(root, e.abs).split(sep).join('/');
    if (sourceRole(rel) === undefined) {
      ctx.stderr.write(
        rel.startsWith('assets/')
          ? `${show(e.abs)}: skipped, an asset file of the source folder ${show(root)}/ (fmt never changes an asset's bytes)\n`
          : `${show(e.abs)}: skipped, in the source folder ${show(root)}/ but not one of the JSON files build reads\n`,
      );
      continue;
    }
    want(root).rels.add(rel);
    steps.push({ folder: root, rel });
  }

  // Each source folder is read once, as build reads it (links that lead out are not read), and
  // only as far as the JSON files asked for: never an asset's bytes.
  const failed: FileReport[] = [];
  const trees = new Map<string, SourceTree>();
  for (const [root, w] of wanted) {
    const select = (rel: string, dir: boolean) =>
      dir
        ? JSON_FOLDERS.has(rel) && (w.all || [...w.rels].some((r) => r.startsWith(`${rel}/`)))
        : w.all
          ? sourceRole(rel) !== undefined
          : w.rels.has(rel);
    try {
      trees.set(root, await readTree(root, select));
    } catch (e) {
      failed.push({ path: `${displayPath(root, ctx.cwd)}/`, diagnostics: [], readError: `cannot read the source folder: ${ioReason(e)}` });
    }
  }

  const targets: Target[] = [];
  const seen = new Set<string>();
  const add = (t: Target) => {
    if (seen.has(t.abs)) return;
    seen.add(t.abs);
    targets.push(t);
  };
  const refuse = (root: string, tree: SourceTree, rel: string) => {
    const abs = join(root, ...rel.split('/'));
    if (seen.has(abs)) return;
    seen.add(abs);
    const where = tree.repository ? `the repository (${tree.boundary})` : 'the source folder (no repository holds it)';
    ctx.stderr.write(
      `${show(abs)}: skipped, a link to ${printable(tree.outside.get(rel)!)}, outside ${printable(where)}: build reads no file from outside it\n`,
    );
  };
  for (const step of steps) {
    if ('pack' in step) {
      add({ abs: step.pack, path: displayPath(step.pack, ctx.cwd), role: 'pack', notAFile: step.notAFile });
      continue;
    }
    const root = step.folder;
    const tree = trees.get(root);
    if (!tree) continue;
    const source = (rel: string) => {
      const abs = join(root, ...rel.split('/'));
      add({ abs, path: displayPath(abs, ctx.cwd), role: sourceRole(rel)!, bytes: tree.files.get(rel) });
    };
    const unreadable = (rel: string) => {
      const abs = join(root, ...rel.split('/'));
      if (seen.has(abs) || sourceRole(rel) === undefined) return;
      seen.add(abs);
      failed.push({
        path: displayPath(abs, ctx.cwd),
        diagnostics: [],
        readError: `cannot read the file: ${tree.broken.get(rel) ?? tree.special.get(rel)}`,
      });
    };
    if (step.rel === undefined) {
      for (const rel of tree.files.keys()) source(rel);
      for (const rel of tree.outside.keys()) refuse(root, tree, rel);
      // A link to nothing (or round in a loop), and a pipe, socket or device (or a link to one), is a
      // file that cannot be read, as one a walk meets where a pack would be.
      for (const [rel] of [...tree.broken, ...tree.special]) unreadable(rel);
    } else if (tree.files.has(step.rel)) source(step.rel);
    else if (tree.outside.has(step.rel)) refuse(root, tree, step.rel);
    else if (tree.broken.has(step.rel) || tree.special.has(step.rel)) unreadable(step.rel);
    else
      ctx.stderr.write(
        `${show(join(root, ...step.rel.split('/')))}: skipped, build does not read it (it is reached through a linked folder, which build does not walk)\n`,
      );
  }
  return { targets, failed };
}
