// setup-pack fix: core's mechanical repairs (fixPack), applied to pack files.
import { writeFile } from 'node:fs/promises';
import { count, plural, printable } from '@setup-pack/core';
import type { CommandSpec, Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';
import { forEachPackFile, packFilesToRewrite, reportUnreadable, rewriteExitCode } from '../lib/rewrite.js';

export const spec: CommandSpec = {
  name: 'fix',
  summary: 'Recompute asset sha256/byteSize from their data, set won/lost stage probabilities to 100/0, and move an edge\'s sourceHandle to handle.',
  usage: 'fix [--dry-run] <files, directories or globs...>',
  description: 'Writes the fixed pack in the canonical form (as fmt). Assets whose data is not valid base64 are left alone (validate reports them), and so is an edge with both sourceHandle and handle (which one is meant is yours to say). A moved handle is checked by validate as any other.',
  positionals: [1, Infinity],
  options: {
    'dry-run': { type: 'boolean', short: 'n', description: 'Print what would change; write nothing (exit 1 if anything would).' },
  },
  examples: [
    ['setup-pack fix pack.json', 'Repair a pack in place'],
    ['setup-pack fix --dry-run pack.json', 'See what fix would change'],
  ],
};

export async function run(ctx: CommandContext, args: Parsed): Promise<number> {
  const files = await packFilesToRewrite(ctx, args.positionals);
  const [{ fixPack, formatPack, RULE_METADATA }, { nodeHasher }] = await Promise.all([import('@setup-pack/core'), import('../lib/hasher.js')]);
  const dry = Boolean(args.values['dry-run']);
  let touched = 0;
  const failed = await forEachPackFile(ctx, files, async ({ abs, path, value }) => {
    const changes = fixPack(value, nodeHasher);
    for (const ch of changes) ctx.stdout.write(`${path}: ${printable(ch)}\n`);
    if (!changes.length) return;
    touched++;
    if (!dry) await writeFile(abs, formatPack(value));
  });
  reportUnreadable(ctx, failed, RULE_METADATA);
  ctx.stdout.write(touched ? `${dry ? 'would fix' : 'fixed'} ${count(touched)} of ${plural(files.length, 'file')}\n` : `nothing to fix in ${plural(files.length, 'file')}\n`);
  return rewriteExitCode(failed, dry && touched > 0);
}
