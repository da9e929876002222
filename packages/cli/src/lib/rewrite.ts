// What fmt and fix share: which files to rewrite in place, and how unreadable ones are reported.
import type { RuleMeta } from '@setup-pack/core';
import type { CommandContext } from './context.js';
import { displayPath, expandEntries } from './files.js';
import { cliVersion } from './version.js';
import { formatPretty } from '../report/pretty.js';
import type { FileReport } from '../report/model.js';

/** The pack files named by the arguments. Source folders are not packs (build writes their output in canonical form): they are skipped with a notice. */
export async function packFilesToRewrite(ctx: CommandContext, inputs: readonly string[]): Promise<string[]> {
  const entries = await expandEntries(inputs, ctx.cwd, [], { sourceFolders: true });
  for (const e of entries) if (e.type === 'source-folder') ctx.stderr.write(`${displayPath(e.abs, ctx.cwd)}/: skipped, a pack source folder (build writes canonical output)\n`);
  return entries.filter((e) => e.type === 'file').map((e) => e.abs);
}

/** Prints the files that could not be read or parsed as packs, with their diagnostics. */
export function reportUnreadable(ctx: CommandContext, failed: FileReport[], rules: readonly RuleMeta[]): void {
  if (failed.length) ctx.stderr.write(formatPretty(failed, { cwd: ctx.cwd, rules, toolVersion: cliVersion() }, ctx.colors('stderr')));
}
