// What fmt and fix share (how unreadable files are reported, the exit code), and how fix finds its packs and source folders.
import type { RuleMeta } from '@setup-pack/core';
import type { CommandContext } from './context.js';
import { displayPath, expandEntries, type InputEntry } from './files.js';
import { notAPackReport, readPackFile, type PackRead } from './packfile.js';
import { cliVersion } from './version.js';
import { formatPretty } from '../report/pretty.js';
import type { FileReport } from '../report/model.js';

/** The pack files and the pack source folders named by the arguments (a file inside a source folder stands for the folder). */
export async function packsToRewrite(ctx: CommandContext, inputs: readonly string[]): Promise<{ files: InputEntry[]; folders: string[] }> {
  const entries = await expandEntries(inputs, ctx.cwd, [], { sourceFolders: true, wholeFolders: true });
  return { files: entries.filter((e) => e.type === 'file'), folders: entries.filter((e) => e.type === 'source-folder').map((e) => e.abs) };
}

/** Prints the files that could not be read or parsed as packs, with their diagnostics. */
export function reportUnreadable(ctx: CommandContext, failed: FileReport[], rules: readonly RuleMeta[]): void {
  if (failed.length) ctx.stderr.write(formatPretty(failed, { cwd: ctx.cwd, rules, toolVersion: cliVersion() }, ctx.colors('stderr')));
}

/**
 * Reads each file as a pack and hands it to `each`, one at a time. Returns the files that could
 * not be read or parsed, or are no pack (their top level not an object), and those `each` refused (the report it returns), for reportUnreadable
 * and rewriteExitCode.
 */
export async function forEachPackFile(
  ctx: CommandContext,
  files: readonly Pick<InputEntry, 'abs' | 'notAFile'>[],
  each: (file: { abs: string; path: string; read: Extract<PackRead, { ok: true }> }) => Promise<FileReport | void>,
): Promise<FileReport[]> {
  const failed: FileReport[] = [];
  for (const { abs, notAFile } of files) {
    const path = displayPath(abs, ctx.cwd);
    const r = await readPackFile(abs, path, notAFile);
    if (!r.ok) {
      failed.push(r.report);
      continue;
    }
    // Not a pack at all (`[]`): validate's error, and no file to fix.
    const notPack = await notAPackReport(r, path);
    if (notPack) {
      failed.push(notPack);
      continue;
    }
    const refused = await each({ abs, path, read: r });
    if (refused) failed.push(refused);
  }
  return failed;
}

/** 2 when a file could not be read or written; 1 when one could not be parsed as a pack, or `flagged`; else 0. */
export function rewriteExitCode(failed: readonly FileReport[], flagged: boolean): number {
  if (failed.some((f) => f.readError || f.writeError)) return 2;
  return failed.length || flagged ? 1 : 0;
}
