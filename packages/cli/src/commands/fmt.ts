// setup-pack fmt: rewrite packs in the canonical form (schema key order, 2 spaces, final newline).
import { writeFile } from 'node:fs/promises';
import { count, plural, pluralWord } from '@setup-pack/core';
import type { CommandSpec, Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';
import { forEachPackFile, packFilesToRewrite, reportUnreadable, rewriteExitCode } from '../lib/rewrite.js';

export const spec: CommandSpec = {
  name: 'fmt',
  summary: 'Rewrite pack files in the canonical form; with --check, only report files that are not.',
  usage: 'fmt [--check] <files, directories or globs...>',
  description: 'Canonical form: keys in the order of the published schemas (unknown keys after known ones, in their order), 2-space indentation, a final newline. Files that do not validate are formatted too; only invalid JSON is refused.',
  positionals: [1, Infinity],
  options: {
    check: { type: 'boolean', description: 'Change nothing; exit 1 and list the files that are not formatted.' },
  },
  examples: [
    ['setup-pack fmt pack.json', 'Format a pack in place'],
    ['setup-pack fmt --check "packs/**/*.json"', 'Fail CI when a pack is not formatted'],
  ],
};

export async function run(ctx: CommandContext, args: Parsed): Promise<number> {
  const files = await packFilesToRewrite(ctx, args.positionals);
  const { formatPack, RULE_METADATA } = await import('@setup-pack/core');
  const check = Boolean(args.values.check);
  const c = ctx.colors('stdout');
  let changed = 0;
  const failed = await forEachPackFile(ctx, files, async ({ abs, path, text, value }) => {
    const formatted = formatPack(value);
    if (formatted === text) return;
    changed++;
    if (check) ctx.stdout.write(`${path}: ${c.yellow('not formatted')}\n`);
    else {
      await writeFile(abs, formatted);
      ctx.stdout.write(`${path}: formatted\n`);
    }
  });
  reportUnreadable(ctx, failed, RULE_METADATA);
  if (check && changed) ctx.stdout.write(`${count(changed)} of ${plural(files.length, 'file')} not formatted; run 'setup-pack fmt' on ${pluralWord(changed, 'it', 'them')}.\n`);
  else if (!changed && !failed.length) ctx.stdout.write(c.green(`✔ ${plural(files.length, 'file')} already formatted\n`));
  return rewriteExitCode(failed, check && changed > 0);
}
