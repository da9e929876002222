// setup-pack uninstall: remove what a pack installed and nobody edited since.
import { count, plural } from '@setup-pack/core';
import type { CommandSpec, Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';
import { connect, CONNECTION_OPTIONS, planJson, reportFailure } from '../lib/workspace.js';

export const spec: CommandSpec = {
  name: 'uninstall',
  summary: 'Remove an installed pack from a workspace.',
  usage: 'uninstall [options] <packId>',
  description:
    'Removes every item the pack created that is unedited, in reverse dependency order, then its install ledger. Items edited in the workspace are kept (they now belong to the workspace), and so are items another installed pack adopted or bound a reference to; objects the pack adopted by name are left alone.',
  exitCodes: 'Exit codes: 0 removed, or a dry run; 1 the pack is not installed, or the API refused; 2 usage error.',
  docs: 'docs/install.md',
  positionals: [1, 1],
  options: { ...CONNECTION_OPTIONS, 'dry-run': { type: 'boolean', description: 'Show what would be removed; write nothing.' } },
  examples: [['setup-pack uninstall 6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12', 'Remove the Buyer Lead Starter pack']],
};

export async function run(ctx: CommandContext, args: Parsed): Promise<number> {
  const json = args.values.format === 'json';
  const client = await connect(ctx, args);
  const { uninstall, formatPlanText } = await import('@setup-pack/installer');
  try {
    const r = await uninstall(client, args.positionals[0], { dryRun: !!args.values['dry-run'] });
    if (json)
      ctx.stdout.write(
        JSON.stringify(
          { ...planJson(r.plan), dryRun: !!args.values['dry-run'], removed: r.removed, kept: r.kept.map((s) => s.itemId) },
          null,
          2,
        ) + '\n',
      );
    else {
      ctx.stdout.write(formatPlanText(r.plan, ctx.colors('stdout'), { all: true }));
      ctx.stdout.write(
        args.values['dry-run'] ? 'Dry run: nothing was removed.\n' : `Removed ${plural(r.removed, 'item')}${keptText(r.kept)}.\n`,
      );
    }
    return 0;
  } catch (e) {
    return reportFailure(ctx, e, json);
  }
}

/** What uninstall kept, by why: edited in the workspace (conflicts), or held by another installed pack (orphans). */
function keptText(kept: readonly { action: string }[]): string {
  const edited = kept.filter((s) => s.action === 'conflict').length;
  const held = kept.length - edited;
  const parts = [
    edited ? `${count(edited)} edited in the workspace` : '',
    held ? `${count(held)} used by another installed pack` : '',
  ].filter(Boolean);
  return parts.length ? `; kept ${parts.join(' and ')}` : '';
}
